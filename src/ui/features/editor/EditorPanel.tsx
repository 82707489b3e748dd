/**
 * The manifest editor: Monaco YAML checked against the served OpenAPI, and
 * the writes kubectl offers (create, replace, server-side apply) with the
 * field manager, force, dry run and field validation level. The server's
 * answer is shown as kubectl prints it, warnings included.
 */
import { useState } from 'react';
import type { ResourceKind, WriteVerb } from '../../api';
import { StatusError } from '../../common';
import { LazyCodeEditor, type EditorMarker } from '../../monaco';
import { useWorkbench } from '../../store';
import type { FieldValidation } from './editorSlice';
import { useManifestSchema } from './useManifestSchema';
import { useWrite } from './useWrite';

export const MANIFEST_MODEL = 'inmemory://kubesim/manifest.yaml';

export function EditorPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const draft = useWorkbench((s) => s.manifestDraft);
  const setDraft = useWorkbench((s) => s.setManifestDraft);
  const fieldManager = useWorkbench((s) => s.fieldManager);
  const setFieldManager = useWorkbench((s) => s.setFieldManager);
  const force = useWorkbench((s) => s.force);
  const setForce = useWorkbench((s) => s.setForce);
  const dryRun = useWorkbench((s) => s.dryRun);
  const setDryRun = useWorkbench((s) => s.setDryRun);
  const fieldValidation = useWorkbench((s) => s.fieldValidation);
  const setFieldValidation = useWorkbench((s) => s.setFieldValidation);
  const selectedNamespace = useWorkbench((s) => s.selectedNamespace);
  const applyConflict = useWorkbench((s) => s.applyConflict);
  const showPanel = useWorkbench((s) => s.showPanel);
  const write = useWrite(kinds);
  const { schema, id } = useManifestSchema(draft);
  const [problems, setProblems] = useState<EditorMarker[]>([]);

  const run = (verb: WriteVerb) => write.mutate({ verb, manifest: draft });
  const warnings = write.data?.warnings ?? (write.error && 'warnings' in write.error ? (write.error.warnings as readonly string[]) : []);

  return (
    <section className="panel editor-panel" aria-labelledby="editor-heading" data-testid="editor-panel">
      <h2 id="editor-heading">Manifest</h2>
      <p className="muted">
        One object, in <code>metadata.namespace</code> or else <code>{selectedNamespace ?? 'default'}</code>. Schema:{' '}
        <span data-testid="editor-schema">{id ?? 'none (set apiVersion and kind)'}</span>
      </p>
      <LazyCodeEditor
        value={draft}
        onChange={(text) => {
          setDraft(text);
          if (!write.isIdle) write.reset();
        }}
        language="yaml"
        modelUri={MANIFEST_MODEL}
        schema={schema}
        schemaId={id}
        onMarkers={setProblems}
        ariaLabel="Manifest (YAML)"
        testId="manifest-editor"
      />
      {problems.length > 0 && (
        <ul className="problems" aria-label="Problems in the manifest" data-testid="editor-problems">
          {problems.map((p, i) => (
            <li key={i} className={p.severity} data-testid="editor-problem">
              {p.line}:{p.column} {p.message}
            </li>
          ))}
        </ul>
      )}
      <div className="write-options">
        <label>
          Field manager{' '}
          <input value={fieldManager} onChange={(e) => setFieldManager(e.target.value)} data-testid="field-manager" size={18} />
        </label>
        <label>
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} data-testid="force" /> force (apply)
        </label>
        <label>
          <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} data-testid="dry-run" /> dry run
        </label>
        <label>
          fieldValidation{' '}
          <select value={fieldValidation} onChange={(e) => setFieldValidation(e.target.value as FieldValidation)} data-testid="field-validation">
            <option value="">server default (Warn)</option>
            <option value="Strict">Strict</option>
            <option value="Warn">Warn</option>
            <option value="Ignore">Ignore</option>
          </select>
        </label>
      </div>
      <div className="actions">
        <button type="button" className="primary" disabled={write.isPending} onClick={() => run('create')} data-testid="create-button">
          Create
        </button>
        <button type="button" disabled={write.isPending} onClick={() => run('replace')} data-testid="replace-button">
          Replace
        </button>
        <button type="button" disabled={write.isPending} onClick={() => run('apply')} data-testid="apply-button">
          Apply (server-side)
        </button>
        {write.isSuccess && (
          <span className="success" role="status" data-testid="write-result">
            {write.data.summary}
          </span>
        )}
      </div>
      {warnings.length > 0 && (
        <ul className="warnings" aria-label="Warnings" data-testid="write-warnings">
          {warnings.map((w, i) => (
            <li key={i} data-testid="write-warning">
              Warning: {w}
            </li>
          ))}
        </ul>
      )}
      {write.isError && <StatusError error={write.error} testId="write-error" />}
      {write.isError && applyConflict && (
        <button type="button" onClick={() => showPanel('ownership')} data-testid="resolve-conflicts">
          Resolve the conflicts in Ownership
        </button>
      )}
    </section>
  );
}

/**
 * One object, described as `kubectl describe` does (the first view for a
 * Pod) or as `kubectl get -o yaml` shows it (managedFields hidden unless
 * asked, as kubectl does), a Pod's containers' logs as `kubectl logs`
 * reads them (also opened from a container in Describe), with edit and delete. Edit copies it into the
 * editor: whole (with resourceVersion) for a replace, or as an apply
 * manifest without the fields the server sets.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { stringify } from 'yaml';
import { objectPath, queryKeys, useApiClient, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { describeWritten } from '../editor/manifest';
import { applyManifestOf, withoutManagedFields } from './objectYaml';
import { proxyPathOf } from './proxyLink';

const ObjectDescription = lazy(() => import('./describe/ObjectDescription'));
const PodLogs = lazy(() => import('./logs/PodLogs'));
// The terminal (xterm.js) loads with the view that needs it.
const PodExec = lazy(() => import('./exec/PodExec'));

type View = 'describe' | 'logs' | 'exec' | 'yaml';
const VIEWS: readonly [View, string][] = [
  ['describe', 'Describe'],
  ['logs', 'Logs'],
  ['exec', 'Exec'],
  ['yaml', 'YAML'],
];
/** Views only a Pod has. */
const POD_VIEWS: ReadonlySet<View> = new Set(['logs', 'exec']);

export function ObjectDetail({ kind, namespace, name }: { kind: ResourceKind; namespace: string | undefined; name: string }) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  const path = objectPath(kind, kind.namespaced ? namespace : undefined, name);
  const object = useQuery({ queryKey: queryKeys.object(path), queryFn: ({ signal }) => client.get<KubeObject>(path, { signal }) });
  const [showManaged, setShowManaged] = useState(false);
  // A learner debugging a Pod runs `kubectl describe pod` first; other kinds open as YAML.
  const isPod = kind.group === '' && kind.kind === 'Pod';
  const proxyPath = object.data ? proxyPathOf(kind, object.data) : undefined;
  const [view, setView] = useState<View>(isPod ? 'describe' : 'yaml');
  // The container the Logs view reads; undefined until one is picked, for kubectl's default.
  const [logsContainer, setLogsContainer] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const setDraft = useWorkbench((s) => s.setManifestDraft);
  const showPanel = useWorkbench((s) => s.showPanel);
  const selectObject = useWorkbench((s) => s.selectObject);
  const remove = useMutation({
    mutationFn: () => client.write('delete', path, undefined),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.lists() });
      void queryClient.removeQueries({ queryKey: queryKeys.object(path) });
    },
  });

  const showLogs = (container: string) => {
    setLogsContainer(container);
    setView('logs');
  };

  const edit = (text: string) => {
    setDraft(text);
    showPanel('editor');
  };

  return (
    <section className="panel object-detail" aria-labelledby="object-heading" data-testid="object-detail" data-name={name}>
      <div className="detail-head">
        <h2 id="object-heading">
          {kind.kind} <code>{namespace && kind.namespaced ? `${namespace}/${name}` : name}</code>
        </h2>
        <button type="button" onClick={() => selectObject(null)} aria-label="Close the object">
          ×
        </button>
      </div>
      {remove.isSuccess ? (
        <p className="success" role="status" data-testid="delete-result">
          {describeWritten(kind, name, 'delete')}
        </p>
      ) : (
        <>
          {object.error && <StatusError error={object.error} testId="object-error" />}
          {object.data && (
            <>
              <div className="actions">
                <button type="button" onClick={() => edit(stringify(withoutManagedFields(object.data)))} data-testid="edit-replace">
                  Edit (replace)
                </button>
                <button type="button" onClick={() => edit(stringify(applyManifestOf(object.data)))} data-testid="edit-apply">
                  Edit as apply manifest
                </button>
                <button type="button" onClick={() => showPanel('ownership')} data-testid="show-ownership">
                  Ownership
                </button>
                {proxyPath && (
                  <a href={proxyPath} target="_blank" rel="noopener" title="What the server in the pod answers, through the API server's proxy (as kubectl proxy serves it)" data-testid="open-proxy">
                    Open in a tab ↗
                  </a>
                )}
                {confirming ? (
                  <>
                    <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending} data-testid="delete-confirm" autoFocus>
                      Delete {kind.kind.toLowerCase()} {name}
                    </button>
                    <button type="button" onClick={() => setConfirming(false)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <button type="button" onClick={() => setConfirming(true)} data-testid="delete-button">
                    Delete…
                  </button>
                )}
              </div>
              <div className="view-switch" role="group" aria-label="View">
                {VIEWS.filter(([v]) => !POD_VIEWS.has(v) || isPod).map(([v, label]) => (
                  <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)} data-testid={`view-${v}`}>
                    {label}
                  </button>
                ))}
                {view === 'yaml' && (
                  <label>
                    <input type="checkbox" checked={showManaged} onChange={(e) => setShowManaged(e.target.checked)} /> managedFields
                  </label>
                )}
              </div>
              {view === 'describe' ? (
                <Suspense fallback={<p className="muted">Loading…</p>}>
                  <ObjectDescription kind={kind} namespace={namespace} name={name} onShowLogs={isPod ? showLogs : undefined} />
                </Suspense>
              ) : view === 'logs' && isPod ? (
                <Suspense fallback={<p className="muted">Loading…</p>}>
                  <PodLogs kind={kind} namespace={namespace ?? 'default'} name={name} container={logsContainer} onContainerChange={setLogsContainer} />
                </Suspense>
              ) : view === 'exec' && isPod ? (
                <Suspense fallback={<p className="muted">Loading…</p>}>
                  <PodExec kind={kind} namespace={namespace ?? 'default'} name={name} container={logsContainer} onContainerChange={setLogsContainer} />
                </Suspense>
              ) : (
                <pre className="yaml" tabIndex={0} aria-label="Object YAML" data-testid="object-yaml">
                  {stringify(showManaged ? object.data : withoutManagedFields(object.data))}
                </pre>
              )}
            </>
          )}
        </>
      )}
      {remove.isError && <StatusError error={remove.error} testId="delete-error" />}
    </section>
  );
}

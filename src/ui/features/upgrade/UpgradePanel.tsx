/**
 * The Upgrade check: manifests in, and per object whether its apiVersion is
 * removed (or deprecated) by the target release, what replaces it, the field
 * changes, and the converted manifest where the conversion is mechanical
 * (POST upgrade.kubesim.dev/v1alpha1/removedapichecks).
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useApiClient, type KubeObject } from '../../api';
import { StatusError } from '../../common';
import { buildCheck, convertedYaml, EXAMPLE_MANIFEST, REMOVED_API_CHECKS_PATH, verdict, type RemovedApiCheck } from './check';

export function UpgradePanel() {
  const client = useApiClient();
  const [manifests, setManifests] = useState(EXAMPLE_MANIFEST);
  const [target, setTarget] = useState('');
  const check = useMutation({
    mutationFn: async () => (await client.write<KubeObject & RemovedApiCheck>('create', REMOVED_API_CHECKS_PATH, buildCheck(manifests, target) as unknown as KubeObject)).object,
  });
  const status = check.data?.status;
  const converted = status ? convertedYaml(status.objects) : '';

  return (
    <section className="panel upgrade-panel" aria-labelledby="upgrade-heading" data-testid="upgrade-panel">
      <h2 id="upgrade-heading">Upgrade check</h2>
      <p className="muted">Finds apiVersions that Kubernetes removed or deprecated, and what to use instead.</p>
      <label htmlFor="upgrade-manifests">Manifests (YAML or JSON)</label>
      <textarea id="upgrade-manifests" value={manifests} onChange={(e) => setManifests(e.target.value)} rows={14} spellCheck={false} data-testid="upgrade-manifests" />
      <div className="write-options">
        <label>
          Target release{' '}
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="this server's" size={8} data-testid="upgrade-target" />
        </label>
        <button type="button" onClick={() => check.mutate()} disabled={check.isPending} data-testid="upgrade-run">
          Check
        </button>
      </div>
      <div aria-live="polite" data-testid="upgrade-result">
        {check.error && <StatusError error={check.error} testId="upgrade-error" />}
        {status && (
          <>
            {status.errors.map((e) => (
              <p key={e} className="error">
                {e}
              </p>
            ))}
            <table data-testid="upgrade-report">
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>Name</th>
                  <th>apiVersion</th>
                  <th>In {status.targetVersion}</th>
                  <th>Use instead</th>
                  <th>Changes</th>
                </tr>
              </thead>
              <tbody>
                {status.objects.map((o) => (
                  <tr key={o.index} className={o.removed ? 'removed' : undefined} data-testid="upgrade-row">
                    <td>{o.kind}</td>
                    <td>{o.namespace ? `${o.namespace}/` : ''}{o.name ?? ''}</td>
                    <td>{o.apiVersion}</td>
                    <td>{verdict(o)}</td>
                    <td>{o.replacement ?? (o.removedIn ? 'nothing' : '')}</td>
                    <td>
                      {(o.changes ?? []).length > 0 && (
                        <ul>
                          {o.changes!.map((c) => (
                            <li key={c}>{c}</li>
                          ))}
                        </ul>
                      )}
                      {o.conversionNote && <p className="muted">{o.conversionNote}</p>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {converted && (
              <>
                <h3>Converted</h3>
                <pre data-testid="upgrade-converted">{converted}</pre>
              </>
            )}
          </>
        )}
      </div>
    </section>
  );
}

/** The objects of the chosen kind, as `kubectl get` lists them. */
import { StatusError, formatAge } from '../../common';
import { resourceKey, type ResourceKind } from '../../api';
import { useWorkbench } from '../../store';
import { useResourceList } from './useResourceList';

export function ResourceTable({ kind, namespace }: { kind: ResourceKind | undefined; namespace: string | null }) {
  const labelSelector = useWorkbench((s) => s.labelSelector);
  const selected = useWorkbench((s) => s.selectedObject);
  const selectObject = useWorkbench((s) => s.selectObject);
  const { data, error, isPending } = useResourceList(kind, namespace, labelSelector);
  if (!kind) return <p className="muted">Choose a kind.</p>;
  const acrossNamespaces = kind.namespaced && namespace === null;
  const where = !kind.namespaced ? '' : acrossNamespaces ? ' in any namespace' : ` in namespace ${namespace}`;
  const now = new Date();

  return (
    <section className="resource-table" data-testid="resource-table" data-kind={kind.kind}>
      {error && <StatusError error={error} testId="list-error" />}
      {isPending && !error && <p className="muted">Loading…</p>}
      {data && (
        <>
          <p className="muted" data-testid="list-meta">
            {data.items.length} {kind.kind}
            {data.items.length === 1 ? '' : 's'}
            {where}
            {labelSelector && (
              <>
                {' '}
                matching <code>{labelSelector}</code>
              </>
            )}
            , listed at resourceVersion <code>{data.metadata.resourceVersion ?? '?'}</code>
          </p>
          {data.items.length > 0 && (
            <table>
              <thead>
                <tr>
                  {acrossNamespaces && <th>Namespace</th>}
                  <th>Name</th>
                  <th>Age</th>
                  <th>resourceVersion</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((item) => {
                  const meta = item.metadata ?? {};
                  const created = meta.creationTimestamp ?? undefined;
                  return (
                    <tr
                      key={meta.uid ?? `${meta.namespace}/${meta.name}`}
                      className={selected?.name === meta.name && selected?.namespace === meta.namespace ? 'selected' : ''}
                      data-testid="resource-row"
                      data-name={meta.name}
                      data-namespace={meta.namespace}
                    >
                      {acrossNamespaces && <td>{meta.namespace}</td>}
                      <td>
                        <button
                          type="button"
                          className="link"
                          onClick={() => selectObject({ kindKey: resourceKey(kind), namespace: meta.namespace, name: meta.name ?? '' })}
                          data-testid="open-object"
                        >
                          {meta.name}
                        </button>
                      </td>
                      <td title={created}>{formatAge(created, now)}</td>
                      <td>
                        <code>{meta.resourceVersion}</code>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

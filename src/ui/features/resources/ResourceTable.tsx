/** The objects of the chosen kind, as `kubectl get` lists them: the server's columns for the kind (`-o wide` adds the rest). */
import { useState } from 'react';
import { StatusError, formatAge } from '../../common';
import { resourceKey, type ResourceKind } from '../../api';
import { useWorkbench } from '../../store';
import { useResourceList } from './useResourceList';
import { rowKey, useServerTable, type TableColumn } from './useServerTable';

/** A cell as kubectl prints it: `<none>` for an empty one. */
const cellText = (value: unknown) => (value === null || value === undefined || value === '' ? '<none>' : String(value));

export function ResourceTable({ kind, namespace }: { kind: ResourceKind | undefined; namespace: string | null }) {
  const labelSelector = useWorkbench((s) => s.labelSelector);
  const selected = useWorkbench((s) => s.selectedObject);
  const selectObject = useWorkbench((s) => s.selectObject);
  const { data, error, isPending } = useResourceList(kind, namespace, labelSelector);
  const [wide, setWide] = useState(false);
  const listNamespace = kind?.namespaced && namespace !== null ? namespace : undefined;
  const { data: table } = useServerTable(kind, listNamespace, labelSelector, data?.metadata.resourceVersion);
  // The kind's own columns: Name is the link column and Age is kept live here, so the server's two are left out.
  const columns: { column: TableColumn; index: number }[] = (table?.columnDefinitions ?? [])
    .map((column, index) => ({ column, index }))
    .filter(({ column }) => column.name !== 'Name' && column.name !== 'Age' && (wide || column.priority === 0));
  const cells = new Map((table?.rows ?? []).map((row) => [rowKey(row.object?.metadata?.namespace, row.object?.metadata?.name), row.cells]));
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
            {table && table.columnDefinitions.some((c) => c.priority > 0) && (
              <label className="inline-toggle">
                <input type="checkbox" data-testid="list-wide" checked={wide} onChange={(e) => setWide(e.target.checked)} /> <code>-o wide</code>
              </label>
            )}
          </p>
          {data.items.length > 0 && (
            <table>
              <thead>
                <tr>
                  {acrossNamespaces && <th>Namespace</th>}
                  <th>Name</th>
                  {columns.map(({ column }) => (
                    <th key={column.name} title={column.description} data-testid="list-column">
                      {column.name}
                    </th>
                  ))}
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
                      {columns.map(({ column, index }) => {
                        // A row the watch brought before the table was fetched again has no cells yet.
                        const row = cells.get(rowKey(meta.namespace, meta.name));
                        return (
                          <td key={column.name} data-column={column.name}>
                            {row ? cellText(row[index]) : ''}
                          </td>
                        );
                      })}
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

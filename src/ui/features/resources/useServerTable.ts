/**
 * The server's Table for a listed collection (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, the request
 * behind `kubectl get`): the kind's own columns (a Pod's Ready, Status, Restarts; a Job's Completions...) printed by the
 * API server. Fetched again whenever the watched list moves to a new resourceVersion, so the columns follow the watch.
 */
import { useQuery } from '@tanstack/react-query';
import { collectionPath, queryKeys, useApiClient, type ResourceKind } from '../../api';

export interface TableColumn {
  name: string;
  type: string;
  priority: number;
  description?: string;
}

export interface TableRow {
  cells: unknown[];
  object?: { metadata?: { name?: string; namespace?: string } };
}

export interface ServerTable {
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';

/** namespace/name of a row's object, as the list's items are keyed. */
export const rowKey = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`;

export function useServerTable(kind: ResourceKind | undefined, namespace: string | undefined, labelSelector: string, resourceVersion: string | undefined) {
  const client = useApiClient();
  const query = new URLSearchParams({ includeObject: 'Metadata' });
  if (labelSelector) query.set('labelSelector', labelSelector);
  return useQuery({
    queryKey: kind ? queryKeys.table(kind, namespace, labelSelector, resourceVersion ?? '') : queryKeys.all,
    queryFn: async ({ signal }) => {
      const table = await client.get<ServerTable & { kind?: string }>(`${collectionPath(kind!, namespace)}?${query}`, { signal, accept: TABLE_ACCEPT });
      // A server without Table support answers the list itself: no columns then.
      return table.kind === 'Table' ? table : null;
    },
    enabled: kind !== undefined && resourceVersion !== undefined && kind.verbs.includes('list'),
    // The previous columns stay on screen while the next resourceVersion's are fetched.
    placeholderData: (previous) => previous,
    staleTime: Infinity,
  });
}

/**
 * A react-query list kept current by a watch: the query lists, then a watch
 * from the list's resourceVersion folds events into the cached list with
 * setQueryData. While the list refetches the watch stops, and it restarts
 * from the fresh list, so events from an older stream never land on a newer
 * list. A 410 Expired watch relists. A field selector narrows it as
 * kubectl does (`metadata.name=web` for one object, `involvedObject.uid=...`
 * for an object's events).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useApiClient } from './context';
import { queryKeys } from './queryKeys';
import { collectionPath, type ResourceKind } from './resources';
import type { KubeList, KubeObject } from './types';
import { applyWatchEvent, watchCollection, WatchError } from './watch';

const RETRY_DELAY_MS = 2_000;

export function useWatchedList<T extends KubeObject = KubeObject>(kind: ResourceKind | undefined, namespace: string | undefined, labelSelector = '', fieldSelector = '') {
  const client = useApiClient();
  const queryClient = useQueryClient();
  const selector = labelSelector.trim();
  const fields = fieldSelector.trim();
  const key = kind ? queryKeys.list(kind, namespace, selector, fields) : queryKeys.lists();
  const path = kind ? collectionPath(kind, namespace) : '';
  const params = new URLSearchParams();
  if (selector) params.set('labelSelector', selector);
  if (fields) params.set('fieldSelector', fields);
  const listQuery = params.toString() ? `?${params}` : '';
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => client.get<KubeList<T>>(path + listQuery, { signal }),
    enabled: kind !== undefined,
    staleTime: kind?.verbs.includes('watch') ? Infinity : 0,
  });
  const watchable = kind?.verbs.includes('watch') === true && query.isSuccess && !query.isFetching;
  const keyString = JSON.stringify(key);

  useEffect(() => {
    if (!watchable) return;
    const stop = new AbortController();
    const listKey = JSON.parse(keyString) as readonly unknown[];
    void (async () => {
      while (!stop.signal.aborted) {
        const resourceVersion = queryClient.getQueryData<KubeList<T>>(listKey)?.metadata.resourceVersion;
        if (!resourceVersion) return;
        try {
          await watchCollection(
            client,
            path,
            resourceVersion,
            selector,
            (event) => queryClient.setQueryData<KubeList<T>>(listKey, (list) => list && applyWatchEvent(list, event)),
            stop.signal,
            fields,
          );
          // The server closed the stream (its watch timeout): watch again from the newest resourceVersion.
        } catch (error) {
          if (stop.signal.aborted) return;
          if (error instanceof WatchError && error.code === 410) {
            // Too old to resume: relist; this effect restarts once the fresh list is in.
            void queryClient.invalidateQueries({ queryKey: listKey, exact: true });
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
    })();
    return () => stop.abort();
  }, [watchable, keyString, path, selector, fields, client, queryClient]);

  return query;
}

import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { collectionPath, readWatchEvents, statusFrom, useApiClient, type KubeList, type ResourceKind } from '../../api';
import { EMPTY_SESSION, sessionReducer, watchQuery, type WatchParams } from './session';

export type WatchState = 'closed' | 'open' | 'ended';

/**
 * One watch stream whose events queue up in a session; the caller steps
 * them. A failed request or an ERROR event ends the stream with its Status;
 * relist lists the collection and watches again from the list's
 * resourceVersion, as an informer does after 410 Gone.
 */
export function useSteppedWatch() {
  const client = useApiClient();
  const [session, dispatch] = useReducer(sessionReducer, EMPTY_SESSION);
  const [state, setState] = useState<WatchState>('closed');
  const [request, setRequest] = useState<string>('');
  const stop = useRef<AbortController | null>(null);

  const close = useCallback(() => {
    stop.current?.abort();
    stop.current = null;
    setState((s) => (s === 'open' ? 'closed' : s));
  }, []);

  const start = useCallback(
    (kind: ResourceKind, namespace: string | undefined, params: WatchParams) => {
      stop.current?.abort();
      const controller = new AbortController();
      stop.current = controller;
      const url = `${collectionPath(kind, namespace)}?${watchQuery(params)}`;
      setRequest(url);
      setState('open');
      void (async () => {
        try {
          const response = await client.fetch(url, { headers: { Accept: 'application/json' }, signal: controller.signal });
          if (!response.ok) {
            dispatch({ type: 'failed', status: await statusFrom(response) });
            setState('ended');
            return;
          }
          if (!response.body) return;
          for await (const event of readWatchEvents(response.body)) {
            if (controller.signal.aborted) return;
            if (event.type === 'ERROR') {
              dispatch({ type: 'failed', status: event.object });
              setState('ended');
              return;
            }
            dispatch({ type: 'received', event });
          }
          if (!controller.signal.aborted) setState('ended');
        } catch (error) {
          if (controller.signal.aborted) return;
          dispatch({
            type: 'failed',
            status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 0, reason: 'ServiceUnavailable', message: error instanceof Error ? error.message : String(error) },
          });
          setState('ended');
        }
      })();
    },
    [client],
  );

  const open = useCallback(
    (kind: ResourceKind, namespace: string | undefined, params: WatchParams) => {
      dispatch({ type: 'reset' });
      start(kind, namespace, params);
    },
    [start],
  );

  const relist = useCallback(
    async (kind: ResourceKind, namespace: string | undefined, params: WatchParams) => {
      const query = new URLSearchParams();
      if (params.labelSelector.trim()) query.set('labelSelector', params.labelSelector.trim());
      if (params.fieldSelector.trim()) query.set('fieldSelector', params.fieldSelector.trim());
      const list = await client.get<KubeList>(`${collectionPath(kind, namespace)}${query.size ? `?${query}` : ''}`);
      const resourceVersion = list.metadata.resourceVersion ?? '';
      dispatch({ type: 'relisted', items: list.items, resourceVersion });
      start(kind, namespace, { ...params, resourceVersion, sendInitialEvents: false });
    },
    [client, start],
  );

  useEffect(() => () => stop.current?.abort(), []);

  return { session, state, request, open, close, relist, step: () => dispatch({ type: 'step' }) };
}

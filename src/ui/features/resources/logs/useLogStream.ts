/**
 * One pods/log request at a time: a new request (and an empty log) whenever
 * its key changes, the previous fetch aborted; the fetch is aborted too when
 * the view closes, which ends a follow stream on the server.
 */
import { useEffect, useState } from 'react';
import { useApiClient } from '../../../api';
import { appendLogText, EMPTY_LOG, endLogText, type LogText } from './logText';
import { readPodLog } from './logStream';

/** connecting: asked, no answer yet; open: the body is arriving; ended: it is complete; failed: the server refused. */
export type LogStreamPhase = 'idle' | 'connecting' | 'open' | 'ended' | 'failed';

export interface LogStream {
  phase: LogStreamPhase;
  log: LogText;
  error?: unknown;
}

/** Reads path's log; `key` names the request (path and anything else that should ask again, such as the container's run). */
export function useLogStream(path: string | undefined, key: string): LogStream {
  const client = useApiClient();
  const [stream, setStream] = useState<LogStream & { key?: string }>({ phase: 'idle', log: EMPTY_LOG });

  useEffect(() => {
    if (path === undefined) {
      setStream({ phase: 'idle', log: EMPTY_LOG, key });
      return;
    }
    const controller = new AbortController();
    setStream({ phase: 'connecting', log: EMPTY_LOG, key });
    readPodLog(client, path, controller.signal, {
      onOpen: () => setStream((s) => ({ ...s, phase: 'open' })),
      onText: (text) => setStream((s) => ({ ...s, phase: 'open', log: appendLogText(s.log, text) })),
    })
      .then(() => {
        if (!controller.signal.aborted) setStream((s) => ({ ...s, phase: 'ended', log: endLogText(s.log) }));
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setStream((s) => ({ ...s, phase: 'failed', error }));
      });
    return () => controller.abort();
    // key stands for path and the reasons to ask again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key]);

  // Until the effect asks afresh, the last request's log is not shown under options it was not read with.
  if (stream.key !== key) return { phase: path === undefined ? 'idle' : 'connecting', log: EMPTY_LOG };
  return stream;
}

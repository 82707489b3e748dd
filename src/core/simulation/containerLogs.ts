/**
 * A simulated kubelet's /containerLogs answer: which run of the container
 * the request means (validateContainerLogStatus, with its errors for a
 * container that has not started), then that run's log from the container
 * runtime with the kubelet's options applied as its log reader does: lines
 * since a time, the last N lines, an RFC 3339 timestamp before each line,
 * at most N bytes, and `follow` streaming what the process writes as the
 * server clock reaches it, until the container ends.
 */
import { isObject, type KubeObject } from '../api/types';
import { newBadRequest } from '../errors';
import type { Clock } from '../util/clock';
import type { PodLogOptions } from '../validation/core/binding';
import type { CoreObjectGetter } from '../registry/core/podLocation';
import type { ContainerRuntime, LogEntry } from './containerRuntime';
import { podContainerStatus } from './containerView';
import { encodeText } from './byteText';

type Obj = Record<string, unknown>;

/** One run of a container: its runtime id, and the times it ran between (until: still running). */
interface ContainerRun {
  containerID: string;
  startedAt: string;
  finishedAt?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const runOf = (terminated: Obj): ContainerRun => ({ containerID: str(terminated['containerID']), startedAt: str(terminated['startedAt']), finishedAt: str(terminated['finishedAt']) });

/** kubelet validateContainerLogStatus: the run whose log is read, or the kubelet's 400 with why there is none. */
export function containerRunForLog(pod: KubeObject, container: string, previous: boolean): ContainerRun {
  const podName = pod.metadata.name ?? '';
  const q = JSON.stringify;
  const status = podContainerStatus(pod, container);
  if (!status) throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is not available`);
  const obj = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);
  const state = obj(status['state']) ?? {};
  const last = obj(obj(status['lastState'])?.['terminated']);
  const [waiting, running, terminated] = [obj(state['waiting']), obj(state['running']), obj(state['terminated'])];
  if (previous) {
    if (!last || !str(last['containerID'])) throw newBadRequest(`previous terminated container ${q(container)} in pod ${q(podName)} not found`);
    return runOf(last);
  }
  if (running) return { containerID: str(status['containerID']), startedAt: str(running['startedAt']) };
  if (terminated) {
    if (str(terminated['containerID'])) return runOf(terminated);
    // The next run did not start: the last one's log.
    if (last && str(last['containerID'])) return runOf(last);
    throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is terminated`);
  }
  if (last) {
    if (!str(last['containerID'])) throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is terminated`);
    return runOf(last);
  }
  if (waiting) {
    const reason = str(waiting['reason']);
    if (reason === 'ErrImagePull') throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`);
    throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`);
  }
  throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`);
}

/** Go's time.RFC3339Nano: the fraction's trailing zeros dropped. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** Applies since, tail and timestamps to the lines (limitBytes is cut from the bytes they make). */
function select(entries: LogEntry[], opts: PodLogOptions, now: number): LogEntry[] {
  const since = opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : opts.sinceTime !== undefined ? Date.parse(opts.sinceTime) : undefined;
  let out = since === undefined ? entries : entries.filter((e) => e.at >= since);
  if (opts.tailLines !== undefined) out = opts.tailLines === 0 ? [] : out.slice(-opts.tailLines);
  return out;
}

const render = (e: LogEntry, timestamps: boolean | undefined) => (timestamps ? `${rfc3339Nano(e.at)} ${e.line}` : e.line);

/** Cuts what is sent to the byte limit; undefined once the limit is reached. */
function limiter(limitBytes: number | undefined): (text: string) => Uint8Array<ArrayBuffer> | undefined {
  let left = limitBytes ?? Infinity;
  return (text) => {
    if (left <= 0) return undefined;
    // The log's bytes as the process wrote them (byteText: a byte that is not UTF-8 is itself again).
    let bytes = encodeText(text) as Uint8Array<ArrayBuffer>;
    if (bytes.length > left) bytes = bytes.slice(0, left);
    left -= bytes.length;
    return bytes;
  };
}

export interface ContainerLogRequest {
  runtime: ContainerRuntime;
  clock: Clock;
  get: CoreObjectGetter;
  pod: KubeObject;
  /** The container (validated and defaulted). */
  container: string;
  opts: PodLogOptions;
  signal?: AbortSignal;
}

/** The kubelet's answer to GET /containerLogs/<ns>/<pod>/<container>. */
export async function serveContainerLog({ runtime, clock, get, pod, container, opts, signal }: ContainerLogRequest): Promise<Response> {
  const run = containerRunForLog(pod, container, opts.previous === true);
  const now = clock.now().getTime();
  const until = run.finishedAt ? Math.min(now, Date.parse(run.finishedAt)) : now;
  const log = await runtime.log(run.containerID, pod, container, run.startedAt, until);
  const headers = { 'content-type': 'text/plain' };
  const take = limiter(opts.limitBytes);
  const first = select(log?.entries ?? [], opts, now);
  const text = first.map((e) => render(e, opts.timestamps)).join('');
  if (!opts.follow || !log || log.ended || run.finishedAt) return new Response(take(text), { status: 200, headers });

  // Follow: what the process writes from here, as the clock reaches it, until the run ends or the pod changes.
  let lastSeq = log.entries.length ? log.entries[log.entries.length - 1]!.seq : -1;
  let next = log.next;
  const stopped = new AbortController();
  signal?.addEventListener('abort', () => stopped.abort(), { once: true });
  const stillRunning = async (): Promise<boolean> => {
    const current = await get('pods', pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    const status = current && current.metadata.uid === pod.metadata.uid ? podContainerStatus(current, container) : undefined;
    return !!status && str(status['containerID']) === run.containerID && isObject(isObject(status['state']) ? status['state']['running'] : undefined);
  };
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = take(text);
        if (bytes?.length) controller.enqueue(bytes);
      },
      async pull(controller) {
        for (;;) {
          // Wake for the next line, or within a second to notice the container stopping.
          const at = clock.now().getTime();
          const wait = Math.max(0, Math.min(next ?? Infinity, at + 1000) - at);
          if (wait > 0) await clock.sleep(wait, stopped.signal).catch(() => undefined);
          if (stopped.signal.aborted) return controller.close();
          const nowMs = clock.now().getTime();
          const current = await runtime.log(run.containerID, pod, container, run.startedAt, nowMs);
          const fresh = (current?.entries ?? []).filter((e) => e.seq > lastSeq);
          next = current?.next;
          let sent = false;
          for (const e of fresh) {
            lastSeq = e.seq;
            const bytes = take(render(e, opts.timestamps));
            if (!bytes) {
              stopped.abort();
              return controller.close();
            }
            controller.enqueue(bytes);
            sent = true;
          }
          if (!current || current.ended || !(await stillRunning())) {
            stopped.abort();
            return controller.close();
          }
          if (sent) return;
        }
      },
      cancel() {
        stopped.abort();
      },
    }),
    { status: 200, headers },
  );
}

/**
 * The kubelet's prober for simulated containers: an httpGet or tcpSocket
 * probe is run against the socket the pod's processes listen on
 * (clusterNetwork.ts), an exec probe runs its command in the container
 * (the runtime's ExecSync: exit 0 passes, its output is the failure), at
 * the probe's period after its initial delay, with the prober's results and
 * messages (`HTTP probe failed with statuscode: 404`, `dial tcp
 * <ip>:<port>: connect: connection refused`, `command "x" timed out`). A
 * container whose process kubesim cannot see (an image it does not know,
 * run with no command) passes, as its image presumably serves; so does a
 * grpc probe. ContainerProbes is the workers of one run of a container:
 * startup, then liveness and readiness, with their thresholds.
 */
import { isObject, type KubeObject } from '../api/types';
import { podHostIP, type ClusterNetwork } from './clusterNetwork';
import { parseHttpResponse } from './httpMessage';
import { isOpaqueContainer } from './image';
import type { ExecSyncResult } from './containerRuntime';

type Obj = Record<string, unknown>;

/** A probe's outcome: success, or a failure with its output (`errored`: the probe could not run, as for a command runc cannot start). */
export type ProbeResult = { ok: true } | { ok: false; message: string; errored?: boolean };

/** A probe's port: a number, or the name of one of the container's ports. */
function probePort(container: Obj, port: unknown): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  const named = (Array.isArray(container['ports']) ? (container['ports'] as Obj[]) : []).find((p) => p['name'] === port);
  return typeof named?.['containerPort'] === 'number' ? named['containerPort'] : undefined;
}

/** Runs the probe once at `at` against the sockets of the pod at podIP. */
export function runProbe(network: ClusterNetwork | undefined, pod: KubeObject, podIP: string, container: Obj, probe: Obj, at: number): ProbeResult {
  if (!network || isOpaqueContainer(container)) return { ok: true };
  const uid = pod.metadata.uid ?? '';
  if (isObject(probe['tcpSocket'])) {
    const port = probePort(container, probe['tcpSocket']['port']);
    if (port === undefined) return { ok: false, message: `unknown port ${JSON.stringify(probe['tcpSocket']['port'])}` };
    return network.listenerAt(uid, port, at) ? { ok: true } : { ok: false, message: `dial tcp ${podIP}:${port}: connect: connection refused` };
  }
  if (isObject(probe['httpGet'])) {
    const get = probe['httpGet'];
    const port = probePort(container, get['port']);
    const scheme = String(get['scheme'] ?? 'HTTP').toLowerCase();
    const path = typeof get['path'] === 'string' && get['path'] ? get['path'] : '/';
    const host = typeof get['host'] === 'string' && get['host'] ? get['host'] : podIP;
    const url = `${scheme}://${host}:${port ?? get['port']}${path}`;
    if (port === undefined) return { ok: false, message: `unknown port ${JSON.stringify(get['port'])}` };
    const listener = network.listenerAt(uid, port, at);
    if (!listener) return { ok: false, message: `Get "${url}": dial tcp ${host}:${port}: connect: connection refused` };
    if (scheme === 'https') return { ok: false, message: `Get "${url}": http: server gave HTTP response to HTTPS client` };
    const headers = (Array.isArray(get['httpHeaders']) ? (get['httpHeaders'] as Obj[]) : []).map((h) => `${String(h['name'])}: ${String(h['value'])}\r\n`).join('');
    const answer = listener.respond(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUser-Agent: kube-probe/1.32\r\nAccept: */*\r\n${headers}Connection: close\r\n\r\n`, at, podHostIP(pod));
    const code = parseHttpResponse(answer)?.status ?? 0;
    if (!code) return { ok: false, message: `Get "${url}": EOF` };
    // 2xx and 3xx are success (a redirect elsewhere is not followed: a warning, still success).
    return code >= 200 && code < 400 ? { ok: true } : { ok: false, message: `HTTP probe failed with statuscode: ${code}` };
  }
  return { ok: true };
}

/** The probe's initial delay in ms, from the container's start. */
export const initialDelayMs = (probe: Obj): number => Math.max(0, Number(probe['initialDelaySeconds'] ?? 0)) * 1000;

/** The period of the probe in ms (its next run is lastProbeAt + this). */
export const probePeriodMs = (probe: Obj): number => Math.max(1, Number(probe['periodSeconds'] ?? 10)) * 1000;

/** The probes of a container, as the kubelet's prober workers name them in events. */
export type ProbeKind = 'Startup' | 'Liveness' | 'Readiness';

/** The exec prober's reading of the runtime's ExecSync: exit 0 passes, else the command's output is the failure. */
export function execProbeResult(r: ExecSyncResult, argv: readonly string[], execID: string): ProbeResult {
  if ('timedOut' in r) return { ok: false, message: `command ${goQuote(argv.join(' '))} timed out` };
  if ('error' in r) return { ok: false, errored: true, message: `rpc error: code = Unknown desc = failed to exec in container: failed to start exec ${goQuote(execID)}: ${r.error}` };
  return r.exitCode === 0 ? { ok: true } : { ok: false, message: r.output };
}

const goQuote = (s: string) => JSON.stringify(s);

/** The probe's timeout in ms (timeoutSeconds, 1 by default). */
export const probeTimeoutMs = (probe: Obj): number => Math.max(1, Number(probe['timeoutSeconds'] ?? 1)) * 1000;

/** One prober worker's state over a run of the container: when it runs next and its run of equal results. */
interface Worker {
  probe: Obj;
  next: number;
  /** What it reports (readiness and startup start failing, liveness passing). */
  result: boolean;
  /** The last result and how many times in a row. */
  last?: boolean;
  run: number;
}

/** What the probes found by now. */
export interface ProbeFindings {
  /** The startup probe passed (or there is none): `started`, and the others run. */
  started: boolean;
  ready: boolean;
  /** A probe failed past its threshold at that time: the container is killed. */
  kill?: { kind: 'Startup' | 'Liveness'; at: number; probe: Obj };
  /** The next probe's time, when one is due. */
  next?: number;
}

/** The failures to report, each once: kind, time, result. */
export type ProbeEvent = { kind: ProbeKind; at: number; result: Extract<ProbeResult, { ok: false }> };

const thresholdDefaults = { failureThreshold: 3, successThreshold: 1 };
const threshold = (probe: Obj, key: keyof typeof thresholdDefaults) => Math.max(1, Number(probe[key] ?? thresholdDefaults[key]));

/**
 * The kubelet's prober workers for one run of a container: a startup probe
 * first (the others wait until it passes; past its failureThreshold the
 * container is killed), then liveness (killed past its failureThreshold)
 * and readiness (ready after successThreshold passes, unready after
 * failureThreshold failures), each at its initial delay from the
 * container's start and then each period.
 */
export class ContainerProbes {
  private readonly startup?: Worker;
  private readonly liveness?: Worker;
  private readonly readiness?: Worker;
  private killed?: ProbeFindings['kill'];

  constructor(container: Obj, readonly startedAt: number) {
    const worker = (key: string, result: boolean): Worker | undefined => {
      const probe = isObject(container[key]) ? container[key] : undefined;
      return probe && { probe, next: startedAt + initialDelayMs(probe), result, run: 0 };
    };
    this.startup = worker('startupProbe', false);
    this.liveness = worker('livenessProbe', true);
    this.readiness = worker('readinessProbe', false);
  }

  private get started(): boolean {
    return !this.startup || this.startup.result;
  }

  /**
   * Runs every probe due by `now` in time order (each at its own time),
   * reporting failures to `failed`; stops at a kill.
   */
  async advance(now: number, probe: (kind: ProbeKind, probe: Obj, at: number) => Promise<ProbeResult>, failed: (e: ProbeEvent) => void): Promise<ProbeFindings> {
    for (let guard = 0; !this.killed && guard < 10_000; guard++) {
      const due = this.due();
      if (!due || due.worker.next > now) break;
      const { kind, worker } = due;
      const at = worker.next;
      worker.next = at + probePeriodMs(worker.probe);
      const result = await probe(kind, worker.probe, at);
      // A probe that could not run is thrown away (the worker's `Prober error, throw away the result`): its event
      // only, no count toward either threshold, so an exec of a missing command never kills the container.
      if (!result.ok && result.errored) {
        failed({ kind, at, result });
        continue;
      }
      worker.run = worker.last === result.ok ? worker.run + 1 : 1;
      worker.last = result.ok;
      if (!result.ok) failed({ kind, at, result });
      if (worker.run >= threshold(worker.probe, result.ok ? 'successThreshold' : 'failureThreshold')) worker.result = result.ok;
      if (kind !== 'Readiness' && !worker.result && !result.ok && worker.run >= threshold(worker.probe, 'failureThreshold')) this.killed = { kind, at, probe: worker.probe };
      // The startup probe is done once it passed: the others start from their next tick.
      if (kind === 'Startup' && worker.result) {
        for (const w of [this.liveness, this.readiness]) if (w && w.next <= at) w.next += (Math.floor((at - w.next) / probePeriodMs(w.probe)) + 1) * probePeriodMs(w.probe);
      }
    }
    const next = this.killed ? undefined : this.due()?.worker.next;
    return { started: this.started, ready: this.started && (this.readiness ? this.readiness.result : true), ...(this.killed ? { kill: this.killed } : {}), ...(next !== undefined ? { next } : {}) };
  }

  /** The next worker to run: the startup probe until it passes, then liveness and readiness. */
  private due(): { kind: ProbeKind; worker: Worker } | undefined {
    if (this.startup && !this.startup.result) return { kind: 'Startup', worker: this.startup };
    const live = this.liveness && { kind: 'Liveness' as const, worker: this.liveness };
    const ready = this.readiness && { kind: 'Readiness' as const, worker: this.readiness };
    if (live && ready) return ready.worker.next < live.worker.next ? ready : live;
    return live ?? ready;
  }
}

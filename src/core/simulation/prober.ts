/**
 * The kubelet's readiness prober for simulated containers: an httpGet or
 * tcpSocket probe is run against the socket the pod's processes listen on
 * (clusterNetwork.ts), at the probe's period after its initial delay, with
 * the prober's results and messages (`HTTP probe failed with statuscode:
 * 404`, `dial tcp <ip>:<port>: connect: connection refused`). A container
 * whose process kubesim cannot see (an image it does not know, run with no
 * command) passes, as its image presumably serves; so does an exec or grpc
 * probe, whose checks need what the container's files and servers do.
 */
import { isObject, type KubeObject } from '../api/types';
import type { ClusterNetwork } from './clusterNetwork';
import { parseHttpResponse } from './httpMessage';
import { isOpaqueContainer } from './image';

type Obj = Record<string, unknown>;

export type ProbeResult = { ok: true } | { ok: false; message: string };

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
    const answer = listener.respond(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUser-Agent: kube-probe/1.32\r\nAccept: */*\r\n${headers}Connection: close\r\n\r\n`, at);
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

/** When the probe last ran by `now` (its initial delay, then each period), or undefined before its first run. */
export function lastProbeAt(probe: Obj, startedAt: number, now: number): number | undefined {
  const first = startedAt + initialDelayMs(probe);
  if (now < first) return undefined;
  const period = probePeriodMs(probe);
  return first + Math.floor((now - first) / period) * period;
}

/**
 * busybox ping over the simulated cluster network: ICMP echo reaches what
 * has an address on the pod network — a pod's IP while its sandbox lives
 * (ready or not, whatever its containers listen on), a node's IP, the
 * container's own loopback — and nothing else. A Service's ClusterIP is
 * only a rule kube-proxy (iptables mode) applies to TCP and UDP ports: no
 * interface holds it, so a ping to it is never answered, the classic
 * surprise `kubectl exec pod -- ping my-service` teaches.
 */
import { podHostIP, type PodNetwork } from './clusterNetwork';
import { networkOf, resolve } from './networkTools';
import { isIPv4 } from './clusterDns';
import { policySource } from './kubeProxy';
import { policyAllows } from './networkPolicy';
import type { Run, ToolContext } from './containerTools';
import type { KubeObject } from '../api/types';

/** How long busybox waits for any reply once its count is sent, when none came (-W's default, MAXWAIT). */
const maxWaitMs = 10_000;

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);

/** Where an echo to ip is answered from, seen from the pod: the same node's bridge, another node, or nowhere (no route, or dropped by a NetworkPolicy). */
function route(net: PodNetwork, ip: string): 'local' | 'node' | 'remote' | undefined {
  if (ip.startsWith('127.')) return 'local';
  const self = net.cluster.podByUID(net.podUID);
  const selfIPs = self ? ((field(self, 'status', 'podIPs') as { ip?: string }[] | undefined) ?? []).map((p) => p.ip) : [];
  if (ip === net.podIP || ip === field(self, 'status', 'podIP') || selfIPs.includes(ip)) return 'local';
  const target: KubeObject | undefined = net.cluster.podByIP(ip);
  // NetworkPolicies drop echoes too, unless a rule allows every protocol.
  if (!policyAllows(net.cluster, policySource(net), { ip, port: 0, protocol: 'ICMP', ...(target ? { pod: target } : {}) })) return undefined;
  if (target) return podHostIP(target) === podHostIP(self) ? 'node' : 'remote';
  if (net.cluster.isNodeIP(ip)) return podHostIP(self) === ip ? 'node' : 'remote';
  return undefined;
}

/** A round trip in ms, steady per target and sequence (a bridge hop, or a hop between nodes). */
function rttMs(where: 'local' | 'node' | 'remote', seq: number): number {
  const base = where === 'local' ? 0.03 : where === 'node' ? 0.06 : 0.4;
  return base + ((seq * 37) % 23) / 1000;
}

const ms3 = (n: number) => n.toFixed(3);

interface PingOptions {
  count?: number;
  size: number;
  quiet: boolean;
  waitMs: number;
  deadlineMs?: number;
  host?: string;
}

function parse(args: string[]): PingOptions | { error: string } {
  const o: PingOptions = { size: 56, quiet: false, waitMs: maxWaitMs };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') {
      if (o.host !== undefined) return { error: 'usage' };
      o.host = a;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const f = a[j]!;
      if (f === 'q') o.quiet = true;
      else if (f === '4') continue;
      else if ('cswWi'.includes(f)) {
        const v = a.slice(j + 1) || args[++i];
        const n = Number(v);
        if (v === undefined || !Number.isFinite(n) || n < 0) return { error: `invalid number '${v ?? ''}'` };
        if (f === 'c') o.count = Math.floor(n);
        else if (f === 's') o.size = Math.floor(n);
        else if (f === 'W') o.waitMs = n * 1000;
        else if (f === 'w') o.deadlineMs = n * 1000;
        break;
      } else return { error: `unrecognized option: ${f}` };
    }
  }
  return o;
}

export function* ping(args: string[], ctx: ToolContext): Run<number> {
  const o = parse(args);
  if ('error' in o || o.host === undefined) {
    ctx.err(`ping: ${'error' in o && o.error !== 'usage' ? o.error : 'usage: ping [OPTIONS] HOST'}\n`);
    return 1;
  }
  yield { kind: 'observe' };
  const net = networkOf(ctx);
  const ip = isIPv4(o.host) ? o.host : yield* resolve(ctx, o.host);
  if (!ip) {
    ctx.err(`ping: bad address '${o.host}'\n`);
    return 1;
  }
  ctx.out(`PING ${o.host} (${ip}): ${o.size} data bytes\n`);
  const started = ctx.now();
  const rtts: number[] = [];
  let sent = 0;
  const over = () => o.deadlineMs !== undefined && ctx.now() - started >= o.deadlineMs;
  for (;;) {
    yield { kind: 'observe' };
    const where = route(net, ip);
    const seq = sent++;
    if (where) {
      const rtt = rttMs(where, seq);
      rtts.push(rtt);
      if (!o.quiet) ctx.out(`${o.size + 8} bytes from ${ip}: seq=${seq} ttl=${where === 'remote' ? 63 : 64} time=${ms3(rtt)} ms\n`);
    }
    // All answers in: it ends at once; else the next echo a second later.
    if (o.count !== undefined && rtts.length >= o.count) break;
    if (o.count !== undefined && sent >= o.count) {
      // The last echo is waited for: two round trips when any came back, else -W.
      yield { kind: 'sleep', ms: rtts.length ? 1000 : o.waitMs };
      break;
    }
    yield { kind: 'sleep', ms: 1000 };
    if (over()) break;
  }
  const lost = sent ? Math.floor(((sent - rtts.length) * 100) / sent) : 0;
  ctx.out(`\n--- ${o.host} ping statistics ---\n${sent} packets transmitted, ${rtts.length} packets received, ${lost}% packet loss\n`);
  if (rtts.length) {
    const avg = rtts.reduce((a, b) => a + b, 0) / rtts.length;
    ctx.out(`round-trip min/avg/max = ${ms3(Math.min(...rtts))}/${ms3(avg)}/${ms3(Math.max(...rtts))} ms\n`);
  }
  return rtts.length ? 0 : 1;
}

/**
 * The load generators of Kubernetes' resource tasks ("Assign Memory
 * Resources to Containers and Pods", "Assign CPU Resources..."): `stress`
 * (polinux/stress: `--vm 1 --vm-bytes 150M --vm-hang 1`, `--cpu 2`) and
 * vish/stress (`-cpus 2`, `-mem-total 150Mi`). Each says what it uses
 * (`demand`, which the simulated kubelet's stats and `kubectl top` report,
 * cpu within the limit as CFS throttles it), and one that allocates past
 * its container's memory limit is killed by the OOM killer at its start
 * (137, OOMKilled), so the pod restarts into CrashLoopBackOff as on a node.
 */
import { parseQuantity } from '../api/quantity';
import { usageUnits } from './containerResources';
import { klogLine } from './containerTools';
import type { ImageProgram, ImageProgramRun, ProgramDemand } from './image';

const nanoPerCore = 1_000_000_000n;
/** What the program itself holds besides what it allocates. */
const baseMemoryBytes = 1n << 20n;

interface StressArgs {
  cpu: number;
  io: number;
  vm: number;
  hdd: number;
  vmBytes: bigint;
  vmHang: boolean;
  timeoutS?: number;
}

/** stress's byte counts: a number with an optional b, k, m or g (powers of 1024, either case). */
function stressBytes(text: string): bigint | undefined {
  const m = /^(\d+)([bkmgBKMG]?)$/.exec(text);
  if (!m) return undefined;
  const shift = { '': 0n, b: 0n, k: 10n, m: 20n, g: 30n }[m[2]!.toLowerCase() as '' | 'b' | 'k' | 'm' | 'g'];
  return BigInt(m[1]!) << shift;
}

/** stress's time spans: seconds, or with s, m, h, d or y. */
function stressSeconds(text: string): number | undefined {
  const m = /^(\d+)([smhdy]?)$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400, y: 31_536_000 }[m[2] as '' | 's' | 'm' | 'h' | 'd' | 'y'];
}

function parseStress(args: readonly string[]): StressArgs | string {
  const out: StressArgs = { cpu: 0, io: 0, vm: 0, hdd: 0, vmBytes: 256n << 20n, vmHang: false };
  const counts: Record<string, 'cpu' | 'io' | 'vm' | 'hdd'> = { '-c': 'cpu', '--cpu': 'cpu', '-i': 'io', '--io': 'io', '-m': 'vm', '--vm': 'vm', '-d': 'hdd', '--hdd': 'hdd' };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => args[++i] ?? '';
    if (a in counts) {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) return `invalid number in ${a}`;
      out[counts[a]!] = n;
    } else if (a === '--vm-bytes') {
      const b = stressBytes(value());
      if (b === undefined) return 'invalid number in --vm-bytes';
      out.vmBytes = b;
    } else if (a === '--vm-hang') {
      value();
      out.vmHang = true;
    } else if (a === '-t' || a === '--timeout') {
      const s = stressSeconds(value());
      if (s === undefined) return `invalid time in ${a}`;
      out.timeoutS = s;
    } else if (a === '--vm-stride' || a === '--hdd-bytes' || a === '--backoff') value();
    else if (a === '--vm-keep' || a === '-q' || a === '--quiet' || a === '-v' || a === '--verbose' || a === '-n' || a === '--dry-run') continue;
    else return `unrecognized option '${a}'`;
  }
  return out;
}

const stressUsage = "`stress' imposes certain types of compute stress on your system\n\nUsage: stress [OPTION [ARG]] ...\n -?, --help         show this help statement\n     --version      show version statement\n -v, --verbose      be verbose\n -q, --quiet        be quiet\n -n, --dry-run      show what would have been done\n -t, --timeout N    timeout after N seconds\n     --backoff N    wait factor of N microseconds before work starts\n -c, --cpu N        spawn N workers spinning on sqrt()\n -i, --io N         spawn N workers spinning on sync()\n -m, --vm N         spawn N workers spinning on malloc()/free()\n     --vm-bytes B   malloc B bytes per vm worker (default is 256MB)\n     --vm-stride B  touch a byte every B bytes (default is 4096)\n     --vm-hang N    sleep N secs before free (default none, 0 is inf)\n     --vm-keep      redirty memory instead of freeing and reallocating\n -d, --hdd N        spawn N workers spinning on write()/unlink()\n     --hdd-bytes B  write B bytes per hdd worker (default is 1GB)\n\nExample: stress --cpu 8 --io 4 --vm 2 --vm-bytes 128M --timeout 10s\n\nNote: Numbers may be suffixed with s,m,h,d,y (time) or B,K,M,G (size).\n";

/** polinux/stress's `stress` (1.0.4): its hogs, what they take, and the OOM killer when they take more than the container may. */
export const stress: ImageProgram = {
  run(args, _env, ctx): ImageProgramRun {
    if (!args.length || args.includes('--help') || args.includes('-?')) return { output: [{ stream: 1, text: stressUsage }], exitCode: 0 };
    const parsed = parseStress(args);
    if (typeof parsed === 'string') return { output: [{ stream: 2, text: `stress: FAIL: [1] (244) ${parsed}\n` }], exitCode: 1 };
    const dispatch = { stream: 1 as const, text: `stress: info: [1] dispatching hogs: ${parsed.cpu} cpu, ${parsed.io} io, ${parsed.vm} vm, ${parsed.hdd} hdd\n` };
    const memory = this.demand!(args).memoryBytes ?? 0n;
    if (ctx.memoryLimitBytes !== undefined && memory > BigInt(ctx.memoryLimitBytes)) return { output: [dispatch], oomKilled: true, exitCode: 137 };
    if (parsed.timeoutS !== undefined) return { output: [dispatch], endsAfter: { ms: parsed.timeoutS * 1000, output: [{ stream: 1, text: `stress: info: [1] successful run completed in ${parsed.timeoutS}s\n` }] }, exitCode: 0 };
    // Its workers run until it is stopped; as PID 1 it has no SIGTERM handler.
    return { output: [dispatch], ignoresTerm: true };
  },
  demand(args): ProgramDemand {
    const parsed = parseStress(args);
    if (typeof parsed === 'string') return {};
    // A cpu worker spins a core; a vm worker too, unless it hangs between its allocations.
    const busy = BigInt(parsed.cpu + (parsed.vmHang ? 0 : parsed.vm));
    return { cpuNano: busy * nanoPerCore, memoryBytes: baseMemoryBytes + BigInt(parsed.vm) * parsed.vmBytes };
  },
};

/** glog's boolean flags, which take no value after them. */
const glogBooleans = new Set(['logtostderr', 'alsologtostderr']);

/** vish/stress's flags (Go's flag package: `-name value` or `-name=value`, one or two dashes). */
function parseVishStress(args: readonly string[]): { cpus: number; memTotal: string; allocSize: string; allocSleep: string } {
  const out = { cpus: 0, memTotal: '0', allocSize: '4Ki', allocSleep: '1ms' };
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([\w-]+)(?:=(.*))?$/.exec(args[i]!);
    if (!m || glogBooleans.has(m[1]!)) continue;
    const value = m[2] ?? args[++i] ?? '';
    if (m[1] === 'cpus') out.cpus = Number(value) || 0;
    else if (m[1] === 'mem-total') out.memTotal = value;
    else if (m[1] === 'mem-alloc-size') out.allocSize = value;
    else if (m[1] === 'mem-alloc-sleep') out.allocSleep = value;
  }
  return out;
}

const bytesOf = (text: string): bigint => {
  const q = parseQuantity(text);
  return q ? usageUnits(q, 'memory') : 0n;
};

/** klog's lines as vish/stress writes them to stderr. */
const klog = (ms: number, line: number, text: string) => klogLine(ms, `main.go:${line}`, text);

/** vish/stress (`/stress`): spins `-cpus` cores and holds `-mem-total`; the OOM killer ends it past the limit. */
export const vishStress: ImageProgram = {
  run(args, _env, ctx): ImageProgramRun {
    const o = parseVishStress(args);
    const output = [{ stream: 2 as const, text: klog(ctx.now, 26, `Allocating "${o.memTotal}" memory, in "${o.allocSize}" chunks, with a ${o.allocSleep} sleep between allocations`) }];
    const memory = this.demand!(args).memoryBytes ?? 0n;
    if (ctx.memoryLimitBytes !== undefined && memory > BigInt(ctx.memoryLimitBytes)) return { output, oomKilled: true, exitCode: 137 };
    output.push({ stream: 2, text: klog(ctx.now, 39, `Allocated "${o.memTotal}" memory`) });
    return { output, ignoresTerm: true };
  },
  demand(args): ProgramDemand {
    const o = parseVishStress(args);
    return { cpuNano: BigInt(Math.round(o.cpus * 1000)) * 1_000_000n, memoryBytes: baseMemoryBytes + bytesOf(o.memTotal) };
  },
};

/**
 * /proc as a container's processes read it (procfs, mounted by the runtime):
 * a directory per process of the container's run (cmdline, comm, status,
 * environ, cgroup, mounts, maps), `self` leading to the reader's, and the
 * kernel's own files: meminfo (the node's memory, cgroupFiles.ts), cpuinfo,
 * version and mounts. Every read computes them from the run's processes at
 * the reader's time; nothing in /proc can be written.
 *
 * What they teach: /proc/mounts lists the pod's volumes as the kubelet
 * mounted them (an emptyDir on the node's disk, a Secret on tmpfs, read-only),
 * and /proc/1/status the capabilities, no_new_privs and seccomp mode a
 * securityContext gives (`CapEff: 00000000a80425fb` is containerd's default
 * set; NET_ADMIN and SYS_TIME added make it 00000000aa0435fb).
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import type { ContainerFilesystem, ContainerMember } from './containerFiles';
import type { ContainerView, FsEntry } from './containerView';
import { FileStore, readerNow } from './fileStore';
import { nodeCpus, nodeMemoryKiB } from './cgroupFiles';
import { encodeText } from './byteText';
import { nodeKernelRelease, nodeKernelVersion } from './nodes';
import { lookUp } from './programLookup';
import { isKubeletWritten } from './containerView';

type Obj = Record<string, unknown>;

/** A line of /proc/mounts: what is mounted where, its filesystem and options. */
export interface MountEntry {
  source: string;
  target: string;
  type: string;
  options: string;
}

/** What the runtime set for the container's processes, which /proc/<pid>/status shows. */
export interface ProcessSecurity {
  /** The bounding set: what a root process has (permitted and effective); one of another user has none of it. */
  capabilities: bigint;
  /** allowPrivilegeEscalation: false (NoNewPrivs: 1). */
  noNewPrivs: boolean;
  /** A seccomp filter is loaded (RuntimeDefault or Localhost): Seccomp 2. */
  seccomp: boolean;
}

/** Linux's capabilities by bit (CAP_CHOWN is 0 ... CAP_CHECKPOINT_RESTORE 40). */
const capabilityNames = ['CHOWN', 'DAC_OVERRIDE', 'DAC_READ_SEARCH', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'LINUX_IMMUTABLE', 'NET_BIND_SERVICE', 'NET_BROADCAST', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'IPC_OWNER', 'SYS_MODULE', 'SYS_RAWIO', 'SYS_CHROOT', 'SYS_PTRACE', 'SYS_PACCT', 'SYS_ADMIN', 'SYS_BOOT', 'SYS_NICE', 'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'LEASE', 'AUDIT_WRITE', 'AUDIT_CONTROL', 'SETFCAP', 'MAC_OVERRIDE', 'MAC_ADMIN', 'SYSLOG', 'WAKE_ALARM', 'BLOCK_SUSPEND', 'AUDIT_READ', 'PERFMON', 'BPF', 'CHECKPOINT_RESTORE'];
const allCapabilities = (1n << BigInt(capabilityNames.length)) - 1n;
const capabilityBit = (name: string): bigint | undefined => {
  const at = capabilityNames.indexOf(name.toUpperCase().replace(/^CAP_/, ''));
  return at < 0 ? undefined : 1n << BigInt(at);
};
/** containerd's default set (oci.WithDefaultSpec): CHOWN, DAC_OVERRIDE, FSETID, FOWNER, MKNOD, NET_RAW, SETGID, SETUID, SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL, AUDIT_WRITE. */
const defaultCapabilities = ['CHOWN', 'DAC_OVERRIDE', 'FSETID', 'FOWNER', 'MKNOD', 'NET_RAW', 'SETGID', 'SETUID', 'SETFCAP', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'KILL', 'AUDIT_WRITE'].reduce((set, c) => set | capabilityBit(c)!, 0n);

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const objectAt = (o: unknown, ...path: string[]): Obj => {
  const v = field(o, ...path);
  return isObject(v) ? v : {};
};

/** Whether the container's process holds a capability: root with it in the container's set (another user holds none). */
export function holdsCapability(view: ContainerView, name: string): boolean {
  return view.uid === 0 && ((view.security?.capabilities ?? defaultCapabilities) & (capabilityBit(name) ?? 0n)) !== 0n;
}

/** The container's securityContext as the runtime applies it: capabilities added and dropped (ALL too), privileged, no_new_privs, seccomp. */
export function processSecurity(pod: KubeObject, container: Obj): ProcessSecurity {
  const sc = objectAt(container, 'securityContext');
  const seccompType = field(sc, 'seccompProfile', 'type') ?? field(pod, 'spec', 'securityContext', 'seccompProfile', 'type');
  if (sc['privileged'] === true) return { capabilities: allCapabilities, noNewPrivs: false, seccomp: false };
  let capabilities = defaultCapabilities;
  const names = (k: string) => (Array.isArray(field(sc, 'capabilities', k)) ? (field(sc, 'capabilities', k) as unknown[]).map(String) : []);
  // containerd drops before it adds: `drop: [ALL]` with `add: [NET_BIND_SERVICE]` keeps that one.
  for (const c of names('drop')) capabilities = c.toUpperCase() === 'ALL' ? 0n : capabilities & ~(capabilityBit(c) ?? 0n);
  for (const c of names('add')) capabilities = c.toUpperCase() === 'ALL' ? allCapabilities : capabilities | (capabilityBit(c) ?? 0n);
  return { capabilities, noNewPrivs: sc['allowPrivilegeEscalation'] === false, seccomp: seccompType === 'RuntimeDefault' || seccompType === 'Localhost' };
}

/** The node's disk (the kubelet's and containerd's directories, so an emptyDir's, a hostPath's and the files the kubelet writes). */
const nodeDisk = '/dev/vda1';
const pseudo = 'nosuid,nodev,noexec,relatime';
const devTmpfs = 'rw,nosuid,size=65536k,mode=755';

/**
 * /proc/mounts of the container, as containerd mounts it on a cgroup v2
 * node: its root (overlay), the runtime's filesystems, the kubelet's mounts
 * (volumes, /etc/hosts, the termination log; the sandbox's hostname,
 * resolv.conf and /dev/shm) in order of depth, then the paths a container
 * that is not privileged finds masked or read-only.
 */
export function mountTable(pod: KubeObject, container: Obj): MountEntry[] {
  const privileged = field(container, 'securityContext', 'privileged') === true;
  const runtime: MountEntry[] = [
    { source: 'overlay', target: '/', type: 'overlay', options: `rw,relatime,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/2/fs:/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/1/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/3/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/3/work` },
    { source: 'proc', target: '/proc', type: 'proc', options: `rw,${pseudo}` },
    { source: 'tmpfs', target: '/dev', type: 'tmpfs', options: devTmpfs },
    { source: 'devpts', target: '/dev/pts', type: 'devpts', options: 'rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666' },
    { source: 'mqueue', target: '/dev/mqueue', type: 'mqueue', options: `rw,${pseudo}` },
    { source: 'sysfs', target: '/sys', type: 'sysfs', options: `${privileged ? 'rw' : 'ro'},${pseudo}` },
    { source: 'cgroup', target: '/sys/fs/cgroup', type: 'cgroup2', options: `${privileged ? 'rw' : 'ro'},${pseudo}` },
  ];
  const volumes = new Map(objectsOf(field(pod, 'spec', 'volumes')).map((v) => [String(v['name']), v]));
  const kubelet: MountEntry[] = [];
  for (const m of objectsOf(container['volumeMounts'])) {
    const volume = volumes.get(String(m['name']));
    if (!volume) continue;
    const target = String(m['mountPath'] ?? '').replace(/\/+$/, '') || '/';
    // The kubelet writes configMap, secret, downwardAPI and projected volumes, and mounts them read-only.
    const mode = m['readOnly'] === true || isKubeletWritten(volume) ? 'ro' : 'rw';
    // Secrets and projected volumes (a service account's token) live on tmpfs, never on the node's disk; so does a Memory emptyDir.
    const inMemory = isObject(volume['secret']) || isObject(volume['projected']) || field(volume, 'emptyDir', 'medium') === 'Memory';
    kubelet.push(inMemory ? { source: 'tmpfs', target, type: 'tmpfs', options: `${mode},relatime,size=${nodeMemoryKiB}k` } : { source: nodeDisk, target, type: 'ext4', options: `${mode},relatime` });
  }
  const disk = (target: string): MountEntry => ({ source: nodeDisk, target, type: 'ext4', options: 'rw,relatime' });
  kubelet.push(disk('/etc/hosts'), disk(String(container['terminationMessagePath'] || '/dev/termination-log')), disk('/etc/hostname'), disk('/etc/resolv.conf'));
  kubelet.push({ source: 'shm', target: '/dev/shm', type: 'tmpfs', options: `rw,${pseudo},size=65536k` });
  // containerd mounts them by depth (sortMounts), the kubelet's order kept within a depth.
  const depth = (m: MountEntry) => m.target.split('/').filter(Boolean).length;
  const sorted = kubelet.map((m, i) => ({ m, i })).sort((a, b) => depth(a.m) - depth(b.m) || a.i - b.i).map((x) => x.m);
  if (privileged) return [...runtime, ...sorted];
  const masked: MountEntry[] = [
    ...['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'].map((target) => ({ source: 'proc', target, type: 'proc', options: `ro,${pseudo}` })),
    { source: 'tmpfs', target: '/proc/acpi', type: 'tmpfs', options: 'ro,relatime' },
    ...['/proc/kcore', '/proc/keys', '/proc/timer_list'].map((target) => ({ source: 'tmpfs', target, type: 'tmpfs', options: devTmpfs })),
    { source: 'tmpfs', target: '/proc/scsi', type: 'tmpfs', options: 'ro,relatime' },
    { source: 'tmpfs', target: '/sys/firmware', type: 'tmpfs', options: 'ro,relatime' },
  ];
  return [...runtime, ...sorted, ...masked];
}

const mountsText = (table: readonly MountEntry[]): string => table.map((m) => `${m.source} ${m.target} ${m.type} ${m.options} 0 0\n`).join('');

/** A process as /proc shows it. */
interface ProcProcess {
  pid: number;
  ppid: number;
  argv: readonly string[];
  uid: number;
  /** The command its program was started as (a worker's is its master's), which /proc/<pid>/maps looks up. */
  program: string;
}

/** The process's name (/proc/<pid>/comm): its program's file name, which a title (`nginx: master process`) starts with, at most 15 characters. */
export function processName(argv0: string): string {
  const program = argv0.split(' ')[0]!.replace(/:$/, '');
  return program.slice(program.lastIndexOf('/') + 1).slice(0, 15);
}

const hex16 = (n: bigint) => n.toString(16).padStart(16, '0');
const kib = (n: number) => `${String(n).padStart(8)} kB`;

/**
 * Typical virtual and resident sizes (KiB) of the programs a container runs,
 * for ps's VSZ, RSS and %MEM and /proc/<pid>/status: a process's own memory
 * is not simulated (the container's usage is, for the metrics API), so these
 * keep the figures believable.
 */
const typicalKiB = new Map<string, [vsz: number, rss: number]>([['nginx', [11404, 7428]], ['nginx: worker process', [11868, 2868]], ['bash', [4188, 3456]], ['sh', [2580, 1536]], ['sleep', [2484, 1280]], ['ps', [8092, 4096]]]);
const otherKiB: [number, number] = [5892, 2816];

/** A process's typical memory in KiB (VmSize, VmRSS) by its command line. */
export const programMemoryKiB = (argv: readonly string[]): [vsz: number, rss: number] => typicalKiB.get(argv[0] ?? '') ?? typicalKiB.get(processName(argv[0] ?? '')) ?? otherKiB;

/**
 * The /proc of one run of a container. A FileStore for ContainerFilesystem to
 * mount, whose entries are made at each read; its base holds the view's
 * own /proc files (meminfo).
 */
export class ProcFs extends FileStore {
  private fs: ContainerFilesystem | undefined;
  private readonly mounts: string;

  constructor(
    private readonly view: ContainerView,
    base: ReadonlyMap<string, FsEntry>,
  ) {
    super(base);
    // `self` and `mounts` are symlinks: paths through /proc are resolved.
    this.holdsLinks = true;
    this.mounts = mountsText(view.mountTable ?? []);
  }

  /** The run whose processes it shows. */
  attach(fs: ContainerFilesystem): void {
    this.fs = fs;
  }

  /** Nothing in /proc is written (the mount is read-only). */
  override put(): void {}

  /** Its entries come from the run's processes, which a read runs up to its time itself: no process shares it as a store. */
  override join(): void {}

  override catchUp(): void {}

  private processes(at: number): ProcProcess[] {
    const members: readonly ContainerMember[] = this.fs?.running(at) ?? [];
    const out: ProcProcess[] = [];
    for (const m of members) {
      const program = m.command[0] ?? '';
      out.push({ pid: m.pid, ppid: 0, argv: m.command, uid: m.uid ?? this.view.uid, program });
      for (const c of m.children) out.push({ pid: c.pid, ppid: m.pid, argv: [c.title], uid: c.uid, program });
    }
    return out.sort((a, b) => a.pid - b.pid);
  }

  /** The file a process's program is, found on the image's PATH as exec finds it; undefined when the image has none. */
  private exeOf(p: ProcProcess): string | undefined {
    const name = p.program.split(' ')[0]!.replace(/:$/, '');
    const found = lookUp({ view: this.view, files: this.view.files }, name, this.view.env.find(([k]) => k === 'PATH')?.[1] ?? '', '/');
    return 'path' in found ? found.path : undefined;
  }

  /** The pid `self` leads to: the reading process's (a process outside the run reads pid 1's). */
  private selfPid(): number {
    const reader = readerNow() as Partial<ContainerMember> | undefined;
    return typeof reader?.pid === 'number' ? reader.pid : 1;
  }

  /** The entries made for one time and process table (a listing reads every one): made again when either changed. */
  private made: { at: number; table: string; entries: Map<string, FsEntry | undefined>; processes: ProcProcess[] } | undefined;

  /** The processes at a time, with the entries already made for them. */
  private current(at: number): NonNullable<ProcFs['made']> {
    const processes = this.processes(at);
    const table = processes.map((p) => `${p.pid} ${p.uid} ${p.argv.join(' ')}`).join('\n');
    if (this.made?.at !== at || this.made.table !== table) this.made = { at, table, entries: new Map(), processes };
    return this.made;
  }

  override get(path: string, at: number): FsEntry | undefined {
    if (path === '/') return { type: 'dir', mode: 0o555 };
    const fixed = this.kernelFile(path);
    if (fixed) return fixed;
    const root = /^\/(\d+)\/root(\/.*)?$/.exec(path);
    if (root) return this.rootEntry(Number(root[1]), root[2] ?? '/', at);
    const m = /^\/(\d+)(?:\/([a-z_]+))?$/.exec(path);
    if (!m) return super.get(path, at);
    const made = this.current(at);
    if (made.entries.has(path)) return made.entries.get(path);
    const p = made.processes.find((x) => x.pid === Number(m[1]));
    let entry: FsEntry | undefined;
    if (p && m[2] === undefined) entry = { type: 'dir', mode: 0o555 };
    else if (p) {
      const content = this.processFile(p, m[2]!);
      if (content !== undefined) entry = { type: 'file', content: encodeText(content), mode: m[2] === 'environ' ? 0o400 : 0o444 };
    }
    made.entries.set(path, entry);
    return entry;
  }

  /**
   * /proc/<pid>/root: the kernel's magic link into the process's own root, which a path through it
   * reaches (the Share Process Namespace page's `head /proc/8/root/etc/nginx/nginx.conf`): another
   * container's files, read through its symlinks. It stands as a directory whose files are not
   * listed, so `find /` and `tar` do not walk every container's files, as they do not follow the link.
   */
  private rootEntry(pid: number, rest: string, at: number): FsEntry | undefined {
    const run = this.fs?.runOf(pid, at);
    if (!run) return undefined;
    return rest === '/' ? { type: 'dir', mode: 0o555 } : run.filesAt(at).get(rest);
  }

  override *paths(at: number): IterableIterator<string> {
    yield* super.paths(at);
    yield* ['/self', '/mounts', '/cpuinfo', '/version'];
    for (const p of this.current(at).processes) {
      yield `/${p.pid}`;
      for (const f of processFiles) yield `/${p.pid}/${f}`;
      yield `/${p.pid}/root`;
    }
  }

  /** The kernel's files and links, the same for every process. */
  private kernelFile(path: string): FsEntry | undefined {
    switch (path) {
      case '/self':
        return { type: 'link', target: String(this.selfPid()), mode: 0o777 };
      case '/mounts':
        return { type: 'link', target: 'self/mounts', mode: 0o777 };
      case '/cpuinfo':
        return (cpuinfoFile ??= { type: 'file', content: encodeText(cpuinfo()), mode: 0o444 });
      case '/version':
        return (versionFile ??= { type: 'file', content: encodeText(`Linux version ${nodeKernelRelease} (kubesim@buildd) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) ${nodeKernelVersion}\n`), mode: 0o444 });
      default:
        return undefined;
    }
  }

  private processFile(p: ProcProcess, name: string): string | undefined {
    switch (name) {
      case 'cmdline':
        return p.argv.map((a) => a + '\0').join('');
      case 'comm':
        return processName(p.argv[0] ?? '') + '\n';
      case 'environ':
        return (this.fs?.env ?? this.view.env).map(([k, v]) => `${k}=${v}\0`).join('');
      case 'cgroup':
        // cgroup v2 inside the container's cgroup namespace: its own cgroup is the root.
        return '0::/\n';
      case 'mounts':
        return this.mounts;
      case 'status':
        return this.status(p);
      case 'maps': {
        const os = this.view.image.os?.id;
        return maps(p.pid, this.exeOf(p) ?? '/bin/busybox', os === 'alpine' ? 'musl' : os ? 'glibc' : 'static');
      }
      default:
        return undefined;
    }
  }

  /** /proc/<pid>/status: who it runs as and what it may do, as the runtime set it up. */
  private status(p: ProcProcess): string {
    const security = this.view.security ?? { capabilities: defaultCapabilities, noNewPrivs: false, seccomp: false };
    // Only root holds the set; another user's process has none of it (no ambient capabilities).
    const held = p.uid === 0 ? security.capabilities : 0n;
    const gid = p.uid === this.view.uid ? this.view.gid : p.uid;
    const groups = p.uid === this.view.uid ? this.view.groups : [gid];
    const [vsz, rss] = programMemoryKiB(p.argv);
    const cpus = (1n << BigInt(nodeCpus)) - 1n;
    const lines: [string, string][] = [
      ['Name', processName(p.argv[0] ?? '')],
      ['Umask', '0022'],
      ['State', 'S (sleeping)'],
      ['Tgid', String(p.pid)],
      ['Ngid', '0'],
      ['Pid', String(p.pid)],
      ['PPid', String(p.ppid)],
      ['TracerPid', '0'],
      ['Uid', `${p.uid}\t${p.uid}\t${p.uid}\t${p.uid}`],
      ['Gid', `${gid}\t${gid}\t${gid}\t${gid}`],
      ['FDSize', '64'],
      ['Groups', groups.join(' ') + ' '],
      ['NStgid', String(p.pid)],
      ['NSpid', String(p.pid)],
      ['NSpgid', String(p.ppid || p.pid)],
      ['NSsid', String(p.ppid || p.pid)],
      ['VmPeak', kib(vsz)],
      ['VmSize', kib(vsz)],
      ['VmLck', kib(0)],
      ['VmPin', kib(0)],
      ['VmHWM', kib(rss)],
      ['VmRSS', kib(rss)],
      ['Threads', '1'],
      ['SigQ', '0/63432'],
      ['SigPnd', hex16(0n)],
      ['ShdPnd', hex16(0n)],
      ['SigBlk', hex16(0n)],
      ['SigIgn', hex16(0n)],
      ['SigCgt', hex16(0n)],
      ['CapInh', hex16(0n)],
      ['CapPrm', hex16(held)],
      ['CapEff', hex16(held)],
      ['CapBnd', hex16(security.capabilities)],
      ['CapAmb', hex16(0n)],
      ['NoNewPrivs', security.noNewPrivs ? '1' : '0'],
      ['Seccomp', security.seccomp ? '2' : '0'],
      ['Seccomp_filters', security.seccomp ? '1' : '0'],
      ['Speculation_Store_Bypass', security.seccomp ? 'thread force mitigated' : 'thread vulnerable'],
      ['Cpus_allowed', cpus.toString(16)],
      ['Cpus_allowed_list', nodeCpus > 1 ? `0-${nodeCpus - 1}` : '0'],
      ['Mems_allowed', '00000000,00000001'],
      ['Mems_allowed_list', '0'],
      ['voluntary_ctxt_switches', '12'],
      ['nonvoluntary_ctxt_switches', '3'],
    ];
    return lines.map(([k, v]) => `${k}:\t${v}\n`).join('');
  }
}

/** The kernel's files that are the same for every container, made once. */
let cpuinfoFile: FsEntry | undefined;
let versionFile: FsEntry | undefined;

/** The files of a process's directory that /proc lists. */
const processFiles = ['cgroup', 'cmdline', 'comm', 'environ', 'maps', 'mounts', 'status'];

/** /proc/cpuinfo: the node's CPUs (every one, whatever the container's cpu limit). */
function cpuinfo(): string {
  const one = (n: number) =>
    [
      ['processor', String(n)],
      ['vendor_id', 'GenuineIntel'],
      ['cpu family', '6'],
      ['model', '106'],
      ['model name', 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz'],
      ['stepping', '6'],
      ['cpu MHz', '2899.998'],
      ['cache size', '55296 KB'],
      ['physical id', '0'],
      ['siblings', String(nodeCpus)],
      ['core id', String(n)],
      ['cpu cores', String(nodeCpus)],
      ['fpu', 'yes'],
      ['flags', 'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch avx2 bmi1 bmi2 avx512f avx512dq avx512cd avx512bw avx512vl'],
      ['bogomips', '5799.99'],
      ['address sizes', '46 bits physical, 48 bits virtual'],
    ]
      // The kernel aligns the colons with tabs: two after a name shorter than a tab stop.
      .map(([k, v]) => `${k}${k!.length < 8 ? '\t\t' : '\t'}: ${v}\n`)
      .join('');
  return Array.from({ length: nodeCpus }, (_, n) => one(n)).join('\n') + '\n';
}

/**
 * /proc/<pid>/maps: the program's segments, the C library's and the loader's
 * (glibc's two on Debian and Ubuntu, musl's one on Alpine; busybox's is
 * static), heap, stack, vvar and vdso, at
 * addresses derived from the pid (not the kernel's randomness, so a lesson's
 * output stays the same).
 */
function maps(pid: number, program: string, libc: 'glibc' | 'musl' | 'static'): string {
  const base = 0x55d0_0000_0000 + pid * 0x1000_0000;
  const libs = 0x7f10_0000_0000 + pid * 0x1000_0000;
  const stack = 0x7ffc_0000_0000 + pid * 0x100_0000;
  // The kernel pads a mapping's fields to 72 columns before its name.
  const row = (from: number, size: number, perms: string, offset: number, device: string, inode: number, name: string) => `${from.toString(16).padStart(12, '0')}-${(from + size).toString(16).padStart(12, '0')} ${perms} ${offset.toString(16).padStart(8, '0')} ${device} ${inode}`.padEnd(72) + ` ${name}\n`;
  const segments = (at: number, inode: number, name: string) => [row(at, 0x2000, 'r--p', 0, '00:2d', inode, name), row(at + 0x2000, 0x5000, 'r-xp', 0x2000, '00:2d', inode, name), row(at + 0x7000, 0x2000, 'r--p', 0x7000, '00:2d', inode, name), row(at + 0x9000, 0x1000, 'rw-p', 0x8000, '00:2d', inode, name)];
  const out = [...segments(base, 1052843, program), row(base + 0x20_0000, 0x2_1000, 'rw-p', 0, '00:00', 0, '[heap]')];
  if (libc === 'musl') out.push(...segments(libs, 1049877, '/lib/ld-musl-x86_64.so.1'));
  if (libc === 'glibc') out.push(...segments(libs, 1050327, '/usr/lib/x86_64-linux-gnu/libc.so.6'), ...segments(libs + 0x20_0000, 1050310, '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'));
  out.push(row(stack, 0x2_1000, 'rw-p', 0, '00:00', 0, '[stack]'), row(stack + 0x10_0000, 0x4000, 'r--p', 0, '00:00', 0, '[vvar]'), row(stack + 0x10_4000, 0x2000, 'r-xp', 0, '00:00', 0, '[vdso]'));
  out.push(row(0xffff_ffff_ff60_0000, 0x1000, '--xp', 0, '00:00', 0, '[vsyscall]'));
  return out.join('');
}

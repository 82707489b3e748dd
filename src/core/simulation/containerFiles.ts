/**
 * The files a simulated container's processes share: one writable layer per
 * run of the container (its main process and every process exec'd into it
 * see and change the same files; a restart starts a new layer from the
 * image), with volumes mounted over it. A shared volume's files belong to
 * what outlives the container: an emptyDir to the pod, a claim's to its
 * PersistentVolume, a hostPath to the node's path (VolumeStores keeps
 * them); a configMap, secret, downwardAPI or projected volume mounted whole
 * is the pod's too, written only by the kubelet (volumeRefresh.ts: its files
 * follow their sources); such a volume, and any `readOnly` mount, cannot be
 * written (EROFS). A path is looked up as the kernel does, through the
 * symlinks on it (the kubelet's atomic writer makes them).
 *
 * Each store keeps its writes with their times (fileStore.ts), and each
 * process reads at its own clock; a command about to touch files first
 * waits for the server clock (`observe`), so no process reads far ahead of
 * what has happened.
 */
import type { ContainerView, FsEntry } from './containerView';
import { FileStore, type StoreRunner } from './fileStore';
import type { ProcessChild } from './processIo';
import { nodeOsImage } from './nodes';
import { encodeText } from './byteText';
import { ProcFs } from './procFs';

/** A volume mounted in a container: its store (rooted at `/`), the directory of it mounted (subPath), whether writes are refused. */
export interface Mount {
  path: string;
  store: FileStore;
  /** The store's directory mounted at `path` ('/' for all of it). */
  root: string;
  readOnly: boolean;
}

/** A process of the container as ps and kill see it (the runtime's RecordedProcess). */
export interface ContainerMember extends StoreRunner {
  readonly pid: number;
  readonly command: readonly string[];
  readonly startMs: number;
  /** Whether it runs on a terminal. */
  readonly tty: boolean;
  /** The processes its program forked that run beside it (nginx's workers). */
  readonly children: readonly ProcessChild[];
  /** Its user, when known. */
  readonly uid?: number;
  /** Whether it runs at a time: started, neither exited nor stopped. */
  runningAt(at: number): boolean;
  /** A signal from a process of the container at a time; whether it ended it. */
  signal(signal: 'TERM' | 'INT' | 'KILL', at: number): boolean;
  /** A signal to one of its workers, which a master may replace with a new one of pid `newPid`; whether it had that worker. */
  signalChild(pid: number, signal: 'TERM' | 'INT' | 'KILL', at: number, newPid: number): boolean;
  /** SIGHUP from process `from`: whether it handled it (a server's reload, new workers with pids from `nextPid`). */
  hangUp(at: number, from: number, nextPid: () => number): boolean;
}

const under = (path: string, dir: string) => path === dir || path.startsWith(dir === '/' ? '/' : dir + '/');

/**
 * A PID namespace several runs share: a pod's with shareProcessNamespace,
 * whose pid 1 is the sandbox's pause process, or the one an ephemeral
 * container joins with targetContainerName (the target's own process stays
 * its pid 1). Their processes see each other in ps and /proc, and take their
 * pids from it in turn.
 */
export class PidNamespace {
  readonly runs = new Set<ContainerFilesystem>();
  private next = 7;

  constructor(
    /** Whether the sandbox's pause process is its pid 1. */
    readonly pause: boolean,
  ) {}

  /** The next free pid, past those of every run's processes and their forked children. */
  allocate(): number {
    for (const run of this.runs) this.next = Math.max(this.next, run.nextPidFloor());
    return this.next++;
  }

  running(at: number): ContainerMember[] {
    const out = [...this.runs].flatMap((r) => r.ownRunning(at));
    if (this.pause) out.push({ ...pauseProcess, startMs: Math.min(...out.map((m) => m.startMs), at) });
    return out.sort((a, b) => a.pid - b.pid);
  }
}

/** The sandbox's /pause, pid 1 of a shared namespace: it ignores the signals a container's process may send it. */
const pauseProcess: ContainerMember = {
  pid: 1,
  command: ['/pause'],
  startMs: 0,
  uid: 0,
  tty: false,
  children: [],
  runningAt: () => true,
  signal: () => false,
  signalChild: () => false,
  hangUp: () => false,
  runUntil: () => {},
  finished: false,
  stop: () => {},
  rank: -1,
};

/** One run of a container: its writable layer and its mounts, which each of its processes sees on its own clock. */
export class ContainerFilesystem {
  readonly mounts: Mount[];

  constructor(
    readonly layer: FileStore,
    mounts: Mount[],
    /** Paths of the layer that are read-only (a configMap's or secret's files the kubelet put there). */
    readonly readOnlyPaths: readonly string[] = [],
    /** The environment the run started with: an exec'd process gets it too, whatever its sources became since. */
    readonly env?: readonly [string, string][],
  ) {
    // The deepest mount wins.
    this.mounts = [...mounts].sort((a, b) => b.path.length - a.path.length);
  }

  /** The processes of this run (its own and those exec'd into it). */
  private readonly processes = new Set<StoreRunner>();
  /** The pid the next exec'd process gets (the kernel hands them out in turn). */
  private nextExecPid = 7;
  /** The PID namespace it shares with other runs, if it does. */
  private pids: PidNamespace | undefined;

  /** From now on its processes and those of the namespace's other runs see each other, and take their pids from it. */
  shareNamespace(pids: PidNamespace): void {
    this.pids = pids;
    pids.runs.add(this);
  }

  /** The namespace it shares, if any. */
  get pidNamespace(): PidNamespace | undefined {
    return this.pids;
  }

  /** The run a process of its PID namespace belongs to (a forked child its master's); none for the sandbox's pause. */
  runOf(pid: number, at: number): ContainerFilesystem | undefined {
    for (const run of this.pids ? this.pids.runs : [this]) {
      if (run.ownRunning(at).some((m) => m.pid === pid || m.children.some((c) => c.pid === pid))) return run;
    }
    return undefined;
  }

  /** Its files as its processes read them at a time, through symlinks. */
  filesAt(at: number): ReadonlyMap<string, FsEntry> {
    return new ProcessFiles(this, () => at);
  }

  /** The pid of the run's own process: 1, the namespace's init, unless it shares a namespace, which hands out the next. */
  mainPid(): number {
    return this.pids ? this.pids.allocate() : 1;
  }

  /** A pid for a process exec'd into the container: the next one free, past the processes' forked children. */
  execPid(): number {
    if (this.pids) return this.pids.allocate();
    this.nextExecPid = this.nextPidFloor();
    return this.nextExecPid++;
  }

  /** The lowest pid this run has not used (past its processes and their forked children). */
  nextPidFloor(): number {
    for (const p of this.processes) {
      const m = p as Partial<ContainerMember>;
      if (typeof m.pid === 'number') this.nextExecPid = Math.max(this.nextExecPid, m.pid + 1);
      for (const c of m.children ?? []) this.nextExecPid = Math.max(this.nextExecPid, c.pid + 1);
    }
    return this.nextExecPid;
  }

  /** When the container stops (its process's exit may be known ahead): a process exec'd into it later stops then too. */
  private stoppedAt: number | undefined;

  /** The processes running at a time, as ps and kill see them, by pid (those of the runs it shares a PID namespace with too). */
  running(at: number): ContainerMember[] {
    return this.pids ? this.pids.running(at) : this.ownRunning(at);
  }

  /** Its own processes running at a time, by pid; those ended by then are let go. */
  ownRunning(at: number): ContainerMember[] {
    const out: ContainerMember[] = [];
    for (const p of this.processes) {
      if (!('signal' in p)) continue;
      const member = p as ContainerMember;
      if (member.runningAt(at)) out.push(member);
      else if (member.startMs <= at) this.processes.delete(p);
    }
    return out.sort((a, b) => a.pid - b.pid);
  }

  /** A process of the container sharing its stores from now on (it is run up to a reader's time). */
  join(runner: StoreRunner): void {
    this.processes.add(runner);
    this.layer.join(runner);
    for (const m of this.mounts) m.store.join(runner);
    if (this.stoppedAt !== undefined) runner.stop(this.stoppedAt);
  }

  /** The container stops at `at`: every process in it with it (an exec'd one too, and one exec'd later). */
  stop(at: number): void {
    this.stoppedAt = Math.min(this.stoppedAt ?? Infinity, at);
    for (const p of this.processes) p.stop(at);
  }

  /** The files as a process sees them at its clock. */
  forProcess(clock: () => number): ProcessFiles {
    return new ProcessFiles(this, clock);
  }

  /** Whether a store of the run has ever held a symlink (only then do paths need resolving). */
  get hasLinks(): boolean {
    return this.layer.holdsLinks || this.mounts.some((m) => m.store.holdsLinks && !(m.store instanceof ProcFs));
  }

  /** Where a path lives: its store and its path there, and whether it can be written. */
  route(path: string): { store: FileStore; path: string; readOnly: boolean; mount?: Mount } {
    for (const m of this.mounts) {
      if (!under(path, m.path)) continue;
      const rest = path.slice(m.path.length);
      return { store: m.store, path: m.root === '/' ? rest || '/' : m.root + rest, readOnly: m.readOnly, mount: m };
    }
    return { store: this.layer, path, readOnly: this.readOnlyPaths.some((p) => under(path, p)) };
  }
}

/**
 * The container's files as one process sees them: a Map over its stores,
 * read at the process's clock (or a given time: a server answering a
 * request), written at it.
 */
export class ProcessFiles extends Map<string, FsEntry> {
  constructor(
    readonly fs: ContainerFilesystem,
    private readonly clock: () => number,
  ) {
    super();
  }

  /** The same files read at another time (what a server sends at a request's time). */
  asOf(at: number): ProcessFiles {
    return new ProcessFiles(this.fs, () => at);
  }

  /** Whether a write to the path (where its symlinks lead) fails with EROFS. */
  isReadOnly(path: string): boolean {
    return this.fs.route(this.resolve(path, true) ?? path).readOnly;
  }

  /** The entry at a path with no symlink on it. */
  private entry(path: string): FsEntry | undefined {
    const r = this.fs.route(path);
    const at = this.clock();
    r.store.catchUp(at);
    return r.store.get(r.path, at);
  }

  /** The path its symlinks lead to (its last name's too when `followLast`); undefined when they loop. */
  resolve(path: string, followLast: boolean): string | undefined {
    // /proc's links (self, mounts) are only met on paths through it.
    if (!this.fs.hasLinks && !under(path, '/proc')) return path;
    // Only a store that has held a symlink can have one on the way.
    return resolveLinks((p) => (this.fs.route(p).store.holdsLinks ? this.entry(p) : undefined), path, followLast);
  }

  /** lstat: the entry at a path, a symlink at its end as it is. */
  lstat(path: string): FsEntry | undefined {
    const real = this.resolve(path, false);
    return real === undefined ? undefined : this.entry(real);
  }

  /** stat: the entry a path leads to, through its symlinks. */
  override get(path: string): FsEntry | undefined {
    const real = this.resolve(path, true);
    return real === undefined ? undefined : this.entry(real);
  }

  override has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /**
   * A write to a read-only path is dropped (the tools check isReadOnly
   * first and report EROFS). A symlink is made at the path itself; other
   * writes go where a symlink at its end leads.
   */
  override set(path: string, entry: FsEntry): this {
    const real = this.resolve(path, entry.type !== 'link');
    const r = real === undefined ? undefined : this.fs.route(real);
    if (r && !r.readOnly) r.store.put(r.path, entry, this.clock());
    return this;
  }

  /** Whether a volume is mounted at the path (it cannot be removed: EBUSY). */
  isMountPoint(path: string): boolean {
    return this.fs.mounts.some((m) => m.path === path);
  }

  /** Removes the path's entry (a symlink itself, not what it leads to). */
  override delete(path: string): boolean {
    const real = this.resolve(path, false);
    if (real === undefined || this.isMountPoint(real) || !this.entry(real)) return false;
    const r = this.fs.route(real);
    if (r.readOnly) return false;
    r.store.put(r.path, undefined, this.clock());
    return true;
  }

  override clear(): void {
    for (const p of [...this.keys()]) this.delete(p);
  }

  override get size(): number {
    return [...this.keys()].length;
  }

  override *keys(): MapIterator<string> {
    const at = this.clock();
    const stores = [this.fs.layer, ...this.fs.mounts.map((m) => m.store)];
    for (const s of new Set(stores)) s.catchUp(at);
    for (const p of this.fs.layer.paths(at)) if (this.fs.route(p).store === this.fs.layer && !this.fs.mounts.some((m) => m.path === p)) yield p;
    for (const m of this.fs.mounts) {
      for (const p of m.store.paths(at)) {
        if (!under(p, m.root)) continue;
        const path = m.path + (m.root === '/' ? (p === '/' ? '' : p) : p.slice(m.root.length));
        if (this.fs.route(path).mount === m) yield path || '/';
      }
    }
  }

  override *entries(): MapIterator<[string, FsEntry]> {
    for (const p of this.keys()) {
      const e = this.get(p);
      if (e) yield [p, e];
    }
  }

  override *values(): MapIterator<FsEntry> {
    for (const [, e] of this.entries()) yield e;
  }

  override [Symbol.iterator](): MapIterator<[string, FsEntry]> {
    return this.entries();
  }

  override forEach(fn: (value: FsEntry, key: string, map: Map<string, FsEntry>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

/** How many symlinks a lookup goes through before it fails with ELOOP (the kernel's MAXSYMLINKS). */
const maxSymlinks = 40;

/**
 * The kernel's path lookup: the path with each symlink on it replaced by
 * its target (relative to the symlink's directory), its last name's too
 * when `followLast`; undefined when the symlinks loop. `lstat` reads one
 * path with no symlink on it.
 */
export function resolveLinks(lstat: (path: string) => FsEntry | undefined, path: string, followLast: boolean): string | undefined {
  let rest = path.split('/').filter((s) => s && s !== '.');
  let done = '';
  for (let hops = 0; rest.length; ) {
    const name = rest.shift()!;
    if (name === '..') {
      done = done.slice(0, done.lastIndexOf('/'));
      continue;
    }
    const next = `${done}/${name}`;
    const e = lstat(next);
    if (e?.type !== 'link' || (!rest.length && !followLast)) {
      done = next;
      continue;
    }
    if (++hops > maxSymlinks) return undefined;
    if (e.target.startsWith('/')) done = '';
    rest = [...e.target.split('/').filter((s) => s && s !== '.'), ...rest];
  }
  return done || '/';
}

/** lstat on these files: a symlink at the path's end as it is (a plain map of files is read as it is). */
export const lstat = (files: ReadonlyMap<string, FsEntry>, path: string): FsEntry | undefined => (files instanceof ProcessFiles ? files.lstat(path) : files.get(path));

/** realpath: the path with every symlink on it resolved; undefined when they loop. */
export const realPath = (files: ReadonlyMap<string, FsEntry>, path: string): string | undefined => (files instanceof ProcessFiles ? files.resolve(path, true) : path);

/** Whether writing a path of these files fails with EROFS (a plain map of files never does). */
export const isReadOnly = (files: ReadonlyMap<string, FsEntry>, path: string): boolean => files instanceof ProcessFiles && files.isReadOnly(path);

/** Whether a volume is mounted at the path of these files. */
export const isMountPoint = (files: ReadonlyMap<string, FsEntry>, path: string): boolean => files instanceof ProcessFiles && files.isMountPoint(path);

/** The files as they were at a time (a server's answer to a request reads them then). */
export const filesAt = (files: ReadonlyMap<string, FsEntry>, at: number): ReadonlyMap<string, FsEntry> => (files instanceof ProcessFiles ? files.asOf(at) : files);

/** The shared volumes' files by name (containerView.ts's VolumeMount.volume): an emptyDir's go with its pod, the others stay. */
const nodeVolumePrefix = 'node/';
/** The store of a node's own files, which every hostPath on it is a directory of. */
export const nodeFilesVolume = (node: string): string => nodeVolumePrefix + node;

export class VolumeStores {
  private readonly stores = new Map<string, FileStore>();

  /**
   * The volume's store; a new one holds `base` from the start (a
   * kubelet-written volume's first files), a node's its own files, else an
   * empty root.
   */
  store(volume: string, base?: ReadonlyMap<string, FsEntry>): FileStore {
    let s = this.stores.get(volume);
    if (!s) this.stores.set(volume, (s = new FileStore(base ?? (volume.startsWith(nodeVolumePrefix) ? nodeFiles(volume.slice(nodeVolumePrefix.length)) : undefined))));
    return s;
  }

  /** The volume's store when a container has mounted it. */
  existing(volume: string): FileStore | undefined {
    return this.stores.get(volume);
  }

  /** The pod is gone: its emptyDirs and the volumes the kubelet wrote for it with it. */
  forgetPod(podUID: string): void {
    for (const k of this.stores.keys()) if (k.startsWith(`emptyDir/${podUID}/`) || k.startsWith(`pod/${podUID}/`)) this.stores.delete(k);
  }
}

/**
 * What a node's root holds before any hostPath writes there: its name and
 * release, and the directories its kubelet and logs live in (a node
 * debugging pod sees them at /host). Its services' logs are not simulated.
 */
function nodeFiles(node: string): Map<string, FsEntry> {
  const files = new Map<string, FsEntry>([['/', { type: 'dir', mode: 0o755 }]]);
  for (const d of ['/etc', '/etc/kubernetes', '/etc/kubernetes/manifests', '/root', '/var', '/var/lib', '/var/lib/kubelet', '/var/log']) files.set(d, { type: 'dir', mode: d === '/root' ? 0o700 : 0o755 });
  files.set('/tmp', { type: 'dir', mode: 0o1777 });
  files.set('/etc/hostname', { type: 'file', content: encodeText(`${node}\n`), mode: 0o644 });
  files.set('/etc/os-release', { type: 'file', content: encodeText(`NAME="kubesim"\nID=kubesim\nPRETTY_NAME="${nodeOsImage}"\n`), mode: 0o644 });
  return files;
}

/** Makes a directory and its parents in a store, there from the start, unless it is there. */
function ensureDir(store: FileStore, path: string): void {
  for (let p = path; ; p = p.slice(0, p.lastIndexOf('/')) || '/') {
    if (!store.get(p, Infinity)) store.put(p, { type: 'dir', mode: 0o777 }, -Infinity);
    if (p === '/') break;
  }
}

/** The view's files under a mount point, rooted at `/`: what the kubelet first wrote into the volume. */
function seededFiles(files: ReadonlyMap<string, FsEntry>, path: string): Map<string, FsEntry> {
  const out = new Map<string, FsEntry>();
  for (const [p, e] of files) {
    if (p === path) out.set('/', e);
    else if (p.startsWith(path + '/')) out.set(p.slice(path.length), e);
  }
  return out;
}

/**
 * A new run of the container: a layer over the view's files (the image's,
 * the kubelet's) and its shared volumes' stores (each its own when no
 * stores are given: a container on its own).
 */
export function containerFilesystem(view: ContainerView, volumes: (volume: string, base?: ReadonlyMap<string, FsEntry>) => FileStore = (_, base) => new FileStore(base)): ContainerFilesystem {
  const mounts: Mount[] = [];
  const readOnlyPaths: string[] = [];
  for (const m of view.mounts ?? []) {
    if (m.volume === undefined) {
      readOnlyPaths.push(m.path);
      continue;
    }
    if (m.seeded) {
      mounts.push({ path: m.path, store: volumes(m.volume, seededFiles(view.files, m.path)), root: '/', readOnly: true });
      continue;
    }
    const store = volumes(m.volume);
    const root = m.subPath ? `/${m.subPath}` : '/';
    // The kubelet creates a subPath missing from the volume.
    ensureDir(store, root);
    mounts.push({ path: m.path, store, root, readOnly: m.readOnly });
  }
  // The runtime mounts procfs, over the view's own /proc files (meminfo).
  const proc = new ProcFs(view, seededFiles(view.files, '/proc'));
  mounts.push({ path: '/proc', store: proc, root: '/', readOnly: true });
  // A volume the kubelet writes is its store's: the layer does without its files (and their symlinks).
  const seeded = (view.mounts ?? []).filter((m) => m.seeded).map((m) => m.path);
  const layer = seeded.length ? new Map([...view.files].filter(([p]) => !seeded.some((m) => under(p, m)))) : view.files;
  const fs = new ContainerFilesystem(new FileStore(layer), mounts, readOnlyPaths, view.env);
  proc.attach(fs);
  return fs;
}

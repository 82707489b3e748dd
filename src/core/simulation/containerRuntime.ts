/**
 * The simulated nodes' container runtime (containerd's part of a kubelet):
 * each container the kubelet starts runs its process (containerProcess.ts)
 * on the server clock, and the runtime keeps what it wrote as the CRI's log
 * file does, one entry per line with its time and stream, for `kubectl
 * logs`. A process is deterministic from its container, its view and its
 * start time, so a runtime that has not seen a container (the server
 * restarted) starts it again from its recorded `startedAt` and replays it to
 * where it is now.
 *
 * The runtime runs a process ahead of the clock (up to an hour, within a
 * step budget), so the kubelet knows when it will exit and sleeps until
 * then; what it wrote is revealed only once the clock passes its time.
 */
import type { KubeObject } from '../api/types';
import { observeAheadMs, type ContainerProcess, type ProcessExit, type ProcessOutput } from './containerProcess';
import { startExec } from './containerExec';
import { containerFilesystem, PidNamespace, VolumeStores, type ContainerFilesystem } from './containerFiles';
import { asReader, type FileStore, type StoreRunner } from './fileStore';
import { podContainers, podContainerStatus, type ContainerView } from './containerView';
import type { ProcessChild } from './processIo';

export type { ProcessAdvance, ProcessOutput } from './containerProcess';

/** A running process, driven by its virtual clock (containerProcess.ts); the runtime never asks when it wakes. */
export type RuntimeProcess = Omit<ContainerProcess, 'wakeAt' | 'termExit' | 'trapsTerm' | 'deliverTerm' | 'socketOwner' | 'pid' | 'command' | 'tty' | 'children' | 'signalChild' | 'hangUp' | 'hasOutput' | 'onAnswer'> & Partial<Pick<ContainerProcess, 'termExit' | 'trapsTerm' | 'deliverTerm' | 'pid' | 'command' | 'tty' | 'children' | 'signalChild' | 'hangUp' | 'hasOutput' | 'onAnswer'>>;

/** The process, or why the runtime could not start it (runc's create error). */
export type RuntimeStart = { started: true; process: RuntimeProcess } | { started: false; error: string };

/** One line of a container's log, as the CRI log file keeps it. */
export interface LogEntry {
  /** Its place in the container's log (a follower resumes after the last it sent). */
  seq: number;
  at: number;
  stream: 1 | 2;
  /** The line with its newline; the last may lack one (a partial line). */
  line: string;
}

/**
 * How the runtime makes a container's process: the kubelet's view of the
 * container, and its argv over the image; `filesystem` gives the run's
 * files over that view (its layer and volumes). `replayed`: the kubelet did
 * not start it in this run of the host, which restarted since: its process is
 * replayed from its start.
 */
export type ProcessStarter = (pod: KubeObject, container: string, startedAt: string, filesystem: (view: ContainerView) => ContainerFilesystem, replayed: boolean) => Promise<RuntimeStart>;

/** How far ahead of the clock a process is run (an exit within it is known in advance). */
const lookaheadMs = 3_600_000;
/** Commands run per call, so a loop with no sleep cannot hold the server; it catches up on the next call. */
const stepsPerCall = 200_000;
/** A container's log is kept to its last MiB, as the kubelet rotates it (containerLogMaxSize, smaller here). */
const maxLogBytes = 1 << 20;

/** An exec run to its end (`at`: when it exited), past its timeout, or one that could not start. */
export type ExecSyncResult = { exitCode: number; output: string; at?: number } | { timedOut: true } | { error: string };

/** How the runtime sees a running container for an exec (the kubelet's view of it). */
export type ViewBuilder = (pod: KubeObject, container: string, startedAt: string) => Promise<ContainerView>;

/** ExecSync keeps this much of a probe's output (the kubelet's maxReadLength, 10 KiB). */
const maxProbeOutput = 10 * 1024;
/** The commands an exec probe runs at most before it counts as not ending. */
const probeSteps = 200_000;

export interface ContainerStatusView {
  /** runc could not start the process. */
  error?: string;
  /** Its exit, when it exits (at may be after now: it is known in advance). */
  exit?: ProcessExit;
  /** When to look again: the process has run only to there. */
  checkAt?: number;
}

/** A container's log as of a time. */
export interface ContainerLog {
  entries: LogEntry[];
  /** The process has exited or was stopped by then: nothing more will come. */
  ended: boolean;
  /** When it writes next, when known. */
  next?: number;
}

export interface ContainerRuntime {
  /**
   * StartContainer: the kubelet starts the container now. A container the kubelet asks about without having
   * started it was started before the host restarted, and its process is replayed from its start.
   */
  started(containerID: string): void;
  /** Starts the container's process, or finds it; runs it ahead of `now`; says how and when it ends. */
  status(containerID: string, pod: KubeObject, container: string, startedAt: string, now: number): Promise<ContainerStatusView>;
  /** The log written by `until` (or by its exit or stop, if earlier); undefined when it never started. */
  log(containerID: string, pod: KubeObject, container: string, startedAt: string, until: number): Promise<ContainerLog | undefined>;
  /** The container's process itself (attach feeds its stdin and follows its log). */
  process(containerID: string, pod: KubeObject, container: string, startedAt: string): Promise<RecordedProcess>;
  /** The run's files (its layer over `view`, made on first use, and its volumes), which an exec'd process shares. */
  filesystem(containerID: string, pod: KubeObject, view: ContainerView): ContainerFilesystem;
  /**
   * Runs a command in the running container at `at` as the CRI's ExecSync
   * does for an exec probe: its exit code and output (stdout and stderr as
   * written), or that it did not end within the timeout, or runc's error
   * when it could not start.
   */
  execSync(containerID: string, pod: KubeObject, container: string, startedAt: string, argv: readonly string[], at: number, timeoutMs: number): Promise<ExecSyncResult>;
  /**
   * StopContainer: SIGTERM to the container's process at `at`, SIGKILL (137) at `deadline`; how it ends. A
   * server that shuts down on SIGTERM ends then; a shell that traps it ends as its handler says, once the
   * command it was running is done; a PID 1 without a handler runs on until the SIGKILL. It is stopped then.
   */
  terminate(containerID: string, pod: KubeObject, container: string, startedAt: string, at: number, deadline: number): Promise<{ code: number; at: number }>;
  /** Calls `listener` with a pod's namespace and name when one of its processes gets input; returns the unsubscribe. */
  onInput(listener: (namespace: string, name: string) => void): () => void;
  /** The kubelet stopped the container at `at`: it writes nothing after. */
  stop(containerID: string, at: number): void;
  /** Forgets a pod's containers but those `keep` names (each container's current and previous run, for `--previous`); all of them, and its emptyDirs, when the pod is gone. */
  forgetPod(podUID: string, keep?: (containerID: string) => boolean): void;
  /** A volume's shared files (containerView.ts's VolumeMount.volume) once a container mounted it: the kubelet rewrites a configMap's. */
  volumeStore(volume: string): FileStore | undefined;
}

/**
 * A process and its log: run ahead of the clock within a step budget, what
 * it wrote kept line by line (a write's lines each get its time, a partial
 * line joins the next write), read as of a time. Input reaches a read the
 * process is blocked on; it has not run past such a read, so what it wrote
 * after stays true.
 */
let nextRank = 0;

export class RecordedProcess implements StoreRunner {
  readonly log: LogEntry[] = [];
  exit?: ProcessExit;
  /** When it was stopped (killed): it writes nothing after. */
  stoppedAt?: number;
  private seq = 0;
  private bytes = 0;
  private reached: number;
  /** The furthest time asked of the process (it must never be asked for less). */
  private asked: number;
  /** Input arrived since it last ran: it may go on from a read it waited at. */
  private fed = false;
  /** Told when input arrives (the kubelet looks at the container again: it may now exit). */
  onInput?: () => void;
  /** It is running now (a read of a file it shares runs the others, never itself). */
  private running = false;
  /** Its order among processes acting at the same instant (the order they were made in). */
  readonly rank = nextRank++;

  constructor(readonly start: RuntimeStart, readonly startMs: number) {
    this.reached = this.asked = startMs;
    // An answer from the API server lets it go on now, whatever the clock does: the kubelet looks at it again,
    // as for input, and so does a stream following it (an exec).
    if (start.started)
      start.process.onAnswer = () => {
        this.fed = true;
        this.onInput?.();
        for (const f of this.answerWatchers) f();
      };
  }

  /** Its pid (1: the container's own process) and argv, as ps shows them. */
  get pid(): number {
    return this.start.started ? (this.start.process.pid ?? 1) : 1;
  }

  get command(): readonly string[] {
    return this.start.started ? (this.start.process.command ?? []) : [];
  }

  get tty(): boolean {
    return this.start.started && this.start.process.tty === true;
  }

  get children(): readonly ProcessChild[] {
    return (this.start.started && this.start.process.children) || [];
  }

  get uid(): number | undefined {
    return this.start.started ? this.start.process.uid : undefined;
  }

  /** Whether it runs at `at`: started by then, neither exited nor stopped. */
  runningAt(at: number): boolean {
    if (!this.start.started || at < this.startMs) return false;
    this.run(at, at);
    return !(this.exit && this.exit.at <= at) && !(this.stoppedAt !== undefined && this.stoppedAt <= at);
  }

  /**
   * A signal sent at `at` by a process of its own container (kill): the
   * default action ends a process (SIGTERM 143, SIGINT 130, SIGKILL 137)
   * unless it handles the signal (a server's shutdown, a shell's trap: its
   * code). The namespace's init, pid 1, gets only the signals it handles:
   * the kernel drops the others, SIGKILL included. True when it ended.
   */
  signal(signal: 'TERM' | 'INT' | 'KILL', at: number): boolean {
    if (!this.runningAt(at)) return false;
    if (signal === 'TERM' && this.start.started && this.start.process.trapsTerm?.()) {
      this.deliverTerm(at);
      this.onInput?.();
      return false;
    }
    const handled = signal === 'KILL' ? undefined : this.start.started ? this.start.process.termExit?.() : undefined;
    const code = handled ?? (this.pid === 1 ? undefined : { TERM: 143, INT: 130, KILL: 137 }[signal]);
    if (code === undefined) return false;
    // Stopped first (a stream waiting on it is nudged, and reads on after this returns), then its end.
    this.stop(at);
    this.exit = { code, at };
    this.onInput?.();
    return true;
  }

  /** A signal at `at` to one of its workers (ContainerProcess.signalChild); false when it has none by that pid. */
  signalChild(pid: number, signal: 'TERM' | 'INT' | 'KILL', at: number, newPid: number): boolean {
    if (!this.runningAt(at) || !this.start.started) return false;
    const taken = this.start.process.signalChild?.(pid, signal, at, newPid) ?? false;
    if (taken) this.onInput?.();
    return taken;
  }

  /** SIGHUP at `at` from process `from` (ContainerProcess.hangUp); false when it does not handle it. */
  hangUp(at: number, from: number, nextPid: () => number): boolean {
    if (!this.runningAt(at) || !this.start.started) return false;
    const taken = this.start.process.hangUp?.(at, from, nextPid) ?? false;
    if (taken) this.onInput?.();
    return taken;
  }

  /** A SIGTERM at `at` to a shell that traps it: its handler runs once the command in progress is done, when it is run on. */
  private deliverTerm(at: number): void {
    if (this.start.started) this.start.process.deliverTerm?.(at);
    this.fed = true;
  }

  /** How it ends after SIGTERM at `at` and SIGKILL at `deadline` (ContainerRuntime.terminate); it is run to see. */
  terminate(at: number, deadline: number): { code: number; at: number } {
    const killed = { code: 137, at: deadline };
    if (!this.start.started) return killed;
    // What it does with the signal is what its program set up by then (a server's handler, a shell's trap):
    // its steps at that instant run first, a signal at its start included.
    this.run(at + 1, at);
    if (this.exit && this.exit.at <= at) return this.exit;
    const process = this.start.process;
    const code = process.termExit?.();
    if (code !== undefined) return { code, at };
    if (!process.trapsTerm?.()) return killed;
    this.deliverTerm(at);
    // Nothing but the SIGKILL comes after: it may run to it.
    this.run(deadline, deadline);
    return this.exit && this.exit.at <= deadline ? this.exit : killed;
  }

  /** Runs it up to `until` (or its stop), within the step budget; it looks at the cluster only up to `present`, the server clock. */
  run(until: number, present = until): void {
    if (!this.start.started || this.exit || this.running) return;
    const end = Math.min(until, this.stoppedAt ?? Infinity);
    // Output written from outside its run (a request's access log line) is taken too.
    if (this.reached >= end && !this.fed && !this.start.process.hasOutput?.()) return;
    this.fed = false;
    this.asked = Math.max(this.asked, end);
    this.running = true;
    try {
      const process = this.start.process;
      const step = asReader(this, () => process.advance(this.asked, stepsPerCall, present));
      this.append(step.output);
      this.reached = step.reached;
      if (step.exit) this.exit = step.exit;
    } finally {
      this.running = false;
    }
  }

  /** Another process reads files it shares at `at`: what it wrote by then must be there (and, not `inclusive`, it looks at nothing at `at` itself). */
  runUntil(at: number, inclusive: boolean): void {
    this.run(at, inclusive ? at : at - observeAheadMs - 1);
  }

  get finished(): boolean {
    return !this.start.started || this.exit !== undefined || this.stoppedAt !== undefined;
  }

  /** Until when it has run (its exit, if it has exited): beyond this, a look again is due. */
  get runTo(): number {
    return this.exit ? this.exit.at : this.reached;
  }

  /** Its log as of `until`, run ahead first. */
  read(until: number): ContainerLog {
    this.run(until + lookaheadMs, until);
    const stop = Math.min(this.stoppedAt ?? Infinity, this.exit?.at ?? Infinity);
    const end = Math.min(until, stop);
    // Entries are in time order: the ones written by `end` are a prefix.
    let n = this.log.length;
    while (n > 0 && this.log[n - 1]!.at > end) n--;
    let next = n < this.log.length ? this.log[n]!.at : undefined;
    // It stopped short of the look-ahead (waiting for the server clock before it looks at the cluster or shared files, or out of steps): it goes on from there.
    if (next === undefined && stop === Infinity && this.start.started && this.reached < this.asked) next = Math.max(this.reached, until + 1);
    return { entries: this.log.slice(0, n), ended: until >= stop, ...(next !== undefined && next <= stop ? { next } : stop !== Infinity ? { next: stop } : {}) };
  }

  input(text: string, at: number): void {
    if (!this.start.started) return;
    this.start.process.input(text, at);
    this.fed = true;
    this.onInput?.();
  }

  closeInput(at: number): void {
    if (!this.start.started) return;
    this.start.process.closeInput(at);
    this.fed = true;
    this.onInput?.();
  }

  stop(at: number): void {
    // An earlier stop wins (a kill before the container's known end).
    if ((this.stoppedAt !== undefined && this.stoppedAt <= at) || (this.exit && this.exit.at <= at)) return;
    this.stoppedAt = at;
    if (this.exit && this.exit.at > at) this.exit = undefined;
    for (const f of this.stopWatchers) f();
  }

  private readonly stopWatchers = new Set<() => void>();
  private readonly answerWatchers = new Set<() => void>();

  /** Calls `f` when it is stopped (a stream waiting on it looks again); returns the unsubscribe. */
  onStop(f: () => void): () => void {
    this.stopWatchers.add(f);
    return () => this.stopWatchers.delete(f);
  }

  /** Calls `f` when an answer it waited for has come (a stream waiting on it looks again); returns the unsubscribe. */
  onAnswered(f: () => void): () => void {
    this.answerWatchers.add(f);
    return () => this.answerWatchers.delete(f);
  }

  private append(output: ProcessOutput[]): void {
    for (const o of output) {
      let text = o.text;
      const last = this.log[this.log.length - 1];
      if (last && !last.line.endsWith('\n') && last.stream === o.stream) {
        const nl = text.indexOf('\n');
        const head = nl < 0 ? text : text.slice(0, nl + 1);
        last.line += head;
        this.bytes += head.length;
        text = text.slice(head.length);
      }
      for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
        this.log.push({ seq: this.seq++, at: o.at, stream: o.stream, line });
        this.bytes += line.length;
      }
    }
    let drop = 0;
    while (this.bytes > maxLogBytes && drop < this.log.length) this.bytes -= this.log[drop++]!.line.length;
    if (drop) this.log.splice(0, drop);
  }
}

export function newContainerRuntime(startProcess: ProcessStarter, viewOf?: ViewBuilder): ContainerRuntime {
  const instances = new Map<string, Promise<RecordedProcess>>();
  /** Each run's files (its layer and mounts), by container id. */
  const filesystems = new Map<string, ContainerFilesystem>();
  const volumes = new VolumeStores();
  /** Each run's view for its exec probes, made once. */
  const views = new Map<string, Promise<ContainerView>>();
  /** The processes the kubelet has looked at. */
  const looked = new WeakSet<RecordedProcess>();
  /** Each container's pod, by uid. */
  const owners = new Map<string, string>();
  /** The containers the kubelet started in this run of the host. */
  const startedHere = new Set<string>();

  /** The pods' shared PID namespaces (shareProcessNamespace), by pod uid. */
  const podPidNamespaces = new Map<string, PidNamespace>();

  function filesystem(containerID: string, pod: KubeObject, view: ContainerView): ContainerFilesystem {
    let fs = filesystems.get(containerID);
    if (!fs) {
      filesystems.set(containerID, (fs = containerFilesystem(view, (volume, base) => volumes.store(volume, base))));
      owners.set(containerID, pod.metadata.uid ?? '');
      const pids = pidNamespaceFor(pod, view.container);
      if (pids) fs.shareNamespace(pids);
    }
    return fs;
  }

  /**
   * The PID namespace a container's run joins: its pod's when the pod shares
   * one (the sandbox's, pause as pid 1), its target's for an ephemeral
   * container with targetContainerName (`kubectl debug --target`), else none.
   */
  function pidNamespaceFor(pod: KubeObject, container: string): PidNamespace | undefined {
    const uid = pod.metadata.uid ?? '';
    if ((pod['spec'] as Record<string, unknown> | undefined)?.['shareProcessNamespace'] === true) {
      let shared = podPidNamespaces.get(uid);
      if (!shared) podPidNamespaces.set(uid, (shared = new PidNamespace(true)));
      return shared;
    }
    const target = podContainers(pod).find((c) => c['name'] === container)?.['targetContainerName'];
    if (typeof target !== 'string') return undefined;
    const targetRun = filesystems.get(String(podContainerStatus(pod, target)?.['containerID'] ?? ''));
    if (!targetRun) return undefined;
    if (!targetRun.pidNamespace) targetRun.shareNamespace(new PidNamespace(false));
    return targetRun.pidNamespace;
  }
  const listeners = new Set<(namespace: string, name: string) => void>();

  function instanceOf(containerID: string, pod: KubeObject, container: string, startedAt: string): Promise<RecordedProcess> {
    let found = instances.get(containerID);
    if (!found) {
      const key = { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' };
      found = startProcess(pod, container, startedAt, (view) => filesystem(containerID, pod, view), !startedHere.has(containerID)).then((start) => {
        const recorded = new RecordedProcess(start, Date.parse(startedAt));
        recorded.onInput = () => listeners.forEach((l) => l(key.namespace, key.name));
        filesystems.get(containerID)?.join(recorded);
        return recorded;
      });
      instances.set(containerID, found);
      owners.set(containerID, pod.metadata.uid ?? '');
      found.catch(() => {
        instances.delete(containerID);
        owners.delete(containerID);
      });
    }
    return found;
  }

  return {
    started(containerID) {
      startedHere.add(containerID);
    },
    async status(containerID, pod, container, startedAt, now) {
      const instance = await instanceOf(containerID, pod, container, startedAt);
      if (!instance.start.started) return { error: instance.start.error };
      // A container sharing volumes is first run only to its start: the pod's other containers, started at the
      // same instant, are made before it looks ahead at what they write.
      const first = !looked.has(instance);
      looked.add(instance);
      instance.run(first && filesystems.get(containerID)?.mounts.length ? now : now + lookaheadMs, now);
      // The processes exec'd into the container end with its own.
      if (instance.exit) filesystems.get(containerID)?.stop(instance.exit.at);
      if (instance.exit) return { exit: instance.exit };
      return instance.runTo < now + lookaheadMs && instance.stoppedAt === undefined ? { checkAt: instance.runTo } : {};
    },
    async log(containerID, pod, container, startedAt, until) {
      const instance = await instanceOf(containerID, pod, container, startedAt);
      return instance.start.started ? instance.read(until) : undefined;
    },
    process: instanceOf,
    filesystem,
    async execSync(containerID, pod, container, startedAt, argv, at, timeoutMs) {
      let view = views.get(containerID);
      if (!view) {
        if (!viewOf) return { exitCode: 0, output: '' };
        views.set(containerID, (view = viewOf(pod, container, startedAt)));
        view.catch(() => views.delete(containerID));
      }
      const files = filesystem(containerID, pod, await view);
      // The probe's process gets the environment the run started with.
      const start = startExec({ ...(await view), env: [...(files.env ?? (await view).env)] }, argv, at, { stdin: false, tty: false, files });
      if (!start.started) return { error: start.error };
      const step = start.process.advance(at + timeoutMs, probeSteps);
      if (!step.exit) return { timedOut: true };
      return { exitCode: step.exit.code, output: step.output.map((o) => o.text).join('').slice(0, maxProbeOutput), at: step.exit.at };
    },
    async terminate(containerID, pod, container, startedAt, at, deadline) {
      const instance = await instanceOf(containerID, pod, container, startedAt);
      const ended = instance.terminate(at, deadline);
      instance.stop(ended.at);
      return ended;
    },
    onInput(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop(containerID, at) {
      void instances.get(containerID)?.then((instance) => instance.stop(at));
      // The processes exec'd into it end with it.
      filesystems.get(containerID)?.stop(at);
    },
    forgetPod(podUID, keep) {
      for (const [id, owner] of owners) {
        if (owner !== podUID || keep?.(id)) continue;
        owners.delete(id);
        startedHere.delete(id);
        instances.delete(id);
        const fs = filesystems.get(id);
        if (fs) fs.pidNamespace?.runs.delete(fs);
        filesystems.delete(id);
        views.delete(id);
      }
      if (!keep) {
        volumes.forgetPod(podUID);
        podPidNamespaces.delete(podUID);
      }
    },
    volumeStore: (volume) => volumes.existing(volume),
  };
}

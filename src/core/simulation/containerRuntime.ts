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

/** What a process wrote, at a time on the server clock (ms since the epoch); stream 1 is stdout, 2 stderr. */
export interface ProcessOutput {
  at: number;
  stream: 1 | 2;
  text: string;
}

export interface ProcessAdvance {
  output: ProcessOutput[];
  exit?: { code: number; at: number };
  /** The time the process has run to: the time asked for, unless its step budget ran out first. */
  reached: number;
}

/** A running process, driven by its virtual clock (containerProcess.ts). */
export interface RuntimeProcess {
  advance(until: number, maxSteps?: number): ProcessAdvance;
  input(text: string, at: number): void;
  closeInput(at: number): void;
}

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

/** How the runtime makes a container's process: the kubelet's view of the container, and its argv over the image. */
export type ProcessStarter = (pod: KubeObject, container: string, startedAt: string) => Promise<RuntimeStart>;

/** How far ahead of the clock a process is run (an exit within it is known in advance). */
const lookaheadMs = 3_600_000;
/** Commands run per call, so a loop with no sleep cannot hold the server; it catches up on the next call. */
const stepsPerCall = 200_000;
/** A container's log is kept to its last MiB, as the kubelet rotates it (containerLogMaxSize, smaller here). */
const maxLogBytes = 1 << 20;

interface Instance {
  start: RuntimeStart;
  seq: number;
  log: LogEntry[];
  logBytes: number;
  exit?: { code: number; at: number };
  reached: number;
  /** When the kubelet stopped it (a killed container exits then). */
  stoppedAt?: number;
}

export interface ContainerStatusView {
  /** runc could not start the process. */
  error?: string;
  /** Its exit, when it exits (at may be after now: it is known in advance). */
  exit?: { code: number; at: number };
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
  /** Starts the container's process, or finds it; runs it ahead of `now`; says how and when it ends. */
  status(containerID: string, pod: KubeObject, container: string, startedAt: string, now: number): Promise<ContainerStatusView>;
  /** The log written by `until` (or by its exit or stop, if earlier); undefined when it never started. */
  log(containerID: string, pod: KubeObject, container: string, startedAt: string, until: number): Promise<ContainerLog | undefined>;
  /** The kubelet stopped the container at `at`: it writes nothing after. */
  stop(containerID: string, at: number): void;
  /** Forgets a pod's containers but those `keep` names (each container's current and previous run, for `--previous`); all of them when the pod is gone. */
  forgetPod(podUID: string, keep?: (containerID: string) => boolean): void;
}

/** Appends what was written to the log, line by line: a write's lines each get its time, a partial line joins the next write. */
function append(instance: Instance, output: ProcessOutput[]): void {
  for (const o of output) {
    let text = o.text;
    const last = instance.log[instance.log.length - 1];
    if (last && !last.line.endsWith('\n') && last.stream === o.stream) {
      const nl = text.indexOf('\n');
      const head = nl < 0 ? text : text.slice(0, nl + 1);
      last.line += head;
      instance.logBytes += head.length;
      text = text.slice(head.length);
    }
    for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
      instance.log.push({ seq: instance.seq++, at: o.at, stream: o.stream, line });
      instance.logBytes += line.length;
    }
  }
  let drop = 0;
  while (instance.logBytes > maxLogBytes && drop < instance.log.length) instance.logBytes -= instance.log[drop++]!.line.length;
  if (drop) instance.log.splice(0, drop);
}

export function newContainerRuntime(startProcess: ProcessStarter): ContainerRuntime {
  const instances = new Map<string, Promise<Instance>>();
  /** Each container's pod, by uid. */
  const owners = new Map<string, string>();

  function instanceOf(containerID: string, pod: KubeObject, container: string, startedAt: string): Promise<Instance> {
    let found = instances.get(containerID);
    if (!found) {
      found = startProcess(pod, container, startedAt).then((start) => ({ start, seq: 0, log: [], logBytes: 0, reached: Date.parse(startedAt) }));
      instances.set(containerID, found);
      owners.set(containerID, pod.metadata.uid ?? '');
      found.catch(() => {
        instances.delete(containerID);
        owners.delete(containerID);
      });
    }
    return found;
  }

  /** Runs the process up to `until` (or its stop), within the step budget. */
  function run(instance: Instance, until: number): void {
    if (!instance.start.started || instance.exit) return;
    const end = Math.min(until, instance.stoppedAt ?? Infinity);
    if (instance.reached >= end) return;
    const step = instance.start.process.advance(end, stepsPerCall);
    append(instance, step.output);
    instance.reached = step.reached;
    if (step.exit) instance.exit = step.exit;
  }

  return {
    async status(containerID, pod, container, startedAt, now) {
      const instance = await instanceOf(containerID, pod, container, startedAt);
      if (!instance.start.started) return { error: instance.start.error };
      run(instance, now + lookaheadMs);
      if (instance.exit) return { exit: instance.exit };
      return instance.reached < now + lookaheadMs && instance.stoppedAt === undefined ? { checkAt: instance.reached } : {};
    },
    async log(containerID, pod, container, startedAt, until) {
      const instance = await instanceOf(containerID, pod, container, startedAt);
      if (!instance.start.started) return undefined;
      run(instance, until + lookaheadMs);
      const stop = Math.min(instance.stoppedAt ?? Infinity, instance.exit?.at ?? Infinity);
      const end = Math.min(until, stop);
      // Entries are in time order: the ones written by `end` are a prefix.
      let n = instance.log.length;
      while (n > 0 && instance.log[n - 1]!.at > end) n--;
      const next = n < instance.log.length ? instance.log[n]!.at : undefined;
      return { entries: instance.log.slice(0, n), ended: until >= stop, ...(next !== undefined && next <= stop ? { next } : stop !== Infinity ? { next: stop } : {}) };
    },
    stop(containerID, at) {
      void instances.get(containerID)?.then((instance) => {
        if (instance.stoppedAt === undefined && !(instance.exit && instance.exit.at <= at)) {
          instance.stoppedAt = at;
          if (instance.exit && instance.exit.at > at) instance.exit = undefined;
        }
      });
    },
    forgetPod(podUID, keep = () => false) {
      for (const [id, owner] of owners) {
        if (owner !== podUID || keep(id)) continue;
        owners.delete(id);
        instances.delete(id);
      }
    },
  };
}

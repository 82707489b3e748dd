/**
 * The simulated kubelet's exec endpoint (/exec/<ns>/<pod>/<container>): a
 * running container of a pod on a simulated node runs the command as a
 * process of its own (containerProcess.ts) over what the container sees
 * (containerView.ts), streamed as it runs (processStream.ts): its output as
 * the server clock reaches it, its input as it comes. The answers of a real
 * kubelet otherwise: a container that is not running is `container not
 * found`, a command that cannot start runc's error in an InternalError, and
 * the command's end is the Status the kubelet writes on the error channel
 * (remotecommand ServeExec).
 */
import type { KubeObject } from '../api/types';
import { isObject } from '../api/types';
import type { CoreObjectGetter } from '../registry/core/podLocation';
import type { ProcessStreamSession, StreamOptions, StreamSession } from '../http/upgrade';
import type { Clock } from '../util/clock';
import { processStreamSession, type ProcessStreamOptions } from './processStream';
import { containerView, podContainers, podContainerStatus, runningContainer, type ContainerView, type ContainerViewSource } from './containerView';
import { lineShell, startExec } from './containerExec';
import { containerArgv } from './containerProcess';
import { imageFor } from './image';
import { replInterrupt } from './interpreterRepl';
import { isKubeletStopped, isSimulatedNode } from './nodes';
import { RecordedProcess, type ContainerRuntime } from './containerRuntime';
import type { ClusterNetwork } from './clusterNetwork';
import type { ProberResults } from './proberResults';

/** What the simulated kubelets read besides single objects, and how they get tokens. */
export type SimulatedKubeletSource = Omit<ContainerViewSource, 'get'> & {
  /** Every pod the server stores (a kubelet's /pods and stats keep its node's). */
  listPods(): Promise<KubeObject[]>;
  now(): Date;
  /** Sleeps on the server clock (an exec'd `sleep 2` takes 2 s of it). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Random hex for the runtime's exec ids. */
  randomHex(length: number): string;
  /** The nodes' container runtime: the containers' processes and their logs. */
  runtime: ContainerRuntime;
  /** What the containers' network sees (kept current by startNodeSimulation's informers). */
  network: ClusterNetwork;
  /** The kubelets' probe result counts (/metrics/probes). */
  proberResults: ProberResults;
};

const success = { metadata: {}, status: 'Success' };


/** The kubelet's NonZeroExitCode Status: kubectl prints `command terminated with exit code N` and exits with it. */
function nonZeroExit(command: string[], code: number): Record<string, unknown> {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** apierrors.NewInternalError of the runtime's error, as the kubelet writes a command that did not start. */
function internalError(message: string): Record<string, unknown> {
  const text = `error executing command in container: ${message}`;
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${text}`, reason: 'InternalError', details: { causes: [{ message: text }] }, code: 500 };
}

/**
 * What an exec'd command does on its terminal's ^C: an interactive shell
 * starts a new line, a REPL says so first; any other program dies of it,
 * busybox nc after its handler's `punt!`.
 */
function sigintOf(view: ContainerView, command: string[]): ProcessStreamOptions['sigint'] {
  if (lineShell(view, command, () => new Date())) return { handles: '\n' };
  const repl = replInterrupt(command);
  if (repl !== undefined) return { handles: repl };
  return { dies: command[0]?.replace(/^.*\//, '') === 'nc' ? 'punt!\n' : '' };
}

/**
 * What a container's own process (PID 1) does on its terminal's ^C: a shell
 * reading commands or a REPL handles it; any other ignores it, as the
 * kernel spares a namespace's init the signals it has no handler for.
 */
function mainSigint(container: Record<string, unknown>): ProcessStreamOptions['sigint'] {
  const image = imageFor(String(container['image'] ?? ''));
  const argv = containerArgv(container, image, new Map());
  const name = argv[0]?.replace(/^.*\//, '') ?? '';
  if (/^(sh|ash|bash|dash)$/.test(name) && !argv.slice(1).some((a) => !/^-[a-z]+$/.test(a) || a.includes('c'))) return { handles: '\n' };
  const repl = replInterrupt(argv);
  return repl !== undefined ? { handles: repl } : { ignored: true };
}

/**
 * An exec'd process's environment: the container's as it started (the
 * runtime's process spec; env and envFrom sources edited since do not
 * show), with the TERM a terminal adds.
 */
function runEnv(started: readonly [string, string][] | undefined, current: [string, string][], tty: boolean): [string, string][] {
  if (!started) return current;
  const env = [...started];
  if (tty && !env.some(([k]) => k === 'TERM')) env.splice(Math.min(2, env.length), 0, ['TERM', 'xterm']);
  return env;
}

/**
 * The pod's node's kubelet answering exec: undefined when no simulated
 * kubelet serves the node (it is not simulated, or its kubelet is stopped),
 * a Response when it refuses, else the session to run.
 */
export async function simulatedExec(get: CoreObjectGetter, source: SimulatedKubeletSource, pod: KubeObject, container: string, options: StreamOptions, command: string[]): Promise<StreamSession | Response | undefined> {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const node = await get('nodes', '', String(spec['nodeName'] ?? ''));
  if (!isSimulatedNode(node) || isKubeletStopped(node)) return undefined;
  const running = runningContainer(pod, container);
  const status = podContainerStatus(pod, container);
  // streaming.WriteError of GetExec's error: 500, the error's text.
  if (!running || !status) return new Response(`container not found (${JSON.stringify(container)})`, { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const view = await containerView({ ...source, get }, pod, container, { tty: options.tty, startedAt: running.startedAt });
  const statusFor = (code: number) => (code === 0 ? success : nonZeroExit(command, code));
  const now = source.now().getTime();
  // The exec'd process streams as it runs: its output as the clock reaches it, its input as it comes (a shell's prompts included).
  // It shares the container's files with its other processes: the run's layer and its volumes.
  const files = source.runtime.filesystem(String(status['containerID']), pod, view);
  const start = startExec({ ...view, env: runEnv(files.env, view.env, options.tty) }, command, now, { stdin: options.stdin, tty: options.tty, files });
  if (start.started) {
    const recorded = new RecordedProcess(start, now);
    files.join(recorded);
    const clock = { now: () => source.now(), sleep: (ms: number, signal?: AbortSignal) => source.sleep(ms, signal) };
    // The sockets it listens on close when it ends (not a daemon it started).
    const owner = start.process.socketOwner;
    return processStreamSession(clock, options, recorded, { statusFor, sigint: sigintOf(view, command), onEnd: (at) => source.network.closeOwnedBy(owner, at) });
  }
  const error = internalError(`failed to exec in container: failed to start exec ${JSON.stringify(source.randomHex(64))}: ${start.error}`);
  return { options, readsStdin: false, statusFor, run: async () => ({ stdout: '', stderr: '', status: error }) };
}

/**
 * The kubelet's attach: the running container's own process, its output
 * from now on and the client's input to its stdin (when the container has
 * one; its terminal when it has one). A client leaving a `stdinOnce`
 * container closes its stdin, as the runtime does after the first attach.
 */
export async function simulatedAttach(get: CoreObjectGetter, source: SimulatedKubeletSource, clock: Clock, pod: KubeObject, container: string, options: StreamOptions): Promise<ProcessStreamSession | Response | undefined> {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const node = await get('nodes', '', String(spec['nodeName'] ?? ''));
  if (!isSimulatedNode(node) || isKubeletStopped(node)) return undefined;
  const running = runningContainer(pod, container);
  const status = podContainerStatus(pod, container);
  if (!running || !status) return new Response(`container not found (${JSON.stringify(container)})`, { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const c = podContainers(pod).find((x) => x['name'] === container) ?? {};
  const recorded = await source.runtime.process(String(status['containerID']), pod, container, running.startedAt);
  const streams = { ...options, stdin: options.stdin && c['stdin'] === true, tty: options.tty && c['tty'] === true };
  return processStreamSession(clock, streams, recorded, { fromNow: true, statusFor: () => success, closeInputOnDetach: c['stdinOnce'] === true, sigint: mainSigint(c) });
}

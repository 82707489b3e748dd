/**
 * What a simulated container's image gives it: the image config's
 * Entrypoint, Cmd, WorkingDir, Env and User (what the runtime combines with
 * the container's command and args), the shell tools on its PATH, and the
 * image's own programs (a server, a script) with what they do. An image
 * kubesim does not know has every shell tool, no entrypoint and no programs
 * of its own: its process runs until it is stopped.
 */
import { catalogImage } from './imageCatalog';
import type { FsEntry } from './containerView';
import type { Run } from './containerTools';
import type { InterpreterIo } from './interpreterRepl';
import type { ImageOs } from './packageTools';
import type { ProcessChild, WorkerReload, WorkerRespawn } from './processIo';

/** What one of the image's programs does when it runs: what it writes, then whether it exits. */
export interface ImageProgramRun {
  /** Written at the program's start, in order; stream 1 is stdout, 2 stderr. */
  output: { stream: 1 | 2; text: string }[];
  /** The code it exits with once written; undefined: it runs until it is stopped (a server). */
  exitCode?: number;
  /** The ports a server listens on while it runs, each with its answer to what a client sends at a time. */
  listens?: {
    port: number;
    respond(request: string, at: number, from?: string): string;
    /** Its bound addresses (netstat's `0.0.0.0`, `::`); default IPv4's any. */
    addresses?: readonly string[];
    /** The line the server logs on stdout for an exchange (an access log), if it logs one. */
    accessLog?(request: string, answer: string, at: number, from: string | undefined): string | undefined;
    /** The cpu milliseconds each request costs it (serverLoad.ts: what `kubectl top` and an HPA then see); none when it is light. */
    cpuMsPerRequest?: number;
  }[];
  /** A server's own timer (CoreDNS's reload check): every `ms` while it runs, it writes what `tick` returns for that time. */
  every?: { ms: number; tick(at: number): { stream: 1 | 2; text: string }[] };
  /** It reads its stdin to the end before it exits. */
  readsStdin?: boolean;
  /** Then it runs over its stdin as a program of its own (an interpreter given no script: its REPL on a terminal); its code is the exit code. */
  interpreter?: (io: InterpreterIo) => Run<number>;
  /** The processes it forks that run beside it (nginx's workers), as ps shows them. */
  workers?: readonly ProcessChild[];
  /** It starts another worker when one ends (a signal from inside the container), logging both. */
  respawn?: WorkerRespawn;
  /** On SIGHUP it reloads: new workers in place of the old, logged. */
  reload?: WorkerReload;
  /** The title it gives its process (setproctitle), which ps shows as its command: nginx's `nginx: master process nginx -g daemon off;`. */
  title?: string;
  /** Then it execs argv (an entrypoint script's `exec "$@"`), found on PATH; when it is not, the script writes notFound to stderr and exits 127. */
  exec?: { argv: readonly string[]; notFound: string };
  /** It grew past the container's memory limit at its start: the kernel's OOM killer ends it (exitCode 137, reason OOMKilled). */
  oomKilled?: boolean;
  /** Running until stopped, it ignores SIGTERM (a PID 1 without a handler): only the SIGKILL after the grace period ends it. */
  ignoresTerm?: boolean;
  /** It works for a while, then writes `output` and exits with exitCode (a load generator's --timeout). */
  endsAfter?: { ms: number; output: { stream: 1 | 2; text: string }[] };
}

/** What a program uses while it runs: cpu in nanocores, memory in bytes (what `kubectl top` then shows, within the limits). */
export interface ProgramDemand {
  cpuNano?: bigint;
  memoryBytes?: bigint;
}

/** What an image program sees beside its arguments and environment. */
export interface ImageProgramContext {
  /** The process's clock, ms since the epoch (for the timestamps servers log). */
  now: number;
  hostname: string;
  /** Its pid (what a server names itself in its log: nginx's `1#1`). */
  pid?: number;
  /** The pod's IP, as /etc/hosts gives it. */
  podIP?: string;
  /** The container's files as they are at a time (what a server sends from its document root). */
  files?: (at: number) => ReadonlyMap<string, FsEntry>;
  /** The container's memory limit in bytes, as its cgroup enforces it; absent: none. */
  memoryLimitBytes?: number;
}

/** One of the image's own programs, at its path in the image. */
export interface ImageProgram {
  run(args: readonly string[], env: ReadonlyMap<string, string>, context: ImageProgramContext): ImageProgramRun;
  /** What it uses with these arguments, when it is a load of its own (a stress tool); absent: a program's idle use. */
  demand?(args: readonly string[]): ProgramDemand;
}

export interface SimulatedImage {
  entrypoint: readonly string[];
  cmd: readonly string[];
  /** The image's WorkingDir; '' for its default, `/`. */
  workingDir: string;
  /** Env the image sets, under the container's. */
  env: readonly [string, string][];
  /** The image's USER as a uid, when it sets one. */
  user?: number;
  /** The version of busybox that provides its tools, in a busybox image (its applets differ between releases). */
  busybox?: string;
  /** The BIND release of the dnsutils it ships (nslookup, dig), in an image built with them. */
  bind?: string;
  /** The shell tools (containerExec.ts's programs) it has on its PATH; undefined: all of them. */
  tools?: readonly string[];
  /** Its own programs by absolute path (a bare name is looked up on PATH among them). */
  programs: ReadonlyMap<string, ImageProgram>;
  /** Files of its own (a web root's pages), by absolute path: their text, mode 0644. */
  files?: ReadonlyMap<string, string>;
  /** The distribution it is built on (its /etc/os-release, its package manager's mirror and release). */
  os?: ImageOs;
}

/** An image kubesim knows nothing of: every tool, no entrypoint, nothing of its own. */
export const unknownImage: SimulatedImage = { entrypoint: [], cmd: [], workingDir: '', env: [], programs: new Map() };

/** Whether kubesim knows nothing of the image (its programs may be anything). */
export const isUnknownImage = (image: SimulatedImage): boolean => image === unknownImage;

/** Whether a container runs an image kubesim knows nothing of with no command of its own: what its process does is not seen. */
export const isOpaqueContainer = (container: Readonly<Record<string, unknown>>): boolean =>
  isUnknownImage(imageFor(String(container['image'] ?? ''))) && container['command'] === undefined && container['args'] === undefined;

/** The simulated image for a container's image reference: the catalog's, else the unknown image. */
export function imageFor(image: string): SimulatedImage {
  return catalogImage(image) ?? unknownImage;
}

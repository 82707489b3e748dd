/**
 * A simulated process's file descriptors 0-2: where its programs write (the
 * process's own stdout and stderr, stamped by containerProcess.ts; a pipe or
 * `$( )` capture; a file of the process's copy of the container's files;
 * /dev/null) and where they read (the process's stdin, a text, nothing), and
 * what its programs share (the container, its files, its clock).
 */
import type { ContainerView, FsEntry } from './containerView';
import { writeFile, type Run } from './containerTools';

/** A process a program forked that runs beside it under a title of its own (nginx's worker processes). */
export interface ProcessChild {
  readonly pid: number;
  readonly title: string;
  readonly user: string;
  readonly uid: number;
}

/** A master's log lines for a worker ended by a signal and the one started in its place, at a time. */
export type WorkerRespawn = (worker: ProcessChild, signal: 'TERM' | 'INT' | 'KILL', newPid: number, at: number) => string;

/** A master's log lines for a SIGHUP from process `from`: its old workers replaced by ones of these pids (a reload). */
export type WorkerReload = (workers: readonly ProcessChild[], newPids: readonly number[], from: number, at: number) => string;

/** What a process's programs share: the container, its files, the clock and the process's own output. */
export interface ProcessHost {
  view: ContainerView;
  files: Map<string, FsEntry>;
  now(): number;
  /** Writes to the process's stdout (1) or stderr (2), stamped at the current time. */
  emit(stream: 1 | 2, text: string): void;
  /** Writes at a given time from outside the process's own run (a server's access log line for a request that came then). */
  emitAt?(stream: 1 | 2, text: string, at: number): void;
  /** $RANDOM's next value (0-32767). */
  random(): number;
  /** Its pid in its PID namespace (1: the container's own process, unless the namespace is shared). */
  readonly pid?: number;
  nextPid(): number;
  /** Its stdin is a terminal (an interpreter then runs its REPL). */
  tty?: boolean;
  /**
   * What /proc/<pid>/cmdline (ps's COMMAND) holds when it is no longer the
   * argv the process started with: the argv of a program it exec'd (an
   * entrypoint's `exec "$@"`), or the title a server gave itself (nginx's
   * `nginx: master process ...`).
   */
  cmdline?: readonly string[];
  /** The processes its program forked and runs beside it (ps lists them as its children). */
  children?: readonly ProcessChild[];
  /** A server that starts a new worker when one ends (nginx's master): what it logs for the worker's end and its replacement's start. */
  respawnWorker?: WorkerRespawn;
  /** A server that reloads on SIGHUP, starting new workers: what it logs. */
  reloadWorkers?: WorkerReload;
  /** The code it exits with on SIGTERM (a server that shuts down on it); unset: it ignores it, as a PID 1 without a handler does. */
  termExit?: number;
  /** A shell traps SIGTERM: the signal is delivered to it (pendingTerm) and its handler runs after the command in progress. */
  trapsTerm?: boolean;
  /** When a SIGTERM not handled yet arrived. */
  pendingTerm?: number;
  /**
   * It runs a background job (run in turn here) while trapping SIGTERM: the signal cuts its waits short, as a
   * shell's `wait` for a background job returns on a trapped signal (`sleep 3600 & wait`).
   */
  interruptible?: boolean;
  /**
   * Set on a container's process the runtime started again from its start after the host restarted: until this
   * time (the host's start) it is replayed, and what it did then it did in the host's previous run.
   */
  replayedUntil?: number;
  /** The kernel killed it for a reason of its own: its memory outgrew the container's limit. */
  exitReason?: 'OOMKilled';
}

/** Where a descriptor writes. */
export type Sink = { kind: 'stream'; stream: 1 | 2 } | { kind: 'buffer'; chunks: string[] } | { kind: 'file'; path: string } | { kind: 'null' };
/** Where standard input reads from: the process's stdin, a text (a pipe, a file, a here-document) or nothing. */
export type Source = { kind: 'stdin' } | { kind: 'text'; text: string; pos: number } | { kind: 'null' };
export interface Io {
  in: Source;
  out: Sink;
  err: Sink;
}

export function write(host: ProcessHost, sink: Sink, text: string): void {
  if (!text) return;
  switch (sink.kind) {
    case 'stream':
      host.emit(sink.stream, text);
      return;
    case 'buffer':
      sink.chunks.push(text);
      return;
    case 'file':
      writeFile(host.files, sink.path, text, true);
      return;
    case 'null':
      return;
  }
}

/** The next piece of input: a line from the process's stdin, the rest of a text. */
export function* readChunk(source: Source): Run<string | undefined> {
  if (source.kind === 'null') return undefined;
  if (source.kind === 'stdin') return yield { kind: 'read' };
  if (source.pos >= source.text.length) return undefined;
  const rest = source.text.slice(source.pos);
  source.pos = source.text.length;
  return rest;
}

/** One line (with its newline when it has one), undefined at the end. */
export function* readLine(source: Source): Run<string | undefined> {
  if (source.kind !== 'text') return yield* readChunk(source);
  if (source.pos >= source.text.length) return undefined;
  const nl = source.text.indexOf('\n', source.pos);
  const end = nl < 0 ? source.text.length : nl + 1;
  const line = source.text.slice(source.pos, end);
  source.pos = end;
  return line;
}

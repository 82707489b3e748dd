/**
 * A simulated container's process on a virtual clock: the container's main
 * process (its command and args over the image's Entrypoint and Cmd) or an
 * exec'd one, run by the shell interpreter and the tools as a generator and
 * stepped to a time. Each command it runs costs a millisecond (so a loop
 * without `sleep` still moves), `sleep` moves its clock, and what it writes
 * is stamped with the time it wrote it. Given the same view, argv, start,
 * seed and input, it writes the same things at the same times: a kubelet
 * can replay it from its start after a restart.
 */
import { expandEnv, type ContainerView } from './containerView';
import { containerFilesystem, type ContainerFilesystem } from './containerFiles';
import type { SimulatedImage } from './image';
import type { ProcessChild, ProcessHost, Source } from './processIo';
import { lookUp, type Found } from './programLookup';
import { runProgram, StackOverflow } from './shellInterpreter';
import type { Effect, Run } from './containerTools';

export interface ProcessOutput {
  /** Virtual ms since the epoch. */
  at: number;
  stream: 1 | 2;
  text: string;
}

/** How a process ended: its code, when, and the kernel's reason when it killed it (`OOMKilled`). */
export interface ProcessExit {
  code: number;
  at: number;
  reason?: 'OOMKilled';
}

export interface ProcessAdvance {
  /** What it wrote since the last call, in order. */
  output: ProcessOutput[];
  /** Its exit, once it happened (then in every later answer too). */
  exit?: ProcessExit;
  /** The time it has run to: `until`, or earlier when the step budget stopped it. */
  reached: number;
}

export interface ContainerProcess {
  /**
   * Runs until its virtual clock reaches `until` (ms since epoch), it exits,
   * or `maxSteps` commands ran (a loop with no sleep must not hang the
   * server); returns what it wrote since the last call (each write with its
   * time), its exit once it happened, and the time it has run to (`reached`
   * = until, unless the step budget stopped it earlier; a process blocked
   * reading input or running forever reaches `until`). `until` never
   * decreases between calls. `present` is the server clock: a process about
   * to look at the cluster (`observe`) later than that (and observeAheadMs)
   * waits there, and has reached only its own clock.
   */
  advance(until: number, maxSteps?: number, present?: number): ProcessAdvance;
  /** Input on its stdin at a time (attach, later); a read blocked before `at` resumes at `at`. */
  input(text: string, at: number): void;
  /** End of its stdin. */
  closeInput(at: number): void;
  /** When it next has something to do without input (the end of its sleep, or now when busy); undefined when it waits for input, runs until stopped, or has exited. */
  wakeAt(): number | undefined;
  /** The code it exits with on SIGTERM now; undefined: it ignores it (a PID 1 without a handler), and only SIGKILL ends it. */
  termExit(): number | undefined;
  /** Whether it traps SIGTERM (a shell's `trap ... TERM`): the signal is then delivered (deliverTerm), and what it does is its handler's doing. */
  trapsTerm?(): boolean;
  /** A SIGTERM arrives at `at`; its handler runs once the command in progress at that time is done. */
  deliverTerm?(at: number): void;
  /** It holds output not yet taken by advance (written from outside its run: a server's access log). */
  hasOutput(): boolean;
  /** What the sockets it listens on are registered under (its view of the files): they close when it ends. */
  readonly socketOwner: object;
  /** Its pid in the container's PID namespace (1 for the container's own process). */
  readonly pid: number;
  /** The argv it was started with, as /proc/<pid>/cmdline has it (ps's COMMAND). */
  readonly command: readonly string[];
  /** Whether it runs on a terminal (ps's TTY). */
  readonly tty: boolean;
  /** Its user: the container's runAsUser, else the image's USER (ps's USER, for a process of another container). */
  readonly uid?: number;
  /** The processes its program forked that run beside it. */
  readonly children?: readonly ProcessChild[];
  /** A signal to one of those, which its master may replace (VirtualProcess.signalChild). */
  signalChild?(pid: number, signal: 'TERM' | 'INT' | 'KILL', at: number, newPid: number): boolean;
  /** SIGHUP from process `from` (VirtualProcess.hangUp). */
  hangUp?(at: number, from: number, nextPid: () => number): boolean;
  /** Called when an answer it waits for (an `await`) has come: it can be run on, whatever the clock does. */
  onAnswer?: () => void;
}

export type ProcessStart = { started: true; process: ContainerProcess } | { started: false; error: string };

export interface ProcessOptions {
  /** false: stdin is /dev/null (EOF at once). */
  stdin: boolean;
  /** A terminal: one output stream, lines ending in CR LF, and an interactive shell. */
  tty: boolean;
  /** Seeds $RANDOM (default: from the start time). */
  seed?: number;
  /** $$ (1 for a container's main process). */
  pid?: number;
  /** What one command costs on the virtual clock (exec: 0, its commands run at once and only sleeps take time). */
  commandMs?: number;
  /** Commands free of cost after the start, a sleep or a read (containerFreeCommands for a container's process; default none). */
  freeCommands?: number;
  /** An exec'd process: a command that cannot start fails with runc's exec wording. */
  exec?: boolean;
  /** With empty argv (a process kubesim cannot see into): the command line ps shows for it, the container's command. */
  shownAs?: readonly string[];
  /**
   * The container's files, shared with its other processes (what the main
   * process writes, an exec'd one reads): its run's layer and volumes
   * (containerFiles.ts); default: a container of its own over the view. A
   * process reading what another wrote is no longer replayed from its inputs
   * alone.
   */
  files?: ContainerFilesystem;
  /** A container's process replayed from its start after the host restarted: until then it only does again what it did before (ProcessHost.replayedUntil). */
  replayedUntil?: number;
}

/** What one command costs on the virtual clock, once a burst has used its free commands. */
export const commandMs = 1;
/**
 * What a container's main process runs for free after its start, a sleep or
 * a read before its commands cost time: a short script ends the instant it
 * starts (as a real one does, in microseconds), so a kubelet on a fake clock
 * sees `sh -c 'exit 1'` exit at its start; a loop that never sleeps still
 * moves the clock.
 */
export const containerFreeCommands = 1_000;
/**
 * How far past the server clock a process may look at the cluster: a loop
 * that never sleeps is then run a second at a time, not a millisecond, at
 * the cost of seeing a change up to a second late.
 */
export const observeAheadMs = 1000;
/** The commands one advance runs at most by default. */
export const defaultMaxSteps = 10_000;

type FailedLookUp = Extract<Found, { error: string }>['error'];

/** runc's words for why it could not exec the command. */
function execError(name: string, error: FailedLookUp): string {
  const why = error === 'not found' ? 'executable file not found in $PATH' : error === 'no such file' ? `stat ${name}: no such file or directory` : error;
  return `exec: ${JSON.stringify(name)}: ${why}`;
}

/**
 * A container whose command cannot start, as containerd 2.0 with runc 1.2
 * reports it (the CRI plugin's task create over the shim's runc create;
 * runc 1.2 added "error during container init"): the container's
 * StartError message.
 */
export function createError(name: string, error: FailedLookUp): string {
  return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: ${execError(name, error)}: unknown`;
}

/** An exec whose command cannot start, as runc reports it through containerd's exec. */
export function execStartError(name: string, error: FailedLookUp): string {
  return `OCI runtime exec failed: exec failed: unable to start container process: ${execError(name, error)}: unknown`;
}

/** xorshift32: $RANDOM from a seed, the same sequence each run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % 32768;
  };
}

class VirtualProcess implements ContainerProcess {
  private clock: number;
  private waiting: Effect | undefined;
  private wake = 0;
  private begun = false;
  private exited: ProcessExit | undefined;
  private out: ProcessOutput[] = [];
  private pending: { text: string; at: number }[] = [];
  private buffered = '';
  private bufferedAt = 0;
  private closedAt: number | undefined;
  /** The answer an `await` waits for, once it has come. */
  private awaited: { settled: boolean; value?: string } | undefined;
  /** Commands run since the last start, sleep or read. */
  private burst = 0;
  readonly host: ProcessHost;

  get socketOwner(): object {
    return this.host.files;
  }
  readonly pid: number;
  /** The argv it was started with. */
  argv: readonly string[] = [];
  /** What ps shows: the argv it started with, or what it became (an exec, a server's title). */
  get command(): readonly string[] {
    return this.host.cmdline ?? this.argv;
  }
  gen: Run<number> | undefined;
  onAnswer?: () => void;

  get tty(): boolean {
    return this.opts.tty;
  }

  get children(): readonly ProcessChild[] {
    return this.host.children ?? [];
  }

  get uid(): number {
    return this.host.view.uid;
  }

  /**
   * A signal to one of its workers: the worker ends (a signal other than
   * TERM, INT or KILL is taken and changes nothing); a master that respawns
   * its workers starts another with `newPid` and logs both. False when it
   * has no such worker.
   */
  signalChild(pid: number, signal: 'TERM' | 'INT' | 'KILL', at: number, newPid: number): boolean {
    const children = this.host.children ?? [];
    const child = children.find((c) => c.pid === pid);
    if (!child) return false;
    const respawn = this.host.respawnWorker;
    this.host.children = respawn ? children.map((c) => (c === child ? { ...c, pid: newPid } : c)) : children.filter((c) => c !== child);
    if (respawn) this.host.emitAt?.(2, respawn(child, signal, newPid, at), at);
    return true;
  }

  /**
   * SIGHUP from process `from`: a server that reloads on it (nginx) starts
   * new workers, with pids from `nextPid`, in place of its old ones, and logs
   * it. False when it has no such handler (the signal then changes nothing).
   */
  hangUp(at: number, from: number, nextPid: () => number): boolean {
    const reload = this.host.reloadWorkers;
    if (!reload) return false;
    const old = this.host.children ?? [];
    const pids = old.map(() => nextPid());
    this.host.children = old.map((c, i) => ({ ...c, pid: pids[i]! }));
    this.host.emitAt?.(2, reload(old, pids, from, at), at);
    return true;
  }

  constructor(view: ContainerView, startMs: number, private readonly opts: ProcessOptions) {
    this.clock = startMs;
    if (!opts.stdin) this.closedAt = startMs;
    const random = seeded(opts.seed ?? startMs % 2 ** 32);
    let pid = opts.pid ?? 1;
    this.pid = pid;
    this.host = {
      view,
      files: (opts.files ?? containerFilesystem(view)).forProcess(() => this.clock),
      now: () => this.clock,
      emit: (stream, text) => this.emit(stream, text),
      emitAt: (stream, text, at) => this.out.push({ at, stream, text }),
      random,
      pid,
      nextPid: () => ++pid,
      tty: opts.tty,
      ...(opts.replayedUntil !== undefined ? { replayedUntil: opts.replayedUntil } : {}),
    };
  }

  private emit(stream: 1 | 2, text: string): void {
    if (this.opts.tty) {
      // A terminal has one output stream, and its line discipline ends lines with CR LF.
      stream = 1;
      text = text.replace(/\r?\n/g, '\r\n');
    }
    const last = this.out[this.out.length - 1];
    if (last && last.at === this.clock && last.stream === stream) last.text += text;
    else this.out.push({ at: this.clock, stream, text });
  }

  input(text: string, at: number): void {
    if (this.closedAt === undefined) this.pending.push({ text, at });
  }

  closeInput(at: number): void {
    this.closedAt ??= at;
  }

  /** The next line of input there by `until` (or what is left at its end; undefined text: EOF), else undefined. */
  private takeLine(until: number): { text: string | undefined; at: number } | undefined {
    for (;;) {
      const nl = this.buffered.indexOf('\n');
      if (nl >= 0) {
        const text = this.buffered.slice(0, nl + 1);
        this.buffered = this.buffered.slice(nl + 1);
        return { text, at: this.bufferedAt };
      }
      const next = this.pending[0];
      if (next && next.at <= until) {
        this.pending.shift();
        this.buffered += next.text;
        this.bufferedAt = next.at;
        continue;
      }
      if (!next && this.closedAt !== undefined && this.closedAt <= until) {
        const at = Math.max(this.bufferedAt, this.closedAt);
        if (this.buffered) {
          const text = this.buffered;
          this.buffered = '';
          return { text, at };
        }
        return { text: undefined, at };
      }
      return undefined;
    }
  }

  advance(until: number, maxSteps = defaultMaxSteps, present = Infinity): ProcessAdvance {
    let steps = 0;
    let budget = false;
    /** How far it is known to have run when that is less than `until` (a wait a signal may cut short). */
    let known: number | undefined;
    while (!this.exited && this.gen) {
      let resume: string | undefined;
      const w = this.waiting;
      if (!this.begun) {
        if (this.clock > until) break;
        this.begun = true;
      } else if (w?.kind === 'sleep') {
        const term = this.host.interruptible ? this.host.pendingTerm : undefined;
        if (term !== undefined && term < this.wake) {
          // A trapped SIGTERM ends a background job's wait (the shell's `wait` returns at once).
          if (term > until) break;
          this.clock = Math.max(this.clock, term);
        } else {
          if (this.wake > until) break;
          // A wait a signal may cut short is not taken ahead of the server clock: unless one comes (and runs it
          // again), nothing happens until it ends.
          if (this.host.interruptible && this.wake > present) {
            known = Math.min(until, this.wake);
            break;
          }
          this.clock = this.wake;
        }
        this.burst = 0;
      } else if (w?.kind === 'read') {
        const line = this.takeLine(until);
        if (!line) break;
        this.clock = Math.max(this.clock, line.at);
        this.burst = 0;
        resume = line.text;
      } else if (w?.kind === 'tick') {
        if (steps >= maxSteps) {
          budget = true;
          break;
        }
        const cost = this.cost();
        if (this.clock + cost > until) break;
        this.clock += cost;
        this.burst++;
        steps++;
      } else if (w?.kind === 'await') {
        // Its answer has not come: it has run to here, and goes on once it has.
        if (!this.awaited?.settled) {
          budget = true;
          break;
        }
        resume = this.awaited.value;
        this.awaited = undefined;
        this.burst = 0;
      } else if (w?.kind === 'observe') {
        // What the cluster will be then is not known yet.
        if (this.clock > present + (w.exact ? 0 : observeAheadMs) || this.clock > until) {
          budget = true;
          break;
        }
      }
      let r: IteratorResult<Effect, number>;
      try {
        r = this.gen.next(resume);
      } catch (e) {
        // A process that ran out of stack dies of SIGSEGV (128 + 11); anything else is a fault of the simulation, shown on stderr.
        if (!(e instanceof StackOverflow || e instanceof RangeError)) this.emit(2, `kubesim: the simulated process failed: ${e instanceof Error ? e.message : String(e)}\n`);
        this.exited = { code: e instanceof StackOverflow || e instanceof RangeError ? 139 : 255, at: this.clock };
        this.waiting = undefined;
        break;
      }
      if (r.done) {
        this.exited = { code: r.value & 255, at: this.clock, ...(this.host.exitReason ? { reason: this.host.exitReason } : {}) };
        this.waiting = undefined;
        break;
      }
      this.waiting = r.value;
      if (r.value.kind === 'sleep') this.wake = this.clock + r.value.ms;
      if (r.value.kind === 'await') {
        const box: { settled: boolean; value?: string } = { settled: false };
        this.awaited = box;
        r.value
          .start()
          .then(
            (value) => Object.assign(box, { settled: true, value }),
            () => Object.assign(box, { settled: true }),
          )
          .then(() => this.onAnswer?.());
      }
    }
    const output = this.out;
    this.out = [];
    return { output, ...(this.exited ? { exit: this.exited } : {}), reached: budget ? this.clock : (known ?? until) };
  }

  /** The next command's cost: nothing within the burst's free commands. */
  private cost(): number {
    return this.burst < (this.opts.freeCommands ?? 0) ? 0 : (this.opts.commandMs ?? commandMs);
  }

  termExit(): number | undefined {
    return this.host.termExit;
  }

  trapsTerm(): boolean {
    return this.host.trapsTerm === true;
  }

  deliverTerm(at: number): void {
    this.host.pendingTerm = Math.min(at, this.host.pendingTerm ?? Infinity);
  }

  hasOutput(): boolean {
    return this.out.length > 0;
  }

  wakeAt(): number | undefined {
    if (this.exited || !this.gen) return undefined;
    if (!this.begun) return this.clock;
    const w = this.waiting;
    if (w?.kind === 'sleep') return Number.isFinite(this.wake) ? this.wake : undefined;
    if (w?.kind === 'tick') return this.clock + this.cost();
    if (w?.kind === 'observe') return this.clock;
    if (w?.kind === 'await') return this.awaited?.settled ? this.clock : undefined;
    if (w?.kind === 'read') {
      const next = this.pending[0];
      if (this.buffered.includes('\n')) return this.clock;
      if (next) return Math.max(this.clock, next.at);
      return this.closedAt !== undefined ? Math.max(this.clock, this.closedAt) : undefined;
    }
    return undefined;
  }
}

/** Whether argv is a shell that reads its commands from stdin (no -c, no script file). */
function readsCommands(argv: readonly string[]): boolean {
  const operands = argv.slice(1).filter((a) => !/^[-+][a-z]+$/.test(a));
  return !argv.slice(1).some((a) => /^-[a-z]*c[a-z]*$/.test(a)) && !operands.length;
}

/**
 * The container's main process (or an exec'd one): argv[0] looked up as the
 * runtime does (a path as it is, a name on the container's PATH); `stdin:
 * false` means /dev/null (EOF at once). Empty argv: a process that runs
 * until it is stopped, writing nothing (an image kubesim does not know).
 */
export function startProcess(view: ContainerView, argv: readonly string[], startMs: number, opts: ProcessOptions): ProcessStart {
  const p = new VirtualProcess(view, startMs, opts);
  p.argv = [...argv];
  if (!argv.length) {
    // What it runs is not known: a program that dies of SIGTERM (128 + 15).
    p.host.termExit = 143;
    if (opts.shownAs?.length) p.host.cmdline = opts.shownAs;
    p.gen = (function* (): Run<number> {
      yield { kind: 'sleep', ms: Infinity };
      return 0;
    })();
    return { started: true, process: p };
  }
  // runc makes the working directory when the image does not have it.
  for (let d = view.workingDir; !p.host.files.has(d); d = d.slice(0, d.lastIndexOf('/')) || '/') p.host.files.set(d, { type: 'dir', mode: 0o755 });
  const env = new Map(view.env);
  const found = lookUp(p.host, argv[0]!, env.get('PATH') ?? '', view.workingDir);
  if ('error' in found) return { started: false, error: (opts.exec ? execStartError : createError)(argv[0]!, found.error) };
  const stdin: Source = { kind: 'stdin' };
  const interactive = opts.tty && opts.stdin && found.program.kind === 'shell' && !found.program.script && readsCommands(argv);
  p.gen = runProgram(p.host, found, [...argv], { in: stdin, out: { kind: 'stream', stream: 1 }, err: { kind: 'stream', stream: 2 } }, env, view.workingDir, { interactive, pid: p.pid });
  return { started: true, process: p };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);

/**
 * What the runtime runs: container command/args over the image's
 * Entrypoint/Cmd (command set: command + args, Cmd ignored; command unset:
 * Entrypoint + (args ?? Cmd)), with `$(VAR)` in the container's command and
 * args expanded from its environment as the kubelet does
 * (kubecontainer.ExpandContainerCommandAndArgs; `$$` escapes a `$`). Empty:
 * the unknown image's process, which runs until stopped.
 */
export function containerArgv(container: Record<string, unknown>, image: SimulatedImage, env: ReadonlyMap<string, string>): string[] {
  const expand = (s: string) => expandEnv(s, (name) => env.get(name));
  const command = (strings(container['command']) ?? []).map(expand);
  const args = (strings(container['args']) ?? []).map(expand);
  if (command.length) return [...command, ...args];
  // containerd's WithProcessArgs: the image's Cmd only when no args are given; an Entrypoint of [""] is none.
  const entrypoint = image.entrypoint.length === 1 && image.entrypoint[0] === '' ? [] : [...image.entrypoint];
  return [...entrypoint, ...(args.length ? args : image.cmd)];
}

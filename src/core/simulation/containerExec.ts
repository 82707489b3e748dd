/**
 * `kubectl exec` against a simulated container: the command runs as a
 * process of the container (containerProcess.ts) over the container's view.
 * Its commands take no time; its sleeps take the server clock's time when it
 * is streamed (startExec) or run on a clock (execInContainerOn), none when it
 * is run at once with all its input (execInContainer).
 * A shell reading its input a line at a time (`kubectl exec -i[t] pod --
 * sh`) is a LineShell: each line runs as it comes, and a line leaving a
 * construct open waits for the rest behind busybox's `> ` prompt.
 */
import type { Clock } from '../util/clock';
import type { ContainerView } from './containerView';
import { containerFilesystem, type ContainerFilesystem } from './containerFiles';
import { defaultMaxSteps, startProcess, type ContainerProcess, type ProcessStart } from './containerProcess';
import type { Io, ProcessHost, Sink } from './processIo';
import { lookUp } from './programLookup';
import { Shell, StackOverflow } from './shellInterpreter';

/** What a process did: its output and exit code. */
export interface ProcessResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The process ran (whatever its code), or the runtime could not start it (runc's error text). */
export type ExecOutcome = ({ started: true } & ProcessResult) | { started: false; error: string };

/** An exec'd process's id: the container's main process is 1, its shells' children follow. */
const execPid = 7;
/** The commands a synchronous exec runs at most: a loop that never ends is stopped there. */
const syncBudget = 200_000;
/** A process stopped by the runtime (SIGKILL). */
const killed = 137;
/** The commands an exec on a clock runs at most when nothing stops it (no client to abort it): a loop that never sleeps ends there. */
const execStepCap = 20_000_000;

function collect(p: ContainerProcess, until: number, maxSteps: number | undefined, result: ProcessResult): { exit?: number; reached: number } {
  const r = p.advance(until, maxSteps);
  for (const o of r.output) {
    if (o.stream === 1) result.stdout += o.text;
    else result.stderr += o.text;
  }
  return { ...(r.exit ? { exit: r.exit.code } : {}), reached: r.reached };
}

/**
 * An exec'd process, started at `at`: runc's exec wording when it cannot
 * start; its commands take no time, only its sleeps do (kubelet's exec
 * streams it as it runs: processStream.ts).
 */
export function startExec(view: ContainerView, argv: readonly string[], at: number, opts: { stdin: boolean; tty: boolean; files?: ContainerFilesystem }): ProcessStart {
  // The container's processes hand out its exec pids in turn.
  return startProcess(view, argv, at, { ...opts, pid: opts.files?.execPid() ?? execPid, commandMs: 0, exec: true, seed: at });
}

function begin(view: ContainerView, argv: string[], stdin: string, at: number): { process: ContainerProcess } | { error: string } {
  const start = startExec(view, argv, at, { stdin: true, tty: false });
  if (!start.started) return { error: start.error };
  start.process.input(stdin, at);
  start.process.closeInput(at);
  return { process: start.process };
}

/**
 * Runs argv in the container as the CRI's exec does, at one instant: the
 * first word is looked up on the container's PATH; the process sees the
 * container's environment, working directory and files, and `stdin` as its
 * input; its sleeps pass at once. One still running after a large step
 * budget (or sleeping forever) is stopped and reported as killed.
 */
export function execInContainer(view: ContainerView, argv: string[], stdin: string, now: Date): ExecOutcome {
  const started = begin(view, argv, stdin, now.getTime());
  if ('error' in started) return { started: false, error: started.error };
  const result: ProcessResult = { stdout: '', stderr: '', exitCode: killed };
  const { exit } = collect(started.process, Number.MAX_SAFE_INTEGER, syncBudget, result);
  if (exit !== undefined) result.exitCode = exit;
  return { started: true, ...result };
}

/** A macrotask's pause, so a command that never sleeps lets the server answer others between step budgets. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * execInContainer on a clock: the process's sleeps take the clock's time
 * (`kubectl exec pod -- sleep 2` ends 2 s later; a fake clock's when it is
 * advanced). A process that sleeps forever ends when `signal` aborts
 * (reported as killed).
 */
export async function execInContainerOn(view: ContainerView, argv: string[], stdin: string, clock: Pick<Clock, 'now' | 'sleep'>, signal?: AbortSignal): Promise<ExecOutcome> {
  const started = begin(view, argv, stdin, clock.now().getTime());
  if ('error' in started) return { started: false, error: started.error };
  const p = started.process;
  const result: ProcessResult = { stdout: '', stderr: '', exitCode: killed };
  let steps = 0;
  for (;;) {
    const now = clock.now().getTime();
    const { exit } = collect(p, now, undefined, result);
    if (exit !== undefined) {
      result.exitCode = exit;
      return { started: true, ...result };
    }
    if (signal?.aborted || steps > execStepCap) return { started: true, ...result };
    const wake = p.wakeAt();
    if (wake !== undefined && wake <= now) {
      // Still busy when the step budget stopped it: a command that never sleeps.
      steps += defaultMaxSteps;
      await pause();
      continue;
    }
    if (wake === undefined) {
      // Waiting for an answer (the API server's), which wakes it, or for nothing but the end.
      await new Promise<void>((resolve) => {
        p.onAnswer = resolve;
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      p.onAnswer = undefined;
      continue;
    }
    await clock.sleep(wake - now, signal);
  }
}

/** A shell reading its input line by line (`kubectl exec -i[t] pod -- sh`). */
export interface LineShell {
  /** busybox's prompt: PS1 (the directory, then `#` for root or `$`), or `> ` while a construct is open. */
  prompt(): string;
  line(text: string): ProcessResult & { exit?: number };
  /** The code the shell ends with at the end of its input. */
  lastStatus(): number;
}

/** The shell named by argv when it reads commands from its input (no -c, no script), else undefined. */
export function lineShell(view: ContainerView, argv: string[], now: () => Date, opts: { tty?: boolean } = {}): LineShell | undefined {
  let clock = now().getTime();
  const out: string[] = [];
  const err: string[] = [];
  let pid = execPid;
  let random = clock >>> 0 || 1;
  const host: ProcessHost = {
    view,
    files: containerFilesystem(view).forProcess(() => clock),
    now: () => clock,
    emit: (stream, text) => (stream === 1 ? out : err).push(text),
    random: () => {
      random ^= random << 13;
      random ^= random >>> 17;
      random ^= random << 5;
      return (random >>> 0) % 32768;
    },
    nextPid: () => ++pid,
  };
  const [cmd = '', ...args] = argv;
  const found = lookUp(host, cmd, new Map(view.env).get('PATH') ?? '', view.workingDir);
  if ('error' in found || found.program.kind !== 'shell' || found.program.script || args.some((a) => !/^[-+][a-z]+$/.test(a) || a.includes('c'))) return undefined;
  const shell = new Shell(host, found.program.name, new Map(view.env), view.workingDir, execPid);
  shell.arg0 = cmd;
  shell.interactive = opts.tty ?? false;
  for (const a of args) for (const f of a.slice(1)) if (f === 'e') shell.errexit = a[0] === '-';
  const io: Io = { in: { kind: 'null' }, out: { kind: 'stream', stream: 1 } as Sink, err: { kind: 'stream', stream: 2 } as Sink };
  let pending = '';
  let lineNo = 0;
  let ended: number | undefined;
  return {
    prompt: () => (pending ? '> ' : shell.prompt()),
    line(text) {
      out.length = 0;
      err.length = 0;
      clock = Math.max(clock, now().getTime());
      pending += text + '\n';
      lineNo++;
      // Each line runs to its end at once: sleeps pass, a read meets the end of input.
      const gen = shell.runPiece(pending, io, lineNo, false);
      let steps = 0;
      let result: number | 'more' | undefined;
      try {
        let next = gen.next();
        while (!next.done) {
          const e = next.value;
          if (e.kind === 'sleep') {
            if (!Number.isFinite(e.ms) || ++steps > syncBudget) {
              ended = killed;
              break;
            }
            clock += e.ms;
          } else if (e.kind === 'tick' && ++steps > syncBudget) {
            ended = killed;
            break;
          }
          next = gen.next(undefined);
        }
        result = next.done ? next.value : ended;
      } catch (e) {
        // Out of stack: the shell dies of SIGSEGV.
        if (!(e instanceof StackOverflow || e instanceof RangeError)) throw e;
        result = 139;
      }
      if (result !== 'more') pending = '';
      const exit = typeof result === 'number' ? result : undefined;
      return { stdout: out.join(''), stderr: err.join(''), exitCode: exit ?? shell.status, ...(exit !== undefined ? { exit } : {}) };
    },
    lastStatus: () => shell.status,
  };
}

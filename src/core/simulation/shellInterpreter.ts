/**
 * busybox ash (and, where the program is bash, bash's messages) walking the
 * tree shellParser.ts builds, as a generator of effects: it yields when it
 * waits (for input, for time) and after each command it runs (`tick`, the
 * virtual time a command costs), so containerProcess.ts can step it on a
 * virtual clock. Output goes through file descriptors 0-2: the process's
 * own streams, a pipe or `$( )` capture, a file in the process's copy of
 * the container's files, or /dev/null.
 *
 * A pipeline runs its commands one after another, each to its end, the
 * output of one the input of the next; a background `&` runs in turn too.
 * Programs are found on PATH as the container's image has them: the tools
 * (containerTools.ts), the image's own programs, `#!` scripts, sh and bash.
 */
import { erofs, hasCoreutils, readFile, resolvePath, testExpression, tools, writeFile, type Run, type ToolContext } from './containerTools';
import { filesAt, isReadOnly } from './containerFiles';
import { readChunk, readLine, write, type Io, type ProcessHost, type Sink, type Source } from './processIo';
import { kill as killTool } from './processTools';
import { defaultPath, lookUp, shellLookUp, type Found, type Program, type ShellName } from './programLookup';
import { glob, globChars, globSource, patternRe, removePattern, splitPattern, splitSubstring, splitter } from './shellPatterns';
import { evaluateArith, ArithError } from './shellArith';
import { parseScript, ShellSyntaxError, type Command, type List, type Redirect, type Word, type WordPart } from './shellParser';
import { recordWork } from './serverLoad';

/** The process ran out of stack: it dies of SIGSEGV. */
export class StackOverflow extends Error {}

class ExitSignal {
  constructor(readonly code: number) {}
}
class LoopSignal {
  constructor(
    readonly levels: number,
    readonly next: boolean,
  ) {}
}
class ReturnSignal {
  constructor(readonly code: number) {}
}
/** An error that ends a non-interactive shell (ash's EXERROR): its message is printed, the status is 2. */
class ShellError {
  constructor(
    readonly message: string,
    /** The builtin that raised it (its name goes into the message). */
    readonly builtin?: string,
  ) {}
}

/** The tools that read or write files (the others look only at their arguments, input and clock, or at the network, which they observe themselves). */
const fileTools = new Set(['cat', 'chmod', 'cp', 'cut', 'find', 'grep', 'head', 'httpd', 'ls', 'mkdir', 'mv', 'rm', 'sed', 'sort', 'tail', 'tar', 'tee', 'test', '[', 'touch', 'uniq', 'wc']);
/** Builtins that look at files. */
const fileBuiltins = new Set(['.', 'source', 'cd', 'test', '[']);

/** A redirection's target written as a device (`2>/dev/null`): no file another process writes. */
const isDevice = (target: Word) => target.length === 1 && target[0]!.type === 'lit' && /^\/(dev|proc)\//.test(target[0]!.text);

/** Whether a simple command may touch files: a redirection to or from one, or a builtin that looks at them (a program is runProgram's to judge). */
function touchesFiles(name: string, redirects: readonly Redirect[]): boolean {
  return fileBuiltins.has(name) || redirects.some((r) => r.op !== '<<' && r.op !== '<<-' && r.op !== '>&' && r.op !== '<&' && !isDevice(r.target));
}

/** Runs what lookUp found with its arguments. */
export function* runProgram(host: ProcessHost, found: { path: string; program: Program }, argv: string[], io: Io, env: ReadonlyMap<string, string>, cwd: string, opts: ShellOptions = {}): Run<number> {
  const { program } = found;
  const args = argv.slice(1);
  if (program.kind === 'image') {
    const hosts = readFile(host.files, '/etc/hosts') ?? '';
    const podIP = hosts.split('\n').map((l) => l.split('\t')).find((f) => f.length > 1 && f.slice(1).includes(host.view.hostname))?.[0];
    const files = host.files;
    const limit = host.view.memoryLimitBytes;
    const run = host.view.image.programs.get(program.path)!.run(args, env, { now: host.now(), hostname: host.view.hostname, ...(host.pid !== undefined ? { pid: host.pid } : {}), ...(podIP ? { podIP } : {}), files: (at) => filesAt(files, at), ...(limit !== undefined ? { memoryLimitBytes: limit } : {}) });
    for (const o of run.output) write(host, o.stream === 1 ? io.out : io.err, o.text);
    if (run.title) host.cmdline = [run.title];
    if (run.workers) host.children = run.workers;
    if (run.respawn) host.respawnWorker = run.respawn;
    if (run.reload) host.reloadWorkers = run.reload;
    if (run.oomKilled) {
      // The cgroup's OOM killer takes the whole container (memory.oom.group): SIGKILL.
      host.exitReason = 'OOMKilled';
      return 137;
    }
    if (run.endsAfter) {
      yield { kind: 'sleep', ms: run.endsAfter.ms };
      for (const o of run.endsAfter.output) write(host, o.stream === 1 ? io.out : io.err, o.text);
      return run.exitCode ?? 0;
    }
    if (run.exec?.argv.length) {
      // The entrypoint script's `exec "$@"`: the process becomes what it names, found on PATH.
      const next = lookUp(host, run.exec.argv[0]!, env.get('PATH') ?? '', cwd);
      if (!('error' in next)) {
        host.cmdline = run.exec.argv;
        return yield* runProgram(host, next, [...run.exec.argv], io, env, cwd, opts);
      }
      write(host, io.err, run.exec.notFound);
      return 127;
    }
    if (run.interpreter) return yield* run.interpreter({ tty: host.tty ?? false, read: () => readLine(io.in), out: (t) => write(host, io.out, t), err: (t) => write(host, io.err, t) });
    if (run.readsStdin) while ((yield* readChunk(io.in)) !== undefined);
    if (run.exitCode === undefined) {
      // A server listens on its ports until it is stopped.
      const net = host.view.network;
      for (const l of net ? (run.listens ?? []) : []) {
        const log = l.accessLog;
        const cost = l.cpuMsPerRequest;
        // A server that logs each request writes its line at the request's time; one whose requests cost cpu counts them.
        const respond = log || cost ? (request: string, at: number, from?: string) => {
          const answer = l.respond(request, at, from);
          if (cost) recordWork(net!.podUID, net!.container, at, cost);
          const line = log?.(request, answer, at, from);
          if (line) host.emitAt?.(1, line, at);
          return answer;
        } : l.respond;
        net!.cluster.listen({ podUID: net!.podUID, container: net!.container, startedAt: net!.startedAt, port: l.port, since: host.now(), owner: host.files, respond, ...(l.addresses ? { addresses: l.addresses } : {}), ...(cost ? { serviceMs: cost } : {}) });
      }
      // It shuts down on SIGTERM (nginx, httpd, redis and the databases exit 0), unless it has no handler.
      if (!run.ignoresTerm) host.termExit = 0;
      if (run.every) {
        for (;;) {
          yield { kind: 'sleep', ms: run.every.ms };
          // It reads what others write (a remounted volume): not before the server clock gets there.
          yield { kind: 'observe', exact: true };
          for (const o of run.every.tick(host.now())) write(host, o.stream === 1 ? io.out : io.err, o.text);
        }
      }
      yield { kind: 'sleep', ms: Infinity };
      return 0;
    }
    return run.exitCode;
  }
  // What may read files another process writes waits for the server clock to reach its own (containerFiles.ts).
  if ((program.kind === 'shell' && program.script) || (program.kind === 'tool' && fileTools.has(program.name))) yield { kind: 'observe' };
  if (program.kind === 'shell') {
    const shell = new Shell(host, program.name, env, cwd, opts.pid ?? host.nextPid());
    shell.interactive = opts.interactive ?? false;
    return yield* shell.main(program.script ? [program.script, ...args] : args, io, argv[0]!);
  }
  const tool = tools.get(program.name)!;
  const result = tool(args, toolContext(host, program.name, io, env, cwd));
  return typeof result === 'number' ? result : yield* result;
}

function toolContext(host: ProcessHost, name: string, io: Io, env: ReadonlyMap<string, string>, cwd: string): ToolContext {
  return {
    name,
    view: host.view,
    files: host.files,
    cwd,
    env,
    now: () => host.now(),
    stdin: { read: () => readChunk(io.in) },
    out: (t) => write(host, io.out, t),
    err: (t) => write(host, io.err, t),
    outIsPipe: io.out.kind === 'buffer',
    ...(host.view.network ? { network: host.view.network } : {}),
    ...(host.replayedUntil !== undefined ? { replayedUntil: host.replayedUntil } : {}),
    exec: function* (argv, vars) {
      const found = lookUp(host, argv[0]!, vars.get('PATH') ?? defaultPath, cwd);
      if ('error' in found) {
        write(host, io.err, `${name}: can't execute '${argv[0]}': No such file or directory\n`);
        return 127;
      }
      return yield* runProgram(host, found, argv, io, vars, cwd);
    },
  };
}

// ---- expansion helpers

/** A piece of an expanded word: its text, and whether it is open to field splitting and globbing. */
interface Piece {
  text: string;
  quoted: boolean;
  /** A field boundary before this piece ("$@"). */
  breakBefore?: boolean;
  /** Written in the word itself (not an expansion's result): never split. */
  literal?: boolean;
}

/**
 * Variables (or the exported names) of a shell: its own, over its parent
 * shell's for a subshell, so a `$( )` or a pipeline's command does not copy
 * them all. Iteration keeps the parent's order, then the names set here.
 */
export class Scope<V> {
  private readonly own = new Map<string, V | undefined>();
  /** Bumped on each change (the environment built from it is kept until then). */
  version = 0;

  constructor(private readonly parent?: Scope<V>) {}

  get(k: string): V | undefined {
    return this.own.has(k) ? this.own.get(k) : this.parent?.get(k);
  }

  has(k: string): boolean {
    return this.get(k) !== undefined;
  }

  set(k: string, v: V): this {
    this.own.set(k, v);
    this.version++;
    return this;
  }

  add(this: Scope<true>, k: string): Scope<true> {
    return this.set(k, true);
  }

  delete(k: string): void {
    // Unset here, whatever the parent has.
    this.own.set(k, undefined);
    this.version++;
  }

  /** Whether anything was set or unset here. */
  get changed(): boolean {
    return this.own.size > 0;
  }

  child(): Scope<V> {
    return new Scope(this);
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    if (this.parent) {
      for (const [k, v] of this.parent) {
        const mine = this.own.has(k) ? this.own.get(k) : v;
        if (mine !== undefined) yield [k, mine];
      }
      for (const [k, v] of this.own) if (v !== undefined && !this.parent.has(k)) yield [k, v];
      return;
    }
    for (const [k, v] of this.own) if (v !== undefined) yield [k, v];
  }
}

// ---- the shell

const specialBuiltins = new Set([':', '.', 'break', 'continue', 'eval', 'exec', 'exit', 'export', 'readonly', 'return', 'set', 'shift', 'trap', 'unset', 'source']);
const builtinNames = new Set([...specialBuiltins, 'cd', 'read', 'wait', 'local', 'pwd', 'echo', 'printf', 'test', '[', 'true', 'false', 'type', 'command', 'umask', 'kill', 'let']);

export interface ShellOptions {
  /** Reads commands from a terminal: it prompts, and errors do not end it. */
  interactive?: boolean;
  /** Its $$ (a new process id when unset). */
  pid?: number;
}

export class Shell {
  vars = new Scope<string>();
  exported = new Scope<true>();
  /** The shell this is a subshell of: its environment, while this one changed nothing. */
  private parent: Shell | undefined;
  private envCache: { vars: number; exported: number; env: Map<string, string> } | undefined;
  positional: string[] = [];
  arg0: string;
  status = 0;
  cwd: string;
  functions = new Map<string, Command>();
  errexit = false;
  xtrace = false;
  nounset = false;
  pipefail = false;
  interactive = false;
  /** Inside a condition (if, while, `&&`'s left side, `!`): set -e does not end the shell. */
  private conditions = 0;
  private loops = 0;
  private calls = 0;
  private line = 1;
  /** The status of the last command substitution (an assignment-only command's status). */
  private substStatus: number | undefined;
  private exitTrap: string | undefined;
  /**
   * The one simple command of a `-c` script: dash, ash and bash exec it in
   * place of the shell (no fork), so the process is that program from then
   * on (`sh -c "sleep 1h"` shows in ps as `sleep 1h`).
   */
  private execsInPlace: Command | undefined;
  /** The SIGTERM handler (`trap '...' TERM`); '' ignores the signal. */
  private termTrap: string | undefined;
  /** The io of the command being expanded: a command substitution reads its input and writes its errors there. */
  private io: Io | undefined;
  /** Running a script file (its name and line numbers go into messages). */
  private scriptFile = false;
  /** $0 was given (a script file, or -c with a name): messages carry it and line numbers. */
  private named = false;
  /** The image is Debian's or Ubuntu's: bash prompts as their bashrc has it. */
  private readonly debianLike: boolean;
  /** Debian's and Ubuntu's sh is dash: an Almquist shell too, whose messages carry the line number (`sh: 1: foo: not found`). */
  private readonly dash: boolean;

  constructor(
    readonly host: ProcessHost,
    readonly name: ShellName,
    env: ReadonlyMap<string, string>,
    cwd: string,
    readonly pid: number,
  ) {
    this.debianLike = hasCoreutils(host);
    this.dash = name === 'sh' && this.debianLike;
    for (const [k, v] of env) {
      this.vars.set(k, v);
      this.exported.add(k);
    }
    this.cwd = cwd;
    // ash exports its level and its directory.
    if (env.size) {
      this.vars.set('SHLVL', String((Number(env.get('SHLVL')) || 0) + 1));
      this.vars.set('PWD', cwd);
      this.exported.add('SHLVL').add('PWD');
    }
    this.arg0 = name;
  }

  /** A subshell: a copy of the variables, functions and options; the same files and process. */
  private fork(): Shell {
    const s = new Shell(this.host, this.name, new Map(), this.cwd, this.pid);
    // The subshell reads through to this shell's variables and writes its own: this shell waits while it runs.
    s.vars = this.vars.child();
    s.exported = this.exported.child();
    s.parent = this;
    s.positional = [...this.positional];
    s.arg0 = this.arg0;
    s.status = this.status;
    s.functions = new Map(this.functions);
    s.errexit = this.errexit;
    s.xtrace = this.xtrace;
    s.nounset = this.nounset;
    s.pipefail = this.pipefail;
    s.line = this.line;
    s.scriptFile = this.scriptFile;
    s.named = this.named;
    return s;
  }

  /** The variables a program started now sees. */
  environment(extra: [string, string][] = []): ReadonlyMap<string, string> {
    let base: Map<string, string>;
    if (this.parent && !this.vars.changed && !this.exported.changed) base = this.parent.environment() as Map<string, string>;
    else if (this.envCache && this.envCache.exported === this.exported.version && (this.envCache.vars === this.vars.version || this.sameExported(this.envCache.env))) {
      this.envCache.vars = this.vars.version;
      base = this.envCache.env;
    } else {
      base = new Map<string, string>();
      for (const [k, v] of this.vars) if (this.exported.has(k)) base.set(k, v);
      this.envCache = { vars: this.vars.version, exported: this.exported.version, env: base };
    }
    if (!extra.length) return base;
    const env = new Map(base);
    for (const [k, v] of extra) env.set(k, v);
    return env;
  }

  /** Whether the exported variables still have the values of an environment built before (a loop's counter changed, not them). */
  private sameExported(env: ReadonlyMap<string, string>): boolean {
    for (const [k] of this.exported) if (this.vars.get(k) !== env.get(k)) return false;
    return true;
  }

  /**
   * A message as ash_vmsg prints it: `$0: `, then, when a command name is
   * set (a builtin's, or $0 for a script file or a named -c), that name
   * unless it is $0 and `line N: ` unless interactive; bash: `$0: line N: `.
   */
  private message(text: string, builtin?: string): string {
    if (this.name === 'bash') return `${this.arg0}: ${this.interactive ? '' : `line ${this.line}: `}${builtin ? `${builtin}: ` : ''}${text}\n`;
    if (this.dash) return `${this.arg0}: ${this.interactive ? '' : `${this.line}: `}${builtin ? `${builtin}: ` : ''}${text}\n`;
    const commandName = builtin ?? (this.named ? this.arg0 : undefined);
    let s = `${this.arg0}: `;
    if (commandName !== undefined) {
      if (commandName !== this.arg0) s += `${commandName}: `;
      if (!this.interactive) s += `line ${this.line}: `;
    }
    return s + text + '\n';
  }

  private error(io: Io, text: string, builtin?: string): void {
    write(this.host, io.err, this.message(text, builtin));
  }

  /** The syntax error as this shell prints it. */
  syntaxMessage(e: ShellSyntaxError, source: string, where: string): string {
    if (this.name !== 'bash') {
      this.line = e.line;
      return this.message(`syntax error: ${e.message}`);
    }
    const at = `${this.arg0}: ${where}line ${e.line}: `;
    if (e.token === undefined) return `${at}syntax error: unexpected end of file\n`;
    const text = source.split('\n')[e.line - 1] ?? '';
    return `${at}syntax error near unexpected token \`${e.token}'\n${at}\`${text}'\n`;
  }

  /**
   * sh [-eux] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]: without -c or a
   * file it reads its commands from its standard input, a line at a time.
   */
  *main(args: string[], io: Io, invokedAs: string): Run<number> {
    this.arg0 = invokedAs || this.name;
    let command = false;
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--' || a === '-') {
        i++;
        break;
      }
      if (!/^[-+][a-z]+$/.test(a)) break;
      for (const f of a.slice(1)) {
        if (f === 'c') command = true;
        else if (f === 'o') this.setLongOption(args[++i] ?? '', a[0] === '-');
        else this.setOption(f, a[0] === '-');
      }
    }
    const operands = args.slice(i);
    let script: string;
    if (command) {
      if (!operands.length) {
        write(this.host, io.err, `${this.arg0}: -c requires an argument\n`);
        return 2;
      }
      script = operands[0]!;
      if (operands.length > 1) {
        this.arg0 = operands[1]!;
        this.named = true;
      }
      this.positional = operands.slice(2);
      return yield* this.runScript(script, io, '-c: ');
    }
    if (operands.length) {
      const file = operands[0]!;
      const text = readFile(this.host.files, resolvePath(this.cwd, file));
      if (text === undefined) {
        write(this.host, io.err, this.name === 'bash' ? `bash: ${file}: No such file or directory\n` : `${this.arg0}: can't open '${file}': No such file or directory\n`);
        return this.name === 'bash' ? 127 : 2;
      }
      this.arg0 = file;
      this.positional = operands.slice(1);
      this.scriptFile = true;
      this.named = true;
      return yield* this.runScript(text, io, '');
    }
    return yield* this.readCommands(io);
  }

  /** set -o NAME: the options kubesim's shell keeps; others are accepted and ignored. */
  private setLongOption(name: string, on: boolean): boolean {
    if (name === 'errexit') this.errexit = on;
    else if (name === 'xtrace') this.xtrace = on;
    else if (name === 'nounset') this.nounset = on;
    else if (name === 'pipefail') this.pipefail = on;
    else return ['noglob', 'ignoreeof', 'monitor', 'noexec', 'verbose', 'noclobber', 'allexport', 'notify', 'vi', 'emacs', 'posix'].includes(name);
    return true;
  }

  private setOption(f: string, on: boolean): boolean {
    if (f === 'e') this.errexit = on;
    else if (f === 'x') this.xtrace = on;
    else if (f === 'u') this.nounset = on;
    else if (f === 'i') this.interactive = on;
    else if (!'sflmnvCabE'.includes(f)) return false;
    return true;
  }

  /** Runs a whole script: each top-level command as it is reached (a syntax error further on ends the shell there). */
  *runScript(script: string, io: Io, where: string): Run<number> {
    try {
      let list: List;
      try {
        list = parseScript(script);
      } catch (e) {
        if (!(e instanceof ShellSyntaxError)) throw e;
        // What comes before the error's line still runs, as ash parses a command at a time.
        const before = script.split('\n').slice(0, e.line - 1).join('\n');
        let ran: List | undefined;
        try {
          ran = e.line > 1 ? parseScript(before) : undefined;
        } catch {
          ran = undefined;
        }
        if (ran) yield* this.runList(ran, io);
        write(this.host, io.err, this.syntaxMessage(e, script, where));
        this.status = 2;
        return yield* this.finish(io, 2);
      }
      const only = list.commands.length === 1 && !list.background?.length ? list.commands[0] : undefined;
      if (where === '-c: ' && only?.type === 'simple' && !only.conditional) this.execsInPlace = only;
      yield* this.runList(list, io);
      return yield* this.finish(io, this.status);
    } catch (e) {
      return yield* this.finish(io, this.caught(e, io));
    }
  }

  /** The status an escaping signal or error ends the shell with. */
  private caught(e: unknown, io: Io): number {
    if (e instanceof ExitSignal) return e.code;
    if (e instanceof ShellError) {
      write(this.host, io.err, this.message(e.message, e.builtin));
      return 2;
    }
    if (e instanceof LoopSignal) return 0;
    if (e instanceof ReturnSignal) return e.code;
    throw e;
  }

  /**
   * A shell that traps SIGTERM looks for it between commands (so a foreground command, `sleep 3600`, delays
   * the handler until it is done, as in any POSIX shell), and so never runs ahead of the server clock there:
   * the signal may come at any time. The handler runs with $? kept; an `exit` in it ends the shell.
   */
  private *takeSignal(io: Io): Run<void> {
    yield { kind: 'observe', exact: true };
    const at = this.host.pendingTerm;
    if (at === undefined || at > this.host.now() || this.termTrap === undefined) return;
    this.host.pendingTerm = undefined;
    const status = this.status;
    const handler = parseScript(this.termTrap);
    yield* this.runList(handler, io);
    this.status = status;
  }

  private *finish(io: Io, code: number): Run<number> {
    const trap = this.exitTrap;
    if (trap === undefined) return code;
    this.exitTrap = undefined;
    this.status = code;
    try {
      yield* this.runList(parseScript(trap), io);
    } catch (e) {
      if (e instanceof ExitSignal) return e.code;
      if (!(e instanceof ShellError || e instanceof ShellSyntaxError)) throw e;
    }
    return code;
  }

  /** Reads commands from stdin a line at a time, running each once it is complete. */
  private *readCommands(io: Io): Run<number> {
    let pending = '';
    let lineNo = 0;
    for (;;) {
      // An interactive shell prompts on stderr: PS1, or PS2 while a construct is open.
      if (this.interactive) write(this.host, io.err, pending ? '> ' : this.prompt());
      const line = yield* readLine(io.in);
      if (line === undefined) {
        if (pending) {
          const code = yield* this.runPiece(pending, io, lineNo, true);
          if (code !== undefined && code !== 'more') return code;
        }
        return yield* this.finish(io, this.status);
      }
      pending += line.endsWith('\n') ? line : line + '\n';
      lineNo++;
      const code = yield* this.runPiece(pending, io, lineNo, false);
      if (code === 'more') continue;
      pending = '';
      if (code !== undefined) return code;
    }
  }

  /**
   * Runs text read from input once it is complete: 'more' when a construct
   * is still open, the shell's exit code when it ended, else undefined.
   */
  *runPiece(text: string, io: Io, lastLine: number, atEnd: boolean): Run<number | 'more' | undefined> {
    let list: List;
    try {
      list = parseScript(text);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      if (e.incomplete && !atEnd) return 'more';
      const firstLine = lastLine - text.split('\n').length + 2;
      this.line = firstLine + e.line - 1;
      write(this.host, io.err, this.syntaxMessage(new ShellSyntaxError(e.message, e.incomplete, e.line, e.token), text, ''));
      this.status = 2;
      return this.interactive ? undefined : yield* this.finish(io, 2);
    }
    try {
      yield* this.runList(list, io);
      return undefined;
    } catch (e) {
      const code = this.caught(e, io);
      if (e instanceof ShellError && this.interactive) {
        this.status = code;
        return undefined;
      }
      return yield* this.finish(io, code);
    }
  }

  /**
   * An interactive shell's prompt: busybox's default PS1 (`/dir # `); in
   * Debian and Ubuntu images, bash's from their bashrc (`root@web:/# `, the
   * home as `~`) and dash's bare `# ` or `$ `.
   */
  prompt(): string {
    const sign = this.host.view.uid === 0 ? '#' : '$';
    if (this.dash) return `${sign} `;
    if (this.name === 'bash' && this.debianLike) {
      const home = this.vars.get('HOME') ?? '';
      const dir = home && home !== '/' && (this.cwd === home || this.cwd.startsWith(home + '/')) ? '~' + this.cwd.slice(home.length) : this.cwd;
      return `${this.host.view.uid === 0 ? 'root' : `I have no name!`}@${this.host.view.hostname}:${dir}${sign} `;
    }
    return `${this.cwd} ${sign} `;
  }

  // ---- running

  *runList(list: List, io: Io): Run<number> {
    for (const [i, c] of list.commands.entries()) {
      if (this.termTrap === undefined || !list.background?.includes(i)) {
        yield* this.run(c, io);
        continue;
      }
      // A background job runs in turn; the `wait` after it would return on the trapped signal, so the signal ends it here.
      const outer = this.host.interruptible;
      this.host.interruptible = true;
      try {
        yield* this.run(c, io);
      } finally {
        this.host.interruptible = outer;
      }
    }
    return this.status;
  }

  private checkErrexit(code: number): void {
    if (this.errexit && code !== 0 && this.conditions === 0) throw new ExitSignal(code);
  }

  private *condition(list: List, io: Io): Run<number> {
    this.conditions++;
    try {
      return yield* this.runList(list, io);
    } finally {
      this.conditions--;
    }
  }

  *run(cmd: Command, io: Io): Run<number> {
    this.io = io;
    switch (cmd.type) {
      case 'simple':
        this.status = yield* this.simple(cmd, io);
        this.checkErrexit(this.status);
        if (this.termTrap !== undefined) yield* this.takeSignal(io);
        return this.status;
      case 'andor': {
        this.conditions++;
        let code: number;
        try {
          code = yield* this.run(cmd.first, io);
        } finally {
          this.conditions--;
        }
        for (const [k, { op, command }] of cmd.rest.entries()) {
          if ((op === '&&') !== (code === 0)) continue;
          const last = k === cmd.rest.length - 1;
          if (!last) this.conditions++;
          try {
            code = yield* this.run(command, io);
          } finally {
            if (!last) this.conditions--;
          }
        }
        this.status = code;
        return code;
      }
      case 'pipeline':
        return yield* this.pipeline(cmd, io);
      case 'if': {
        const rio = yield* this.redirect(cmd.redirects, io);
        if (!rio) return this.status;
        for (const clause of cmd.clauses) {
          if ((yield* this.condition(clause.cond, rio)) === 0) return yield* this.runList(clause.body, rio);
        }
        if (cmd.otherwise) return yield* this.runList(cmd.otherwise, rio);
        this.status = 0;
        return 0;
      }
      case 'loop': {
        const rio = yield* this.redirect(cmd.redirects, io);
        if (!rio) return this.status;
        let last = 0;
        this.loops++;
        try {
          for (;;) {
            const c = yield* this.condition(cmd.cond, rio);
            if ((c === 0) === cmd.until) break;
            const r = yield* this.loopBody(cmd.body, rio);
            last = this.status;
            if (r === 'break') break;
          }
        } finally {
          this.loops--;
        }
        this.status = last;
        return last;
      }
      case 'for': {
        const rio = yield* this.redirect(cmd.redirects, io);
        if (!rio) return this.status;
        const items: string[] = [];
        if (cmd.items) for (const w of cmd.items) items.push(...(yield* this.fields(w)));
        else items.push(...this.positional);
        let last = 0;
        this.loops++;
        try {
          for (const item of items) {
            this.vars.set(cmd.name, item);
            const r = yield* this.loopBody(cmd.body, rio);
            last = this.status;
            if (r === 'break') break;
          }
        } finally {
          this.loops--;
        }
        this.status = last;
        return last;
      }
      case 'case': {
        const rio = yield* this.redirect(cmd.redirects, io);
        if (!rio) return this.status;
        const subject = yield* this.string(cmd.word);
        this.status = 0;
        for (const item of cmd.items) {
          for (const p of item.patterns) {
            const re = patternRe(`^(?:${yield* this.pattern(p)})$`, 's');
            if (re?.test(subject)) return yield* this.runList(item.body, rio);
          }
        }
        return 0;
      }
      case 'group': {
        const rio = yield* this.redirect(cmd.redirects, io);
        if (!rio) return this.status;
        if (!cmd.subshell) return yield* this.runList(cmd.body, rio);
        const sub = this.fork();
        try {
          this.status = yield* sub.runList(cmd.body, { ...rio });
        } catch (e) {
          this.status = sub.caught(e, rio);
        }
        this.checkErrexit(this.status);
        return this.status;
      }
      case 'function':
        this.functions.set(cmd.name, cmd.body);
        this.status = 0;
        return 0;
    }
  }

  /** One pass of a loop's body: 'break' when the loop ends here. */
  private *loopBody(body: List, io: Io): Run<'break' | undefined> {
    try {
      yield* this.runList(body, io);
      return undefined;
    } catch (e) {
      if (!(e instanceof LoopSignal)) throw e;
      if (e.levels > 1) throw new LoopSignal(e.levels - 1, e.next);
      return e.next ? undefined : 'break';
    }
  }

  private *pipeline(cmd: Extract<Command, { type: 'pipeline' }>, io: Io): Run<number> {
    if (cmd.bang) this.conditions++;
    let code = 0;
    let failed = 0;
    try {
      if (cmd.commands.length === 1) code = yield* this.run(cmd.commands[0]!, io);
      else {
        // Each command of a pipeline is a subshell; it runs to its end before the next reads its output.
        let input: Source = io.in;
        for (const [i, c] of cmd.commands.entries()) {
          const last = i === cmd.commands.length - 1;
          const out: Sink = last ? io.out : { kind: 'buffer', chunks: [] };
          const sub = this.fork();
          try {
            code = yield* sub.run(c, { in: input, out, err: io.err });
          } catch (e) {
            code = sub.caught(e, io);
          }
          if (code !== 0) failed = code;
          if (out.kind === 'buffer') input = { kind: 'text', text: out.chunks.join(''), pos: 0 };
        }
        if (this.pipefail && code === 0) code = failed;
      }
    } finally {
      if (cmd.bang) this.conditions--;
    }
    this.status = cmd.bang ? (code === 0 ? 1 : 0) : code;
    if (!cmd.bang) this.checkErrexit(this.status);
    return this.status;
  }

  // ---- simple commands

  private *simple(cmd: Extract<Command, { type: 'simple' }>, io: Io): Run<number> {
    this.line = cmd.line;
    this.substStatus = undefined;
    this.io = io;
    if (cmd.conditional) {
      yield { kind: 'observe' };
      const code = yield* this.conditional(cmd.words.slice(1, -1), io);
      yield { kind: 'tick' };
      return code;
    }
    const argv: string[] = [];
    for (const w of cmd.words) argv.push(...(yield* this.fields(w)));
    const assigns: [string, string][] = [];
    for (const a of cmd.assigns) assigns.push([a.name, yield* this.string(this.tildeExpanded(a.value) ?? a.value)]);
    if (this.xtrace) {
      const shown = [...assigns.map(([k, v]) => `${k}=${v}`), ...argv].map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`));
      if (shown.length) write(this.host, io.err, `+ ${shown.join(' ')}\n`);
    }
    if (argv.length === 1 && argv[0] === 'exec' && !this.functions.has('exec')) {
      // exec with only redirections: they stay for the rest of this shell's commands.
      const rio = yield* this.redirect(cmd.redirects, io);
      if (rio) Object.assign(io, rio);
      yield { kind: 'tick' };
      return rio ? 0 : this.status;
    }
    if (!argv.length) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      if (touchesFiles('', cmd.redirects)) yield { kind: 'observe' };
      const rio = yield* this.redirect(cmd.redirects, io);
      const code = rio ? (this.substStatus ?? 0) : this.status;
      yield { kind: 'tick' };
      return code;
    }
    if (touchesFiles(argv[0]!, cmd.redirects)) yield { kind: 'observe' };
    const rio = yield* this.redirect(cmd.redirects, io);
    if (!rio) {
      yield { kind: 'tick' };
      return this.status;
    }
    const code = yield* this.command(argv, assigns, rio, cmd === this.execsInPlace && this.exitTrap === undefined);
    yield { kind: 'tick' };
    return code;
  }

  /** Runs a command's words: a function, a builtin, else a program on PATH (`inPlace`: exec'd in place of the shell). */
  private *command(argv: string[], assigns: [string, string][], io: Io, inPlace = false): Run<number> {
    const [name, ...args] = argv as [string, ...string[]];
    const fn = this.functions.get(name);
    if (fn) return yield* this.call(fn, args, io);
    if (builtinNames.has(name) && (name !== 'let' || this.name === 'bash')) {
      // A special builtin's assignments stay; another's last for the command.
      const saved = specialBuiltins.has(name) ? [] : assigns.map(([k]) => [k, this.vars.get(k)] as const);
      for (const [k, v] of assigns) this.vars.set(k, v);
      try {
        return yield* this.builtin(name, args, io);
      } finally {
        for (const [k, v] of saved) {
          if (v === undefined) this.vars.delete(k);
          else this.vars.set(k, v);
        }
      }
    }
    const env = this.environment(assigns);
    const found = shellLookUp(this.host, name, env.get('PATH') ?? defaultPath, this.cwd, this.name);
    if ('error' in found) return this.notRunnable(name, found.error, io);
    if (inPlace) this.host.cmdline = argv;
    return yield* runProgram(this.host, found, argv, io, env, this.cwd);
  }

  private notRunnable(name: string, error: Extract<Found, { error: string }>['error'], io: Io): number {
    if (error === 'not found') {
      this.error(io, this.name === 'bash' ? `${name}: command not found` : `${name}: not found`);
      return 127;
    }
    const text = { 'no such file': 'No such file or directory', 'permission denied': 'Permission denied', 'exec format error': 'Exec format error' }[error];
    this.error(io, `${name}: ${text}`);
    return error === 'no such file' ? 127 : 126;
  }

  private *call(fn: Command, args: string[], io: Io): Run<number> {
    // ash recurses until its stack runs out and the kernel kills it (SIGSEGV); kubesim's stack is shorter.
    if (this.calls >= 300) throw new StackOverflow();
    const saved = this.positional;
    this.positional = args;
    this.calls++;
    yield { kind: 'tick' };
    try {
      return yield* this.run(fn, io);
    } catch (e) {
      if (e instanceof ReturnSignal) {
        this.status = e.code;
        return e.code;
      }
      throw e;
    } finally {
      this.calls--;
      this.positional = saved;
    }
  }

  private number(io: Io, cmd: string, arg: string | undefined, fallback: number): number | undefined {
    if (arg === undefined) return fallback;
    if (!/^\d+$/.test(arg)) {
      if (this.name === 'bash') this.error(io, `${arg}: numeric argument required`, cmd);
      else this.error(io, `Illegal number: ${arg}`, cmd);
      return undefined;
    }
    return Number(arg);
  }

  private *builtin(name: string, args: string[], io: Io): Run<number> {
    const ctx = () => toolContext(this.host, this.arg0, io, this.environment(), this.cwd);
    switch (name) {
      case ':':
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'echo':
      case 'printf':
        return tools.get(name)!(args, ctx()) as number;
      case 'test':
      case '[':
        return testExpression(args, ctx(), name === '[');
      case 'pwd':
        write(this.host, io.out, this.cwd + '\n');
        return 0;
      case 'exit': {
        const n = this.number(io, 'exit', args[0], this.status);
        throw new ExitSignal(n === undefined ? 2 : n & 255);
      }
      case 'return': {
        const n = this.number(io, 'return', args[0], this.status);
        throw new ReturnSignal(n === undefined ? 2 : n & 255);
      }
      case 'break':
      case 'continue': {
        const n = this.number(io, name, args[0], 1);
        if (n === undefined) return 2;
        if (!this.loops) return 0;
        throw new LoopSignal(Math.min(Math.max(n, 1), this.loops), name === 'continue');
      }
      case 'cd': {
        const target = args[0] === '-' ? (this.vars.get('OLDPWD') ?? this.cwd) : (args[0] ?? this.vars.get('HOME') ?? '/');
        const path = resolvePath(this.cwd, target);
        if (this.host.files.get(path)?.type !== 'dir') {
          if (this.name === 'bash') this.error(io, `${target}: No such file or directory`, 'cd');
          else this.error(io, this.dash ? `can't cd to ${target}` : `can't cd to ${target}: No such file or directory`, 'cd');
          return this.name === 'bash' ? 1 : 2;
        }
        this.vars.set('OLDPWD', this.cwd);
        this.cwd = path;
        this.vars.set('PWD', path);
        if (args[0] === '-') write(this.host, io.out, path + '\n');
        return 0;
      }
      case 'export':
      case 'readonly':
      case 'local': {
        const names = args.filter((a) => a !== '-p' && a !== '-n');
        if (!names.length) {
          for (const k of [...this.exported].map(([k]) => k).sort()) if (this.vars.has(k)) write(this.host, io.out, `export ${k}='${this.vars.get(k)!.replace(/'/g, `'"'"'`)}'\n`);
          return 0;
        }
        for (const a of names) {
          const eq = a.indexOf('=');
          const k = eq < 0 ? a : a.slice(0, eq);
          if (eq >= 0) this.vars.set(k, a.slice(eq + 1));
          if (name === 'export') this.exported.add(k);
        }
        return 0;
      }
      case 'unset':
        for (const a of args) {
          if (a === '-v' || a === '-f') continue;
          this.vars.delete(a);
          this.exported.delete(a);
          this.functions.delete(a);
        }
        return 0;
      case 'set':
        return this.set(args, io);
      case 'shift': {
        const n = this.number(io, 'shift', args[0], 1);
        if (n === undefined) return 2;
        if (n > this.positional.length) {
          if (this.name !== 'bash') this.error(io, "can't shift that many", 'shift');
          return 1;
        }
        this.positional = this.positional.slice(n);
        return 0;
      }
      case 'read':
        return yield* this.read(args, io);
      case 'eval':
        if (!args.length) return 0;
        return yield* this.evalText(args.join(' '), io);
      case '.':
      case 'source': {
        const file = args[0];
        if (file === undefined) {
          this.error(io, 'filename argument required', name);
          return 2;
        }
        const path = file.includes('/') ? resolvePath(this.cwd, file) : (this.vars.get('PATH') ?? '').split(':').map((d) => resolvePath(this.cwd, `${d}/${file}`)).find((p) => this.host.files.get(p)?.type === 'file');
        const text = path ? readFile(this.host.files, path) : undefined;
        if (text === undefined) throw new ShellError(`can't open '${file}': No such file or directory`, name);
        const saved = this.positional;
        if (args.length > 1) this.positional = args.slice(1);
        try {
          return yield* this.evalText(text, io);
        } catch (e) {
          if (e instanceof ReturnSignal) return e.code;
          throw e;
        } finally {
          this.positional = saved;
        }
      }
      case 'exec': {
        if (!args.length) return 0;
        const env = this.environment();
        const found = shellLookUp(this.host, args[0]!, env.get('PATH') ?? '', this.cwd, this.name);
        if ('error' in found) {
          const code = this.notRunnable(args[0]!, found.error, io);
          throw new ExitSignal(code);
        }
        // The program replaces the shell: its end is the shell's, and ps shows it.
        this.host.cmdline = args;
        throw new ExitSignal(yield* runProgram(this.host, found, args, io, env, this.cwd));
      }
      case 'trap': {
        if (args.length >= 2 && args.slice(1).some((s) => s === 'EXIT' || s === '0')) this.exitTrap = args[0] === '-' ? undefined : args[0];
        // A SIGTERM handler: the signal is delivered to the shell, which runs it after the command in progress.
        if (args.length >= 2 && args.slice(1).some((s) => /^(SIG)?TERM$|^15$/.test(s))) {
          this.termTrap = args[0] === '-' ? undefined : args[0];
          this.host.trapsTerm = this.termTrap !== undefined;
        }
        return 0;
      }
      case 'wait':
      case 'umask':
      case 'kill':
        return killTool(args, ctx());
      case 'let': {
        let v = 0n;
        for (const a of args) v = this.arith(a);
        return v === 0n ? 1 : 0;
      }
      case 'type':
      case 'command': {
        const verbose = name === 'type' || args[0] === '-V';
        const names = name === 'command' ? args.filter((a) => !a.startsWith('-')) : args;
        if (name === 'command' && !args[0]?.startsWith('-')) {
          if (!names.length) return 0;
          return yield* this.command(names, [], io);
        }
        let code = 0;
        for (const n of names) {
          const found = lookUp(this.host, n, this.vars.get('PATH') ?? '', this.cwd);
          if (this.functions.has(n)) write(this.host, io.out, verbose ? `${n} is a function\n` : `${n}\n`);
          else if (builtinNames.has(n)) write(this.host, io.out, verbose ? `${n} is a ${specialBuiltins.has(n) ? 'special ' : ''}shell builtin\n` : `${n}\n`);
          else if (!('error' in found)) write(this.host, io.out, verbose ? `${n} is ${found.path}\n` : `${found.path}\n`);
          else {
            if (verbose) write(this.host, io.out, `${n}: not found\n`);
            code = 127;
          }
        }
        return code;
      }
      default:
        return 0;
    }
  }

  private set(args: string[], io: Io): number {
    if (!args.length) {
      for (const [k, v] of [...this.vars].sort(([a], [b]) => (a < b ? -1 : 1))) write(this.host, io.out, `${k}='${v.replace(/'/g, `'"'"'`)}'\n`);
      return 0;
    }
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') {
        i++;
        this.positional = args.slice(i);
        return 0;
      }
      if (a === '-o' || a === '+o') {
        const opt = args[++i];
        if (opt !== undefined && !this.setLongOption(opt, a === '-o')) {
          this.error(io, `illegal option -o ${opt}`, 'set');
          return 2;
        }
        continue;
      }
      if (!/^[-+][a-zA-Z]+$/.test(a)) break;
      for (const f of a.slice(1)) {
        if (!this.setOption(f, a[0] === '-')) {
          this.error(io, `illegal option -${f}`, 'set');
          return 2;
        }
      }
    }
    if (i < args.length) this.positional = args.slice(i);
    return 0;
  }

  private *evalText(text: string, io: Io): Run<number> {
    let list: List;
    try {
      list = parseScript(text);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      throw new ShellError(`syntax error: ${e.message}`);
    }
    return yield* this.runList(list, io);
  }

  private *read(args: string[], io: Io): Run<number> {
    let raw = false;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-r') raw = true;
      else if (a === '-p') write(this.host, io.err, args[++i] ?? '');
      else if (a === '-s') continue;
      else if (a === '-t' || a === '-n' || a === '-u' || a === '-d') i++;
      else names.push(a);
    }
    if (!names.length) names.push('REPLY');
    let line = '';
    let ended = false;
    for (;;) {
      const chunk = yield* readLine(io.in);
      if (chunk === undefined) {
        ended = true;
        break;
      }
      line += chunk;
      if (!line.endsWith('\n')) {
        ended = true;
        break;
      }
      // A backslash before the newline continues the line (without -r).
      if (!raw && line.endsWith('\\\n')) {
        line = line.slice(0, -2);
        continue;
      }
      line = line.slice(0, -1);
      break;
    }
    if (!raw) line = line.replace(/\\(.)/g, '$1');
    const ifs = this.vars.get('IFS') ?? ' \t\n';
    const ws = `[${ifs.replace(/[\]\\^-]/g, '\\$&')}]`;
    let rest = ifs ? line.replace(new RegExp(`^${ws}+`), '') : line;
    names.forEach((n, k) => {
      if (k === names.length - 1) {
        this.vars.set(n, ifs ? rest.replace(new RegExp(`${ws}+$`), '') : rest);
        return;
      }
      const m = ifs ? new RegExp(`${ws}+`).exec(rest) : null;
      if (!m) {
        this.vars.set(n, rest);
        rest = '';
      } else {
        this.vars.set(n, rest.slice(0, m.index));
        rest = rest.slice(m.index + m[0].length);
      }
    });
    return ended ? 1 : 0;
  }

  /**
   * `[[ EXPR ]]`: test's operators and `&&`, `||`, `!`, `( )` over words that
   * are not split; `==`/`!=` match a glob (its quoted parts literally), `=~`
   * an extended regular expression. 0 true, 1 false, 2 an error.
   */
  private *conditional(words: Word[], io: Io): Run<number> {
    const texts: string[] = [];
    const patterns: string[] = [];
    for (const w of words) {
      texts.push(yield* this.string(w));
      patterns.push(yield* this.pattern(w));
    }
    const ctx = toolContext(this.host, this.arg0, io, this.environment(), this.cwd);
    let i = 0;
    let failed = false;
    const test = (args: string[]) => {
      const code = testExpression(args, ctx, false);
      if (code === 2) failed = true;
      return code === 0;
    };
    const primary = (): boolean => {
      const a = texts[i];
      if (a === '!') {
        i++;
        return !primary();
      }
      if (a === '(') {
        i++;
        const v = or();
        i++;
        return v;
      }
      const op = texts[i + 1];
      if (op === '==' || op === '=' || op === '!=') {
        const re = patternRe(`^(?:${patterns[i + 2] ?? ''})$`, 's');
        const hit = !!re?.test(a ?? '');
        i += 3;
        return op === '!=' ? !hit : hit;
      }
      if (op === '=~') {
        const re = patternRe(texts[i + 2] ?? '');
        i += 3;
        if (!re) {
          failed = true;
          return false;
        }
        return re.test(a ?? '');
      }
      if (op !== undefined && ['<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot'].includes(op)) {
        i += 3;
        return test([a ?? '', op, texts[i - 1] ?? '']);
      }
      if (a !== undefined && /^-[a-zA-Z]$/.test(a) && texts[i + 1] !== undefined) {
        i += 2;
        return test([a, texts[i - 1]!]);
      }
      i++;
      return (a ?? '') !== '';
    };
    const and = (): boolean => {
      let v = primary();
      while (texts[i] === '&&') {
        i++;
        const r = primary();
        v = v && r;
      }
      return v;
    };
    const or = (): boolean => {
      let v = and();
      while (texts[i] === '||') {
        i++;
        const r = and();
        v = v || r;
      }
      return v;
    };
    const v = or();
    return failed ? 2 : v ? 0 : 1;
  }

  // ---- redirections

  /** The io a command's redirections make, or undefined (reported, status set) when one failed. */
  private *redirect(redirects: Redirect[], io: Io): Run<Io | undefined> {
    if (!redirects.length) return io;
    const next: Io = { ...io };
    for (const r of redirects) {
      if (r.op === '<<' || r.op === '<<-') {
        if (r.fd === 0) next.in = { kind: 'text', text: yield* this.string(r.here ?? []), pos: 0 };
        continue;
      }
      const target = yield* this.string(r.target);
      if (r.op === '>&' || r.op === '<&') {
        if (target === '-') {
          if (r.fd === 0) next.in = { kind: 'null' };
          else if (r.fd === 1) next.out = { kind: 'null' };
          else if (r.fd === 2) next.err = { kind: 'null' };
          continue;
        }
        if (!/^\d+$/.test(target)) {
          if (r.op === '<&') {
            this.error(io, `${target}: bad file descriptor`);
            this.status = 1;
            return undefined;
          }
          // bash's >&file: both streams to the file.
          const sink = this.openSink(target, false, io);
          if (!sink) return undefined;
          next.out = sink;
          next.err = sink;
          continue;
        }
        const n = Number(target);
        if (r.fd === 0 || n === 0) continue;
        const sink = n === 1 ? next.out : n === 2 ? next.err : undefined;
        if (!sink) {
          this.error(io, `${target}: bad file descriptor`);
          this.status = 1;
          return undefined;
        }
        if (r.fd === 1) next.out = sink;
        else if (r.fd === 2) next.err = sink;
        continue;
      }
      if (r.op === '<' || r.op === '<>') {
        if (target === '/dev/null') {
          if (r.fd === 0) next.in = { kind: 'null' };
          continue;
        }
        const path = resolvePath(this.cwd, target);
        const text = readFile(this.host.files, path);
        if (text === undefined && r.op === '<') {
          this.error(io, `can't open ${target}: no such file`);
          this.status = 2;
          return undefined;
        }
        if (r.fd === 0) next.in = { kind: 'text', text: text ?? '', pos: 0 };
        continue;
      }
      const sink = this.openSink(target, r.op === '>>', io);
      if (!sink) return undefined;
      if (r.fd === 1) next.out = sink;
      else if (r.fd === 2) next.err = sink;
    }
    return next;
  }

  private openSink(target: string, append: boolean, io: Io): Sink | undefined {
    if (target === '/dev/null') return { kind: 'null' };
    if (target === '/dev/stdout') return io.out;
    if (target === '/dev/stderr') return io.err;
    if (target === '/dev/termination-log' || target.startsWith('/proc/1/fd/')) {
      if (target === '/proc/1/fd/1') return { kind: 'stream', stream: 1 };
      if (target === '/proc/1/fd/2') return { kind: 'stream', stream: 2 };
    }
    const path = resolvePath(this.cwd, target);
    const exists = this.host.files.get(path)?.type === 'file';
    const failure = append && exists ? (isReadOnly(this.host.files, path) ? erofs : undefined) : writeFile(this.host.files, path, '', false);
    if (failure) {
      this.error(io, `can't create ${target}: ${failure}`);
      this.status = 2;
      return undefined;
    }
    return { kind: 'file', path };
  }

  // ---- expansions

  private arith(text: string): bigint {
    try {
      return evaluateArith(text, { get: (n) => this.param(n), set: (n, v) => this.vars.set(n, v) });
    } catch (e) {
      if (e instanceof ArithError) throw new ShellError(this.name === 'bash' ? `${text.trim()}: ${e.message === 'divide by zero' ? 'division by 0' : 'syntax error in expression'}` : e.message);
      throw e;
    }
  }

  /** A parameter's value; undefined when unset. */
  private param(name: string): string | undefined {
    if (/^\d+$/.test(name)) return name === '0' ? this.arg0 : this.positional[Number(name) - 1];
    switch (name) {
      case '#':
        return String(this.positional.length);
      case '?':
        return String(this.status);
      case '$':
        return String(this.pid);
      case '!':
        return undefined;
      case '-':
        return (this.errexit ? 'e' : '') + (this.xtrace ? 'x' : '') + (this.nounset ? 'u' : '');
      case '@':
      case '*':
        return this.positional.join(' ');
      case 'RANDOM':
        return String(this.host.random());
      case 'LINENO':
        return String(this.line);
      case 'PWD':
        return this.vars.get('PWD') ?? this.cwd;
      default:
        return this.vars.get(name);
    }
  }

  /** The pieces a word expands to, before field splitting. */
  private *pieces(word: Word): Run<Piece[]> {
    const out: Piece[] = [];
    for (const part of word) out.push(...(yield* this.expandPart(part)));
    return out;
  }

  private *expandPart(part: WordPart): Run<Piece[]> {
    switch (part.type) {
      case 'lit':
        return [{ text: part.text, quoted: part.quoted, literal: true }];
      case 'cmd': {
        const sub = this.fork();
        const out: Sink = { kind: 'buffer', chunks: [] };
        const io: Io = { in: this.io?.in ?? { kind: 'null' }, out, err: this.io?.err ?? { kind: 'stream', stream: 2 } };
        let code: number;
        try {
          code = yield* sub.runList(part.body, io);
        } catch (e) {
          code = sub.caught(e, io);
        }
        this.substStatus = code;
        this.status = code;
        return [{ text: out.chunks.join('').replace(/\n+$/, ''), quoted: part.quoted }];
      }
      case 'arith': {
        const text = yield* this.string(part.expr);
        return [{ text: String(this.arith(text)), quoted: part.quoted }];
      }
      case 'param':
        return yield* this.expandParam(part);
    }
  }

  private *expandParam(part: Extract<WordPart, { type: 'param' }>): Run<Piece[]> {
    const { name, op, quoted } = part;
    if ((name === '@' || name === '*') && !op && !part.length) {
      if (name === '@' && quoted) return this.positional.map((p, i) => ({ text: p, quoted: true, ...(i ? { breakBefore: true } : {}) }));
      return [{ text: this.positional.join(' '), quoted }];
    }
    let value = this.param(name);
    if (part.length) return [{ text: String((value ?? '').length), quoted }];
    const unset = value === undefined || (op !== undefined && op.startsWith(':') && value === '');
    switch (op) {
      case ':-':
      case '-':
        if (unset) return (yield* this.pieces(part.arg ?? [])).map((p) => ({ ...p, literal: false, quoted: p.quoted || quoted }));
        break;
      case ':=':
      case '=':
        if (unset) {
          value = yield* this.string(part.arg ?? []);
          this.vars.set(name, value);
        }
        break;
      case ':+':
      case '+':
        return unset ? [] : (yield* this.pieces(part.arg ?? [])).map((p) => ({ ...p, literal: false, quoted: p.quoted || quoted }));
      case ':?':
      case '?':
        if (unset) {
          const msg = yield* this.string(part.arg ?? []);
          throw new ShellError(`${name}: ${msg || (value === undefined ? 'parameter not set' : 'parameter null or not set')}`);
        }
        break;
      case ':': {
        // ${VAR:OFFSET[:LENGTH]}: arithmetic offset (from the end when negative) and length.
        const spec = yield* this.string(part.arg ?? []);
        const [off = '0', len] = splitSubstring(spec);
        const v = value ?? '';
        let start = Number(this.arith(off));
        if (start < 0) start = Math.max(v.length + start, 0);
        const count = len === undefined ? v.length : Number(this.arith(len));
        value = v.slice(start, count < 0 ? v.length + count : start + count);
        break;
      }
      case '#':
      case '##':
      case '%':
      case '%%': {
        const pattern = yield* this.pattern(part.arg ?? []);
        value = removePattern(value ?? '', pattern, op);
        break;
      }
    }
    if (value === undefined && this.nounset && !/^[@*#?$!-]$/.test(name)) throw new ShellError(`${name}: parameter not set`);
    return [{ text: value ?? '', quoted }];
  }

  /** A word as one string (assignments, redirection targets, case subjects). */
  *string(word: Word): Run<string> {
    return (yield* this.pieces(word)).map((p) => p.text).join('');
  }

  /** A word as a pattern's regular expression source (case, ${VAR#pattern}). */
  private *pattern(word: Word): Run<string> {
    return (yield* this.pieces(word)).map((p) => globSource(p.text, p.quoted)).join('');
  }

  /**
   * The word with its tilde-prefix expanded: an unquoted `~` up to the first
   * `/` (or the whole word) is $HOME, `~root` root's home, `~+` and `~-`
   * $PWD and $OLDPWD; the result is neither split nor globbed. Undefined
   * when the word has none, or names a user it does not know.
   */
  private tildeExpanded(word: Word): Word | undefined {
    const first = word[0];
    if (first?.type !== 'lit' || first.quoted || !first.text.startsWith('~')) return undefined;
    const slash = first.text.indexOf('/');
    if (slash < 0 && word.length > 1) return undefined;
    const login = first.text.slice(1, slash < 0 ? undefined : slash);
    const dir = login === '' ? (this.vars.get('HOME') ?? (this.host.view.uid === 0 ? '/root' : undefined)) : login === 'root' ? '/root' : login === '+' ? this.param('PWD') : login === '-' ? this.vars.get('OLDPWD') : undefined;
    if (dir === undefined) return undefined;
    return [{ type: 'lit', text: dir, quoted: true }, ...(slash < 0 ? [] : [{ type: 'lit' as const, text: first.text.slice(slash), quoted: false }]), ...word.slice(1)];
  }

  /** A word's fields: unquoted expansions split on IFS, then pathname expansion. */
  *fields(word: Word): Run<string[]> {
    word = this.tildeExpanded(word) ?? word;
    // A plain word is its own field.
    if (word.length === 1 && word[0]!.type === 'lit' && (word[0]!.quoted || !globChars.test(word[0]!.text))) return [word[0]!.text];
    const pieces = yield* this.pieces(word);
    const ifs = this.vars.get('IFS') ?? ' \t\n';
    const fields: { pieces: Piece[]; glob: boolean }[] = [];
    let cur: { pieces: Piece[]; glob: boolean } = { pieces: [], glob: false };
    let has = false;
    const flush = () => {
      if (has) fields.push(cur);
      cur = { pieces: [], glob: false };
      has = false;
    };
    const add = (text: string, quoted: boolean) => {
      cur.pieces.push({ text, quoted });
      if (!quoted && globChars.test(text)) cur.glob = true;
    };
    const split = ifs ? splitter(ifs) : undefined;
    for (const p of pieces) {
      if (p.breakBefore) flush();
      if (p.quoted || p.literal || !split) {
        add(p.text, p.quoted);
        if (p.quoted || p.text) has = true;
        continue;
      }
      // An unquoted expansion: split on IFS.
      p.text.split(split).forEach((s, k) => {
        if (k > 0) flush();
        add(s, false);
        if (s) has = true;
      });
    }
    flush();
    const out: string[] = [];
    // A glob lists directories: what other processes wrote there must have happened by now.
    if (fields.some((f) => f.glob)) yield { kind: 'observe' };
    for (const f of fields) {
      const text = f.pieces.map((p) => p.text).join('');
      if (!f.glob) {
        out.push(text);
        continue;
      }
      const pattern = f.pieces.map((p) => globSource(p.text, p.quoted, '[^/]*')).join('');
      const segments = splitPattern(text, pattern);
      const matches = segments ? glob(this.host.files, this.cwd, segments, text.startsWith('/')) : undefined;
      out.push(...(matches ?? [text]));
    }
    return out;
  }
}


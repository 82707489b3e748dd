/**
 * The programs a simulated container can run for `kubectl exec`, each
 * answering only from what the container sees (containerView.ts): cat, ls,
 * env, printenv, hostname, echo, true, false, pwd, id, and `sh -c` / `bash -c`
 * over them. Their messages are busybox's. A command the image does not have
 * fails to start, as runc reports it through containerd.
 */
import type { ContainerView, FsEntry } from './containerView';
import { imagePrograms } from './containerView';

/** What a process did: its output and exit code. */
export interface ProcessResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The process ran (whatever its code), or the runtime could not start it (runc's error text). */
export type ExecOutcome = ({ started: true } & ProcessResult) | { started: false; error: string };

interface Io {
  out: string[];
  err: string[];
  stdin: string;
  env: Map<string, string>;
}

const decoder = new TextDecoder();

function resolvePath(view: ContainerView, p: string): string {
  const abs = p.startsWith('/') ? p : `${view.workingDir}/${p}`;
  const parts: string[] = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** The entries directly under a directory, sorted as busybox ls sorts (by name). */
function children(view: ContainerView, dir: string): string[] {
  const prefix = dir === '/' ? '/' : dir + '/';
  const out: string[] = [];
  for (const p of view.files.keys()) if (p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push(p.slice(prefix.length));
  return out.sort();
}

function modeString(e: FsEntry): string {
  const bits = 'rwxrwxrwx';
  let s = e.type === 'dir' ? 'd' : '-';
  for (let i = 0; i < 9; i++) s += e.mode & (1 << (8 - i)) ? bits[i] : '-';
  if (e.mode & 0o1000) s = s.slice(0, 9) + (e.mode & 1 ? 't' : 'T');
  return s;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function userName(id: number): string {
  return id === 0 ? 'root' : String(id);
}

/** busybox `ls -l`'s line for one entry. */
function longLine(e: FsEntry, name: string, mtime: Date): string {
  const size = e.type === 'file' ? e.content.byteLength : 4096;
  const links = e.type === 'dir' ? 2 : 1;
  const date = `${months[mtime.getUTCMonth()]} ${String(mtime.getUTCDate()).padStart(2)} ${String(mtime.getUTCHours()).padStart(2, '0')}:${String(mtime.getUTCMinutes()).padStart(2, '0')}`;
  return `${modeString(e)} ${String(links).padStart(4)} ${userName(0).padEnd(8)} ${userName(0).padEnd(8)} ${String(size).padStart(9)} ${date} ${name}`;
}

function ls(view: ContainerView, args: string[], io: Io, now: Date): number {
  let long = false;
  let all = false;
  const paths: string[] = [];
  for (const a of args) {
    if (a.startsWith('-') && a.length > 1) {
      for (const f of a.slice(1)) {
        if (f === 'l') long = true;
        else if (f === 'a') all = true;
        else if (f !== '1') {
          io.err.push(`ls: unrecognized option: ${f}\n`);
          return 1;
        }
      }
    } else paths.push(a);
  }
  if (!paths.length) paths.push('.');
  let code = 0;
  const fileArgs: string[] = [];
  const dirArgs: string[] = [];
  for (const p of paths) {
    const e = view.files.get(resolvePath(view, p));
    if (!e) {
      io.err.push(`ls: ${p}: No such file or directory\n`);
      code = 1;
    } else if (e.type === 'dir') dirArgs.push(p);
    else fileArgs.push(p);
  }
  const line = (path: string, name: string) => (long ? longLine(view.files.get(path)!, name, now) : name);
  for (const f of fileArgs) io.out.push(line(resolvePath(view, f), f) + '\n');
  dirArgs.forEach((d, i) => {
    const dir = resolvePath(view, d);
    if (paths.length > 1) io.out.push(`${fileArgs.length || i ? '\n' : ''}${d}:\n`);
    const names = children(view, dir);
    if (all) {
      io.out.push(line(dir, '.') + '\n');
      io.out.push(line(dir === '/' ? '/' : dir.slice(0, dir.lastIndexOf('/')) || '/', '..') + '\n');
    }
    for (const n of names) io.out.push(line(dir === '/' ? `/${n}` : `${dir}/${n}`, n) + '\n');
  });
  return code;
}

function cat(view: ContainerView, args: string[], io: Io): number {
  let code = 0;
  for (const a of args.length ? args : ['-']) {
    if (a === '-') {
      io.out.push(io.stdin);
      continue;
    }
    const e = view.files.get(resolvePath(view, a));
    if (!e) {
      io.err.push(`cat: can't open '${a}': No such file or directory\n`);
      code = 1;
    } else if (e.type === 'dir') {
      io.err.push('cat: read error: Is a directory\n');
      code = 1;
    } else io.out.push(decoder.decode(e.content));
  }
  return code;
}

function id(view: ContainerView): string {
  const named = (n: number) => (n === 0 ? '0(root)' : String(n));
  return `uid=${named(view.uid)} gid=${named(view.gid)} groups=${view.groups.map(named).join(',')}\n`;
}

/** Whether the name reaches one of the image's programs: a bare name through PATH, a path when the file is there. */
function lookUp(view: ContainerView, name: string, env: Map<string, string>): { program: string } | { error: string } {
  if (name.includes('/')) {
    const path = resolvePath(view, name);
    const e = view.files.get(path);
    if (!e) return { error: `stat ${name}: no such file or directory` };
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (e.type === 'dir' || !(e.mode & 0o111) || !imagePrograms.includes(base)) return { error: 'permission denied' };
    return { program: base };
  }
  for (const dir of (env.get('PATH') ?? '').split(':')) {
    if (!dir) continue;
    const e = view.files.get(resolvePath(view, `${dir}/${name}`));
    if (e?.type === 'file' && imagePrograms.includes(name)) return { program: name };
  }
  return { error: 'executable file not found in $PATH' };
}

/** runc's message for a command it could not start. */
const startError = (name: string, error: string) => `OCI runtime exec failed: exec failed: unable to start container process: exec: ${JSON.stringify(name)}: ${error}: unknown`;

/** Runs one program the image has. */
function runProgram(view: ContainerView, program: string, args: string[], io: Io, now: Date): number {
  switch (program) {
    case 'cat':
      return cat(view, args, io);
    case 'ls':
      return ls(view, args, io, now);
    case 'env': {
      // env [NAME=VALUE]... [COMMAND [ARG]...]
      let i = 0;
      const env = new Map(io.env);
      for (; i < args.length && args[i]!.includes('=') && !args[i]!.startsWith('='); i++) env.set(args[i]!.slice(0, args[i]!.indexOf('=')), args[i]!.slice(args[i]!.indexOf('=') + 1));
      if (i < args.length) {
        const found = lookUp(view, args[i]!, env);
        if ('error' in found) {
          io.err.push(`env: can't execute '${args[i]}': No such file or directory\n`);
          return 127;
        }
        return runProgram(view, found.program, args.slice(i + 1), { ...io, env }, now);
      }
      for (const [k, v] of env) io.out.push(`${k}=${v}\n`);
      return 0;
    }
    case 'printenv': {
      if (!args.length) {
        for (const [k, v] of io.env) io.out.push(`${k}=${v}\n`);
        return 0;
      }
      let code = 0;
      for (const a of args) {
        const v = io.env.get(a);
        if (v === undefined) code = 1;
        else io.out.push(v + '\n');
      }
      return code;
    }
    case 'hostname':
      io.out.push(view.hostname + '\n');
      return 0;
    case 'echo': {
      const noNewline = args[0] === '-n';
      io.out.push((noNewline ? args.slice(1) : args).join(' ') + (noNewline ? '' : '\n'));
      return 0;
    }
    case 'true':
      return 0;
    case 'false':
      return 1;
    case 'pwd':
      io.out.push(view.workingDir + '\n');
      return 0;
    case 'id':
      io.out.push(id(view));
      return 0;
    case 'sh':
    case 'bash':
      return shell(view, program, args, io, now);
    default:
      return 127;
  }
}

/** A word list and the operator that ends it (`;`, `&&`, `||` or the end). */
interface Simple {
  words: string[];
  then: ';' | '&&' | '||' | '';
}

/** Splits a script into simple commands, quoting and `$NAME`/`${NAME}` expansion as sh does; undefined with what it cannot run. */
function parseScript(script: string, env: ReadonlyMap<string, string>): Simple[] | { unsupported: string } {
  const out: Simple[] = [];
  let words: string[] = [];
  let word: string | undefined;
  const push = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const end = (then: Simple['then']) => {
    push();
    if (words.length || then) out.push({ words, then });
    words = [];
  };
  const expand = (i: number): [string, number] => {
    if (script[i + 1] === '{') {
      const close = script.indexOf('}', i + 2);
      const name = script.slice(i + 2, close < 0 ? script.length : close);
      return [env.get(name) ?? '', close < 0 ? script.length : close];
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*|^[?$]/.exec(script.slice(i + 1));
    if (!m) return ['$', i];
    return [env.get(m[0]) ?? '', i + m[0].length];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === ' ' || c === '\t') push();
    else if (c === '\n' || c === ';') end(';');
    else if (c === '&' && script[i + 1] === '&') {
      end('&&');
      i++;
    } else if (c === '|' && script[i + 1] === '|') {
      end('||');
      i++;
    } else if ('|&<>`()'.includes(c) || (c === '$' && script[i + 1] === '(')) return { unsupported: c === '$' ? '$(' : c };
    else if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return { unsupported: "'" };
      word = (word ?? '') + script.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < script.length && script[i] !== '"'; i++) {
        if (script[i] === '\\' && '"\\$`'.includes(script[i + 1] ?? '')) word += script[++i];
        else if (script[i] === '$') {
          const [v, at] = expand(i);
          word += v;
          i = at;
        } else word += script[i];
      }
      if (i >= script.length) return { unsupported: '"' };
    } else if (c === '\\' && i + 1 < script.length) word = (word ?? '') + script[++i];
    else if (c === '$') {
      const [v, at] = expand(i);
      // An unquoted expansion is split into fields.
      const fields = v.split(/[ \t\n]+/);
      fields.forEach((f, k) => {
        if (k > 0) push();
        if (f !== '' || k > 0) word = (word ?? '') + f;
      });
      i = at;
    } else if (c === '#' && word === undefined) {
      const nl = script.indexOf('\n', i);
      i = nl < 0 ? script.length : nl - 1;
    } else word = (word ?? '') + c;
  }
  end('');
  return out;
}

/** A shell's variables, last status and working directory, kept from line to line. */
interface ShellState {
  name: string;
  view: ContainerView;
  env: Map<string, string>;
  status: number;
  lineNo: number;
}

/** Runs one line of a shell; `exit` ends the shell with its code. */
function shellLine(state: ShellState, line: string, io: Io, now: Date): { exit?: number } {
  const { name } = state;
  state.lineNo++;
  const lookup = new Map(state.env);
  lookup.set('?', String(state.status));
  const parsed = parseScript(line, lookup);
  if ('unsupported' in parsed) {
    io.err.push(`${name}: ${parsed.unsupported}: not supported by this simulated container (no pipes, redirections or subshells)\n`);
    state.status = 2;
    return {};
  }
  // a && b || c: each command runs or not by the status before it and the operator between.
  let op: Simple['then'] = '';
  for (const cmd of parsed) {
    const runs = op === '' || op === ';' || (op === '&&' ? state.status === 0 : state.status !== 0);
    op = cmd.then;
    if (!runs || !cmd.words.length) continue;
    const [prog, ...rest] = cmd.words as [string, ...string[]];
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(prog);
    if (assignment && !rest.length) {
      state.env.set(assignment[1]!, assignment[2]!);
      state.status = 0;
    } else if (prog === 'exit') return { exit: rest.length ? Number(rest[0]) & 255 : state.status };
    else if (prog === 'cd') {
      const target = rest[0] ?? state.env.get('HOME') ?? '/';
      const path = resolvePath(state.view, target);
      if (state.view.files.get(path)?.type === 'dir') {
        state.view = { ...state.view, workingDir: path };
        state.status = 0;
      } else {
        io.err.push(`${name}: cd: can't cd to ${target}: No such file or directory\n`);
        state.status = 2;
      }
    } else {
      const found = lookUp(state.view, prog, state.env);
      if ('error' in found) {
        io.err.push(name === 'bash' ? `bash: line ${state.lineNo}: ${prog}: command not found\n` : `${name}: ${prog}: not found\n`);
        state.status = 127;
      } else state.status = runProgram(state.view, found.program, rest, { ...io, env: state.env, stdin: '' }, now);
    }
  }
  return {};
}

/** sh -c SCRIPT / bash -c SCRIPT (commands from stdin without -c), the programs above and the `cd`, `exit` and assignment builtins. */
function shell(view: ContainerView, name: string, args: string[], io: Io, now: Date): number {
  if (args[0] === '-c' && args.length < 2) {
    io.err.push(`${name}: -c requires an argument\n`);
    return 2;
  }
  const script = args[0] === '-c' ? args[1]! : io.stdin;
  const state: ShellState = { name, view, env: new Map(io.env), status: 0, lineNo: 0 };
  for (const line of script.split('\n')) {
    const { exit } = shellLine(state, line, io, now);
    if (exit !== undefined) return exit;
  }
  return state.status;
}

/** A shell reading its input line by line (`kubectl exec -i[t] pod -- sh`). */
export interface LineShell {
  /** busybox's default prompt: the directory, then `#` for root or `$`. */
  prompt(): string;
  line(text: string): ProcessResult & { exit?: number };
  /** The code the shell ends with at the end of its input. */
  lastStatus(): number;
}

/** The shell named by argv when it reads commands from its input (no -c), else undefined. */
export function lineShell(view: ContainerView, argv: string[], now: () => Date): LineShell | undefined {
  const [cmd = '', ...args] = argv;
  const found = lookUp(view, cmd, new Map(view.env));
  if ('error' in found || (found.program !== 'sh' && found.program !== 'bash') || args.includes('-c')) return undefined;
  const state: ShellState = { name: found.program, view, env: new Map(view.env), status: 0, lineNo: 0 };
  return {
    prompt: () => `${state.view.workingDir} ${view.uid === 0 ? '#' : '$'} `,
    line(text) {
      const io: Io = { out: [], err: [], stdin: '', env: state.env };
      const { exit } = shellLine(state, text, io, now());
      return { stdout: io.out.join(''), stderr: io.err.join(''), exitCode: exit ?? state.status, ...(exit !== undefined ? { exit } : {}) };
    },
    lastStatus: () => state.status,
  };
}

/**
 * Runs argv in the container as the CRI's exec does: the first word is
 * looked up on the container's PATH; the process sees the container's
 * environment, working directory and files, and `stdin` as its input.
 */
export function execInContainer(view: ContainerView, argv: string[], stdin: string, now: Date): ExecOutcome {
  const env = new Map(view.env);
  const [name = '', ...args] = argv;
  const found = lookUp(view, name, env);
  if ('error' in found) return { started: false, error: startError(name, found.error) };
  const io: Io = { out: [], err: [], stdin, env };
  const exitCode = runProgram(view, found.program, args, io, now);
  return { started: true, stdout: io.out.join(''), stderr: io.err.join(''), exitCode };
}

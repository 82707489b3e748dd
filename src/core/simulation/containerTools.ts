/**
 * The shell tools a simulated image has on its PATH (busybox's applets):
 * each answers only from what its process sees (its own copy of the
 * container's files, its environment, the virtual clock) with busybox's
 * output and messages. A tool is a plain function, or a generator when it
 * waits: for its input (`read`), for time (`sleep`), or between the lines
 * of a long output (`tick`, so a process's step budget stops `yes`), or
 * for the server clock to reach its own before it looks at the cluster
 * (`observe`: a process run ahead of the clock must not see the cluster's
 * present as its future).
 */
import type { ContainerView, FsEntry } from './containerView';
import type { PodNetwork } from './clusterNetwork';
import { curl, httpd, nc, nslookup, wget } from './networkTools';
import { tar } from './tarTool';
import { checksumTools } from './checksumTools';
import { alpineOs, apk, aptGet, debianOs } from './packageTools';
import { lookUp } from './programLookup';
import { freeOutput, nodeCpus } from './cgroupFiles';
import { nodeKernelRelease, nodeKernelVersion } from './nodes';
import { dig } from './digTool';
import { iptables, iptablesSave } from './iptablesTools';
import { chmod, cp, find, mv, readlink } from './fileTools';
import { ping } from './pingTool';
import { hostname, ifconfig, ip, netstat } from './netInfoTools';
import { kill, ps } from './processTools';
import { df, mount } from './mountTools';
import { isMountPoint, isReadOnly, lstat, realPath } from './containerFiles';
import { decodeBytes, encodeText } from './byteText';

/** strerror(EROFS): a write to a configMap, secret, downwardAPI or projected volume, or a readOnly mount. */
export const erofs = 'Read-only file system';

/**
 * What a program waits on: a command's cost (`tick`); a `sleep`; its input
 * (`read`, resumed with the next input, a line or what is there, or
 * undefined at its end); the cluster as it is at its time (`observe`;
 * `exact`: at that very time, so a signal that came then is seen); or an
 * answer from outside the simulation (`await`: a request to the API server,
 * started once and resumed with its result).
 */
export type Effect = { kind: 'tick' } | { kind: 'sleep'; ms: number } | { kind: 'read' } | { kind: 'observe'; exact?: boolean } | { kind: 'await'; start(): Promise<string | undefined> };
/** A step of a program: it yields effects and returns its result. */
export type Run<T> = Generator<Effect, T, string | undefined>;

/** A program's standard input. */
export interface InputReader {
  /** The next piece of input (a line where lines are known), undefined at its end. */
  read(): Run<string | undefined>;
}

/** What a running tool sees and where it writes. */
export interface ToolContext {
  /** The name its messages start with (the applet, or the shell for a builtin). */
  name: string;
  view: ContainerView;
  /** The process's files: writes land here. */
  files: Map<string, FsEntry>;
  cwd: string;
  env: ReadonlyMap<string, string>;
  /** The process's clock (ms since the epoch). */
  now(): number;
  stdin: InputReader;
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a pipe or a capture (whose reader stops reading, unlike a log). */
  outIsPipe: boolean;
  /** Runs a program found on PATH as the process does (env COMMAND, xargs). */
  exec(argv: string[], env: ReadonlyMap<string, string>): Run<number>;
  /** The pod's network (the container's view's), when the cluster network is simulated. */
  network?: PodNetwork;
  /** Until this time the process is replayed after a host restart (ProcessHost.replayedUntil). */
  replayedUntil?: number;
}

export type Tool = (args: string[], ctx: ToolContext) => number | Run<number>;

const encoder = new TextEncoder();

/** An absolute, normalized path from one relative to cwd. */
export function resolvePath(cwd: string, p: string): string {
  const abs = p.startsWith('/') ? p : `${cwd}/${p}`;
  const parts: string[] = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** The directory holding an absolute path (`/` for a top-level one). */
export const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';

/** Writes (or appends to) a file; an error text when its directory is missing, it is a directory, or it is on a read-only mount. */
export function writeFile(files: Map<string, FsEntry>, path: string, text: string, append: boolean): string | undefined {
  const e = files.get(path);
  if (e?.type === 'dir') return 'Is a directory';
  if (files.get(parentOf(path))?.type !== 'dir') return 'nonexistent directory';
  if (isReadOnly(files, path)) return erofs;
  const bytes = encodeText(text);
  if (append && e?.type === 'file') {
    const joined = new Uint8Array(e.content.length + bytes.length);
    joined.set(e.content);
    joined.set(bytes, e.content.length);
    files.set(path, { type: 'file', content: joined, mode: e.mode });
  } else files.set(path, { type: 'file', content: bytes, mode: e?.type === 'file' ? e.mode : 0o644 });
  return undefined;
}

/** A file's text, or undefined when it is not a file. */
export function readFile(files: ReadonlyMap<string, FsEntry>, path: string): string | undefined {
  const e = files.get(path);
  return e?.type === 'file' ? decodeBytes(e.content) : undefined;
}

/** All of a tool's standard input. */
export function* readAll(ctx: ToolContext): Run<string> {
  let text = '';
  for (let chunk = yield* ctx.stdin.read(); chunk !== undefined; chunk = yield* ctx.stdin.read()) text += chunk;
  return text;
}

/** Whether the image's tools are GNU coreutils' (Debian's and Ubuntu's), whose messages differ from busybox's. */
export const hasCoreutils = (ctx: { view: ContainerView }): boolean => ctx.view.image.os?.id === 'debian' || ctx.view.image.os?.id === 'ubuntu';

/** GNU coreutils' message for a file operand that is not there, by tool (the others say `<tool>: <file>: ...`). */
const gnuMissing: Record<string, (f: string) => string> = {
  head: (f) => `head: cannot open '${f}' for reading: No such file or directory\n`,
  tail: (f) => `tail: cannot open '${f}' for reading: No such file or directory\n`,
  sort: (f) => `sort: cannot read: ${f}: No such file or directory\n`,
};

/** The message for a file operand that is not there, as the image's tools word it. */
const missingFile = (ctx: ToolContext, f: string): string => (hasCoreutils(ctx) ? (gnuMissing[ctx.name]?.(f) ?? `${ctx.name}: ${f}: No such file or directory\n`) : `${ctx.name}: can't open '${f}': No such file or directory\n`);

/** Each operand's text (`-` or none: stdin); a missing one is reported as the image's tools word it (missingFile). */
function* inputs(ctx: ToolContext, operands: string[], report: (f: string) => string = (f) => missingFile(ctx, f)): Run<{ texts: { name: string; text: string }[]; failed: boolean }> {
  const texts: { name: string; text: string }[] = [];
  let failed = false;
  for (const f of operands.length ? operands : ['-']) {
    if (f === '-') {
      texts.push({ name: f, text: yield* readAll(ctx) });
      continue;
    }
    const path = resolvePath(ctx.cwd, f);
    const e = ctx.files.get(path);
    if (!e) {
      ctx.err(report(f));
      failed = true;
    } else if (e.type !== 'file') {
      ctx.err(`${ctx.name}: read error: Is a directory\n`);
      failed = true;
    } else texts.push({ name: f, text: decodeBytes(e.content) });
  }
  return { texts, failed };
}

/**
 * Letter flags anywhere among the operands (`ls /tmp -la`), as busybox's
 * getopt permutes them; a letter not in `allowed` is reported as busybox
 * does (`<tool>: unrecognized option: x`) and undefined returned.
 */
export function letterFlags(args: readonly string[], allowed: string, ctx: ToolContext): { flags: Set<string>; operands: string[] } | undefined {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (const a of args) {
    if (!a.startsWith('-') || a.length === 1) {
      operands.push(a);
      continue;
    }
    for (const f of a.slice(1)) {
      if (!allowed.includes(f)) {
        ctx.err(`${ctx.name}: unrecognized option: ${f}\n`);
        return undefined;
      }
      flags.add(f);
    }
  }
  return { flags, operands };
}

/** Splits leading options (`-abc`, `-n 5`) from operands; `--` ends them. */
export function options(args: string[], withValue = ''): { flags: Set<string>; values: Map<string, string>; rest: string[]; bad?: string } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    for (let j = 1; j < a.length; j++) {
      const f = a[j]!;
      if (withValue.includes(f)) {
        const v = a.slice(j + 1) || args[++i];
        if (v === undefined) return { flags, values, rest: [], bad: f };
        values.set(f, v);
        break;
      }
      flags.add(f);
    }
  }
  return { flags, values, rest: args.slice(i) };
}

// ---- files and identity

/** The names directly in a directory (where the symlinks on its path lead), sorted. */
export function children(files: ReadonlyMap<string, FsEntry>, dir: string): string[] {
  const real = realPath(files, dir) ?? dir;
  const prefix = real === '/' ? '/' : real + '/';
  const out: string[] = [];
  for (const p of files.keys()) if (p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push(p.slice(prefix.length));
  return out.sort();
}

function modeString(e: FsEntry): string {
  const bits = 'rwxrwxrwx';
  let s = e.type === 'dir' ? 'd' : e.type === 'link' ? 'l' : '-';
  for (let i = 0; i < 9; i++) s += e.mode & (1 << (8 - i)) ? bits[i] : '-';
  if (e.mode & 0o1000) s = s.slice(0, 9) + (e.mode & 1 ? 't' : 'T');
  return s;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const dayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** A uid as ls and ps show it (the images here name only root). */
export const userName = (id: number) => (id === 0 ? 'root' : String(id));

/** st_blocks (512-byte units) on the container's overlay: a file takes whole 4 KiB blocks, a directory one, a symlink none (its target is inline). */
function blocksOf(e: FsEntry): number {
  if (e.type === 'dir') return 8;
  if (e.type === 'link') return 0;
  return Math.ceil(e.content.byteLength / 4096) * 8;
}

/**
 * `ls -l`'s lines for the entries of one listing (a symlink's size is its
 * target's length, shown after `->`): busybox's fixed columns, or GNU
 * coreutils' (Debian's and Ubuntu's images), each as wide as its widest entry.
 */
function longLines(entries: readonly { e: FsEntry; name: string }[], mtime: Date, gnu: boolean): string[] {
  const date = `${months[mtime.getUTCMonth()]} ${String(mtime.getUTCDate()).padStart(2)} ${String(mtime.getUTCHours()).padStart(2, '0')}:${String(mtime.getUTCMinutes()).padStart(2, '0')}`;
  const rows = entries.map(({ e, name }) => ({
    mode: modeString(e),
    links: String(e.type === 'dir' ? 2 : 1),
    owner: userName(0),
    size: String(e.type === 'file' ? e.content.byteLength : e.type === 'link' ? encoder.encode(e.target).byteLength : 4096),
    name: `${name}${e.type === 'link' ? ` -> ${e.target}` : ''}`,
  }));
  const widest = (k: 'links' | 'owner' | 'size') => (gnu ? Math.max(0, ...rows.map((r) => r[k].length)) : { links: 4, owner: 8, size: 9 }[k]);
  const [wl, wo, ws] = [widest('links'), widest('owner'), widest('size')];
  return rows.map((r) => `${r.mode} ${r.links.padStart(wl)} ${r.owner.padEnd(wo)} ${r.owner.padEnd(wo)} ${r.size.padStart(ws)} ${date} ${r.name}`);
}

/**
 * ls (busybox's; GNU coreutils' columns and messages in Debian's and
 * Ubuntu's images): -l long lines (a directory's after its `total`, the KiB
 * its entries take), -a every name (`.` and `..` too), -A all but those (a
 * name starting with `.` is hidden otherwise), -L symlinks followed. A
 * symlink named on the command line is followed unless -l shows it (or a
 * trailing slash names its directory).
 */
const ls: Tool = (args, ctx) => {
  const parsed = letterFlags(args, 'laAL1', ctx);
  if (!parsed) return 1;
  const { flags, operands: paths } = parsed;
  const long = flags.has('l');
  const gnu = hasCoreutils(ctx);
  const stat = (path: string, follow: boolean) => (follow ? ctx.files.get(path) : lstat(ctx.files, path));
  if (!paths.length) paths.push('.');
  let code = 0;
  const fileArgs: string[] = [];
  const dirArgs: string[] = [];
  for (const p of paths) {
    // A trailing slash names the directory a symlink leads to.
    const e = stat(resolvePath(ctx.cwd, p), flags.has('L') || !long || p.endsWith('/'));
    if (!e) {
      ctx.err(gnu ? `ls: cannot access '${p}': No such file or directory\n` : `ls: ${p}: No such file or directory\n`);
      // GNU ls's serious trouble is 2.
      code = gnu ? 2 : 1;
    } else if (e.type === 'dir') dirArgs.push(p);
    else fileArgs.push(p);
  }
  const now = new Date(ctx.now());
  /** One listing's lines: its names, or with -l their long lines. */
  const lines = (listed: readonly [path: string, name: string, follow: boolean][]) => {
    if (!long) return listed.map(([, name]) => name);
    const entries = listed.flatMap(([path, name, follow]) => {
      const e = stat(path, follow);
      return e ? [{ e, name }] : [];
    });
    return longLines(entries, now, gnu);
  };
  for (const l of lines(fileArgs.map((f) => [resolvePath(ctx.cwd, f), f, flags.has('L')]))) ctx.out(l + '\n');
  dirArgs.forEach((d, i) => {
    const dir = resolvePath(ctx.cwd, d);
    if (paths.length > 1) ctx.out(`${fileArgs.length || i ? '\n' : ''}${d}:\n`);
    const listed: [path: string, name: string, follow: boolean][] = flags.has('a') ? [[dir, '.', true], [parentOf(dir), '..', true]] : [];
    for (const n of children(ctx.files, dir)) {
      if (n.startsWith('.') && !flags.has('a') && !flags.has('A')) continue;
      listed.push([dir === '/' ? `/${n}` : `${dir}/${n}`, n, flags.has('L')]);
    }
    if (long) {
      // calculate_blocks: the 512-byte blocks plus one, halved (KiB, rounded up).
      let blocks = 1;
      for (const [path, , follow] of listed) {
        const e = stat(path, follow);
        if (e) blocks += blocksOf(e);
      }
      ctx.out(`total ${blocks >> 1}\n`);
    }
    for (const l of lines(listed)) ctx.out(l + '\n');
  });
  return code;
};

function* cat(args: string[], ctx: ToolContext): Run<number> {
  let code = 0;
  for (const a of args.length ? args : ['-']) {
    if (a === '-') {
      // Streamed: each piece of input is written as it comes.
      for (let chunk = yield* ctx.stdin.read(); chunk !== undefined; chunk = yield* ctx.stdin.read()) ctx.out(chunk);
      continue;
    }
    const e = ctx.files.get(resolvePath(ctx.cwd, a));
    if (!e) {
      ctx.err(missingFile(ctx, a));
      code = 1;
    } else if (e.type !== 'file') {
      ctx.err(hasCoreutils(ctx) ? `cat: ${a}: Is a directory\n` : 'cat: read error: Is a directory\n');
      code = 1;
    } else ctx.out(decodeBytes(e.content));
  }
  return code;
}

function* env(args: string[], ctx: ToolContext): Run<number> {
  // env [-i] [NAME=VALUE]... [COMMAND [ARG]...]
  let i = 0;
  let vars = new Map(ctx.env);
  if (args[0] === '-i' || args[0] === '-') {
    vars = new Map();
    i++;
  }
  for (; i < args.length && args[i]!.includes('=') && !args[i]!.startsWith('='); i++) vars.set(args[i]!.slice(0, args[i]!.indexOf('=')), args[i]!.slice(args[i]!.indexOf('=') + 1));
  if (i < args.length) return yield* ctx.exec(args.slice(i), vars);
  for (const [k, v] of vars) ctx.out(`${k}=${v}\n`);
  return 0;
}

const printenv: Tool = (args, ctx) => {
  if (!args.length) {
    for (const [k, v] of ctx.env) ctx.out(`${k}=${v}\n`);
    return 0;
  }
  let code = 0;
  for (const a of args) {
    const v = ctx.env.get(a);
    if (v === undefined) code = 1;
    else ctx.out(v + '\n');
  }
  return code;
};

const id: Tool = (_args, ctx) => {
  const named = (n: number) => (n === 0 ? '0(root)' : String(n));
  ctx.out(`uid=${named(ctx.view.uid)} gid=${named(ctx.view.gid)} groups=${ctx.view.groups.map(named).join(',')}\n`);
  return 0;
};

/** busybox free: the node's memory (the kernel's /proc/meminfo), in KiB unless -b, -m or -g. */
const free: Tool = (args, ctx) => {
  const parsed = letterFlags(args, 'bkmgh', ctx);
  if (!parsed) return 1;
  const f = parsed.flags;
  ctx.out(freeOutput(f.has('b') ? 'b' : f.has('m') ? 'm' : f.has('g') ? 'g' : 'k'));
  return 0;
};

/** nproc: the CPUs the process may run on, which is every CPU of the node: a cpu limit is a quota, not an affinity. */
const nproc: Tool = (_args, ctx) => {
  ctx.out(`${nodeCpus}\n`);
  return 0;
};

/** busybox which: the path each command runs from on PATH (-a: every one); 1 when one is not found. */
const which: Tool = (args, ctx) => {
  const all = args.includes('-a');
  let code = 0;
  for (const name of args.filter((a) => a !== '-a')) {
    const path = ctx.env.get('PATH') ?? '';
    const dirs = name.includes('/') ? [''] : path.split(':');
    let found = false;
    for (const dir of dirs) {
      const hit = lookUp(ctx, dir ? `${dir.replace(/\/$/, '')}/${name}` : name, path, ctx.cwd);
      if ('path' in hit) {
        ctx.out(`${hit.path}\n`);
        found = true;
        if (!all) break;
      }
    }
    if (!found) code = 1;
  }
  return code;
};

const whoami: Tool = (_args, ctx) => {
  if (ctx.view.uid === 0) {
    ctx.out('root\n');
    return 0;
  }
  ctx.err(`whoami: unknown uid ${ctx.view.uid}\n`);
  return 1;
};

const uname: Tool = (args, ctx) => {
  const o = options(args);
  const flags = o.flags.has('a') ? new Set(['s', 'n', 'r', 'v', 'm', 'o']) : o.flags.size ? o.flags : new Set(['s']);
  const fields: [string, string][] = [
    ['s', 'Linux'],
    ['n', ctx.view.hostname],
    ['r', nodeKernelRelease],
    ['v', nodeKernelVersion],
    ['m', 'x86_64'],
    ['o', 'GNU/Linux'],
  ];
  ctx.out(fields.filter(([f]) => flags.has(f)).map(([, v]) => v).join(' ') + '\n');
  return 0;
};

const basename: Tool = (args, ctx) => {
  if (!args.length) {
    ctx.err('basename: missing operand\n');
    return 1;
  }
  const p = args[0]!.replace(/\/+$/, '');
  let base = p === '' ? '/' : p.slice(p.lastIndexOf('/') + 1);
  if (args[1] && base !== args[1] && base.endsWith(args[1])) base = base.slice(0, -args[1].length);
  ctx.out(base + '\n');
  return 0;
};

const dirname: Tool = (args, ctx) => {
  if (!args.length) {
    ctx.err('dirname: missing operand\n');
    return 1;
  }
  const p = args[0]!.replace(/\/+$/, '');
  const at = p.lastIndexOf('/');
  ctx.out((at < 0 ? '.' : at === 0 ? '/' : p.slice(0, at).replace(/\/+$/, '') || '/') + '\n');
  return 0;
};

const touch: Tool = (args, ctx) => {
  let code = 0;
  for (const f of options(args).rest) {
    const path = resolvePath(ctx.cwd, f);
    const exists = ctx.files.has(path);
    // An existing file's times cannot be set on a read-only mount either.
    const failed = exists ? (isReadOnly(ctx.files, path) ? erofs : undefined) : writeFile(ctx.files, path, '', false);
    if (failed) {
      ctx.err(`touch: ${f}: ${failed === erofs ? erofs : 'No such file or directory'}\n`);
      code = 1;
    }
  }
  return code;
};

const mkdir: Tool = (args, ctx) => {
  const o = options(args, 'm');
  let code = 0;
  for (const d of o.rest) {
    const path = resolvePath(ctx.cwd, d);
    const segments = path.split('/').slice(1);
    if (o.flags.has('p')) {
      let p = '';
      for (const s of segments) {
        p += '/' + s;
        const e = ctx.files.get(p);
        if (!e && isReadOnly(ctx.files, p)) {
          ctx.err(`mkdir: can't create directory '${d}': ${erofs}\n`);
          code = 1;
          break;
        }
        if (!e) ctx.files.set(p, { type: 'dir', mode: 0o755 });
        else if (e.type !== 'dir') {
          ctx.err(`mkdir: can't create directory '${d}': Not a directory\n`);
          code = 1;
          break;
        }
      }
      continue;
    }
    if (ctx.files.has(path)) {
      ctx.err(`mkdir: can't create directory '${d}': File exists\n`);
      code = 1;
    } else if (ctx.files.get(parentOf(path))?.type !== 'dir') {
      ctx.err(`mkdir: can't create directory '${d}': No such file or directory\n`);
      code = 1;
    } else if (isReadOnly(ctx.files, path)) {
      ctx.err(`mkdir: can't create directory '${d}': ${erofs}\n`);
      code = 1;
    } else ctx.files.set(path, { type: 'dir', mode: 0o755 });
  }
  return code;
};

const rm: Tool = (args, ctx) => {
  const o = options(args);
  const recursive = o.flags.has('r') || o.flags.has('R');
  let code = 0;
  for (const f of o.rest) {
    const path = resolvePath(ctx.cwd, f);
    // A symlink is removed itself, never what it leads to.
    const e = lstat(ctx.files, path);
    if (!e) {
      if (!o.flags.has('f')) {
        ctx.err(`rm: can't remove '${f}': No such file or directory\n`);
        code = 1;
      }
    } else if (e.type === 'dir' && !recursive) {
      ctx.err(`rm: '${f}' is a directory\n`);
      code = 1;
    } else if (isReadOnly(ctx.files, path)) {
      ctx.err(`rm: can't remove '${f}': ${erofs}\n`);
      code = 1;
    } else {
      for (const p of [...ctx.files.keys()]) if (p === path || p.startsWith(path + '/')) ctx.files.delete(p);
      // What is in a mounted volume goes; the mount point stays.
      if (isMountPoint(ctx.files, path)) {
        ctx.err(`rm: can't remove '${f}': Resource busy\n`);
        code = 1;
      }
    }
  }
  return code;
};

// ---- text

const echo: Tool = (args, ctx) => {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
    for (const f of args[i]!.slice(1)) {
      if (f === 'n') newline = false;
      else if (f === 'e') escapes = true;
      else escapes = false;
    }
  }
  let text = args.slice(i).join(' ');
  if (escapes) {
    const cut = text.indexOf('\\c');
    if (cut >= 0) {
      text = text.slice(0, cut);
      newline = false;
    }
    text = unescape(text);
  }
  ctx.out(text + (newline ? '\n' : ''));
  return 0;
};

/** Backslash escapes as echo -e and printf read them. */
function unescape(s: string): string {
  return s.replace(/\\(0[0-7]{0,3}|[0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)/g, (m, e: string) => {
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b', '\\': '\\' };
    if (e in simple) return simple[e]!;
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return m;
  });
}

const printf: Tool = (args, ctx) => {
  if (!args.length) {
    ctx.err('printf: usage: printf FORMAT [ARGUMENT...]\n');
    return 1;
  }
  const [format, ...values] = args as [string, ...string[]];
  let code = 0;
  let at = 0;
  const num = (v: string | undefined): number => {
    if (v === undefined || v === '') return 0;
    if (/^['"]/.test(v)) return v.charCodeAt(1) || 0;
    const n = Number(v.trim());
    if (Number.isNaN(n)) {
      ctx.err(`printf: invalid number '${v}'\n`);
      code = 1;
      return parseFloat(v) || 0;
    }
    return n;
  };
  do {
    const out = format.replace(/%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcsb%])|\\(0[0-7]{0,3}|[0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)/g, (m, flags: string | undefined, width: string | undefined, prec: string | undefined, conv: string | undefined) => {
      if (!conv) return unescape(m);
      if (conv === '%') return '%';
      const w = width === '*' ? num(values[at++]) : width ? Number(width) : 0;
      const p = prec === '*' ? num(values[at++]) : prec !== undefined ? Number(prec) : undefined;
      const v = values[at++];
      let s: string;
      switch (conv) {
        case 's':
          s = v ?? '';
          if (p !== undefined) s = s.slice(0, p);
          break;
        case 'b':
          s = unescape(v ?? '');
          break;
        case 'c':
          s = (v ?? '').slice(0, 1);
          break;
        case 'd':
        case 'i':
        case 'u':
          s = String(Math.trunc(num(v)));
          if (flags?.includes('+') && !s.startsWith('-')) s = '+' + s;
          break;
        case 'x':
        case 'X':
        case 'o': {
          const n = Math.trunc(num(v));
          s = (n >>> 0).toString(conv === 'o' ? 8 : 16);
          if (conv === 'X') s = s.toUpperCase();
          break;
        }
        case 'e':
        case 'E':
          s = num(v).toExponential(p ?? 6);
          s = s.replace(/e([+-])(\d)$/, 'e$10$2');
          if (conv === 'E') s = s.toUpperCase();
          break;
        case 'g':
        case 'G':
          s = String(Number(num(v).toPrecision(p || 6)));
          break;
        default:
          s = num(v).toFixed(p ?? 6);
      }
      if (s.length < w) {
        if (flags?.includes('-')) s = s.padEnd(w);
        else if (flags?.includes('0') && /[diouxXeEfgG]/.test(conv)) s = s.startsWith('-') ? '-' + s.slice(1).padStart(w - 1, '0') : s.padStart(w, '0');
        else s = s.padStart(w);
      }
      return s;
    });
    ctx.out(out);
  } while (at > 0 && at < values.length);
  return code;
};

function* head(args: string[], ctx: ToolContext): Run<number> {
  const legacy = args[0] && /^-\d+$/.test(args[0]) ? Number(args[0].slice(1)) : undefined;
  const o = options(legacy !== undefined ? args.slice(1) : args, 'nc');
  const n = legacy ?? Number(o.values.get('n') ?? 10);
  const { texts, failed } = yield* inputs(ctx, o.rest);
  texts.forEach((t, i) => {
    if (texts.length > 1) ctx.out(`${i ? '\n' : ''}==> ${t.name === '-' ? 'standard input' : t.name} <==\n`);
    if (o.values.has('c')) ctx.out(t.text.slice(0, Number(o.values.get('c'))));
    else ctx.out(t.text.split(/(?<=\n)/).slice(0, n).join(''));
  });
  return failed ? 1 : 0;
}

function* tail(args: string[], ctx: ToolContext): Run<number> {
  const legacy = args[0] && /^-\d+$/.test(args[0]) ? Number(args[0].slice(1)) : undefined;
  const o = options(legacy !== undefined ? args.slice(1) : args, 'ncs');
  const spec = o.values.get('n') ?? String(legacy ?? 10);
  // -F: follow by name, waiting for a file that is not there yet.
  const retry = o.flags.has('F');
  const follow = retry || o.flags.has('f');
  const { texts, failed } = yield* inputs(ctx, o.rest);
  texts.forEach((t, i) => {
    if (texts.length > 1) ctx.out(`${i ? '\n' : ''}==> ${t.name === '-' ? 'standard input' : t.name} <==\n`);
    const lines = t.text.split(/(?<=\n)/).filter((l) => l !== '');
    // -n +K: from line K on.
    ctx.out((spec.startsWith('+') ? lines.slice(Math.max(Number(spec.slice(1)) - 1, 0)) : lines.slice(Math.max(lines.length - Number(spec), 0))).join(''));
  });
  const names = (o.rest.length ? o.rest : ['-']).filter((f) => f !== '-');
  if (!follow || !names.length || (failed && !retry && !texts.some((t) => t.name !== '-'))) return failed ? 1 : 0;
  // busybox polls each file every -s seconds (1 by default) and prints what was added since.
  const period = Math.max(0, Number(o.values.get('s') ?? 1)) * 1000;
  const sizes = new Map(names.map((f) => [f, encodeText(texts.find((t) => t.name === f)?.text ?? '').length]));
  let last = names.length > 1 ? names[names.length - 1] : undefined;
  const opened = new Set(texts.map((t) => t.name));
  for (;;) {
    yield { kind: 'sleep', ms: period };
    yield { kind: 'observe' };
    for (const f of names) {
      const e = ctx.files.get(resolvePath(ctx.cwd, f));
      if (e?.type !== 'file') continue;
      if (retry && !opened.has(f)) {
        // It reopens the name, and reads the new file from its start.
        ctx.err(`tail: ${f} has appeared; following end of new file\n`);
        opened.add(f);
        sizes.set(f, 0);
      }
      let from = sizes.get(f) ?? 0;
      if (e.content.length < from) {
        ctx.err(`tail: ${f}: file truncated\n`);
        from = 0;
      }
      sizes.set(f, e.content.length);
      if (e.content.length === from) continue;
      if (names.length > 1 && last !== f) ctx.out(`\n==> ${f} <==\n`);
      last = f;
      ctx.out(decodeBytes(e.content.slice(from)));
    }
  }
}

function* wc(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args);
  const chosen = ['l', 'w', 'c'].filter((f) => o.flags.has(f) || (f === 'c' && o.flags.has('m')));
  const cols = chosen.length ? chosen : ['l', 'w', 'c'];
  const { texts, failed } = yield* inputs(ctx, o.rest);
  const totals = { l: 0, w: 0, c: 0 };
  const line = (counts: Record<string, number>, name: string) => {
    // busybox pads each column to 7 unless one count of one input is printed.
    const nums = cols.map((c) => (cols.length === 1 && texts.length === 1 ? String(counts[c]) : String(counts[c]).padStart(7)));
    ctx.out(nums.join(' ') + (name ? ` ${name}` : '') + '\n');
  };
  for (const t of texts) {
    const counts = { l: (t.text.match(/\n/g) ?? []).length, w: t.text.split(/\s+/).filter(Boolean).length, c: encodeText(t.text).length };
    totals.l += counts.l;
    totals.w += counts.w;
    totals.c += counts.c;
    line(counts, t.name === '-' ? '' : t.name);
  }
  if (texts.length > 1) line(totals, 'total');
  return failed ? 1 : 0;
}

/** A basic regular expression (or an extended one) as a JavaScript RegExp. */
function regexOf(pattern: string, extended: boolean, fixed: boolean, flags: string): RegExp {
  if (fixed) return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  if (extended) return new RegExp(pattern, flags);
  // BRE: \( \) \{ \} \| \+ \? are the operators; bare ( ) { } | + ? are characters.
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const n = pattern[++i]!;
      out += '(){}|+?'.includes(n) ? n : '\\' + n;
    } else out += '(){}|+?'.includes(c) ? '\\' + c : c;
  }
  return new RegExp(out, flags);
}

function* grep(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args, 'emA');
  if (o.bad) {
    ctx.err(`grep: option requires an argument -- '${o.bad}'\n`);
    return 2;
  }
  const patterns = o.values.has('e') ? [o.values.get('e')!] : o.rest.splice(0, 1);
  if (!patterns.length) {
    ctx.err('BusyBox v1.37.0 multi-call binary.\n\nUsage: grep [-HhnlLoqvsrRiwFE] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...\n');
    return 2;
  }
  let re: RegExp;
  try {
    re = regexOf(patterns[0]!, o.flags.has('E'), o.flags.has('F'), o.flags.has('i') ? 'i' : '');
  } catch {
    ctx.err(`grep: bad regex '${patterns[0]}'\n`);
    return 2;
  }
  const { texts, failed } = yield* inputs(ctx, o.rest, (f) => `grep: ${f}: No such file or directory\n`);
  const names = texts.length > 1 || o.flags.has('H');
  let matched = 0;
  for (const t of texts) {
    let count = 0;
    const lines = t.text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n]!;
      const hit = o.flags.has('w') ? new RegExp(`(^|\\W)(${re.source})($|\\W)`, re.flags).test(line) : o.flags.has('x') ? new RegExp(`^(?:${re.source})$`, re.flags).test(line) : re.test(line);
      if (hit === o.flags.has('v')) continue;
      count++;
      if (o.flags.has('q') || o.flags.has('c') || o.flags.has('l')) continue;
      const label = t.name === '-' ? '(standard input)' : t.name;
      ctx.out(`${names ? label + ':' : ''}${o.flags.has('n') ? `${n + 1}:` : ''}${line}\n`);
    }
    matched += count;
    if (o.flags.has('c')) ctx.out(`${names ? (t.name === '-' ? '(standard input)' : t.name) + ':' : ''}${count}\n`);
    if (o.flags.has('l') && count) ctx.out((t.name === '-' ? '(standard input)' : t.name) + '\n');
    if (o.flags.has('q') && matched) return 0;
  }
  if (failed && !o.flags.has('s')) return 2;
  return matched ? 0 : 1;
}

/** tr's SET: characters with a-z ranges and backslash escapes. */
function trSet(s: string): string[] {
  const chars = [...unescape(s)];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      for (let c = chars[i]!.charCodeAt(0); c <= chars[i + 2]!.charCodeAt(0); c++) out.push(String.fromCharCode(c));
      i += 2;
    } else out.push(chars[i]!);
  }
  return out;
}

function* tr(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args);
  const [from = '', to = ''] = o.rest;
  const set1 = trSet(from.replace(/\[:upper:\]/g, 'A-Z').replace(/\[:lower:\]/g, 'a-z').replace(/\[:digit:\]/g, '0-9').replace(/\[:space:\]/g, ' \\t\\n\\r\\f\\v'));
  const set2 = trSet(to.replace(/\[:upper:\]/g, 'A-Z').replace(/\[:lower:\]/g, 'a-z'));
  const text = yield* readAll(ctx);
  let out = '';
  let last = '';
  for (const c of text) {
    const at = set1.indexOf(c);
    let r = c;
    if (o.flags.has('d')) {
      if (at >= 0) continue;
    } else if (at >= 0 && set2.length) r = set2[Math.min(at, set2.length - 1)]!;
    if (o.flags.has('s') && r === last && (set2.length ? set2 : set1).includes(r)) continue;
    out += r;
    last = r;
  }
  ctx.out(out);
  return 0;
}

function* tee(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args);
  const targets = o.rest.map((f) => resolvePath(ctx.cwd, f));
  let code = 0;
  for (const [i, p] of targets.entries()) {
    if (o.flags.has('a') && ctx.files.get(p)?.type === 'file' && !isReadOnly(ctx.files, p)) continue;
    const failed = writeFile(ctx.files, p, '', false);
    if (failed) {
      ctx.err(`tee: can't open '${o.rest[i]}': ${failed === erofs ? erofs : 'No such file or directory'}\n`);
      code = 1;
    }
  }
  for (let chunk = yield* ctx.stdin.read(); chunk !== undefined; chunk = yield* ctx.stdin.read()) {
    ctx.out(chunk);
    for (const p of targets) if (ctx.files.get(p)?.type === 'file') writeFile(ctx.files, p, chunk, true);
  }
  return code;
}

function* yes(args: string[], ctx: ToolContext): Run<number> {
  const line = (args.length ? args.join(' ') : 'y') + '\n';
  // Into a pipe, what a pipe's buffer holds: the reader has stopped by then (SIGPIPE), as with `yes | head`.
  let written = 0;
  for (;;) {
    ctx.out(line);
    written += line.length;
    if (ctx.outIsPipe && written >= 65536) return 141;
    yield { kind: 'tick' };
  }
}

/** A cut LIST (N, N-M, N-, -M, comma-separated) as a test of 1-based positions. */
function cutList(list: string): ((n: number) => boolean) | undefined {
  const ranges: [number, number][] = [];
  for (const r of list.split(',')) {
    const m = /^(\d*)(-?)(\d*)$/.exec(r);
    if (!m || (!m[1] && !m[3])) return undefined;
    const from = m[1] ? Number(m[1]) : 1;
    ranges.push([from, m[2] ? (m[3] ? Number(m[3]) : Infinity) : from]);
  }
  return (n) => ranges.some(([a, b]) => n >= a && n <= b);
}

function* cut(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args, 'dfc');
  const list = o.values.get('f') ?? o.values.get('c');
  const pick = list === undefined ? undefined : cutList(list);
  if (!pick) {
    ctx.err(list === undefined ? 'cut: expected a list of bytes, characters, or fields\n' : `cut: invalid byte or field list\n`);
    return 1;
  }
  const delim = o.values.get('d') ?? '\t';
  const { texts, failed } = yield* inputs(ctx, o.rest);
  for (const t of texts) {
    for (const line of t.text.split('\n').slice(0, t.text.endsWith('\n') ? -1 : undefined)) {
      if (o.values.has('c')) ctx.out([...line].filter((_, i) => pick(i + 1)).join('') + '\n');
      else if (!line.includes(delim)) {
        if (!o.flags.has('s')) ctx.out(line + '\n');
      } else ctx.out(line.split(delim).filter((_, i) => pick(i + 1)).join(delim) + '\n');
    }
  }
  return failed ? 1 : 0;
}

function* sort(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args, 'kt');
  const { texts, failed } = yield* inputs(ctx, o.rest);
  const lines = texts.flatMap((t) => t.text.split('\n').slice(0, t.text.endsWith('\n') ? -1 : undefined));
  const field = o.values.has('k') ? Number.parseInt(o.values.get('k')!, 10) : 0;
  const sep = o.values.get('t');
  const key = (l: string) => (field ? ((sep !== undefined ? l.split(sep) : l.trim().split(/\s+/))[field - 1] ?? '') : l);
  const numeric = o.flags.has('n');
  const cmp = (a: string, b: string) => {
    if (numeric) {
      const d = (parseFloat(key(a)) || 0) - (parseFloat(key(b)) || 0);
      if (d) return d;
    } else if (key(a) !== key(b)) return key(a) < key(b) ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  let sorted = lines.sort(cmp);
  if (o.flags.has('r')) sorted.reverse();
  if (o.flags.has('u')) sorted = sorted.filter((l, i) => i === 0 || cmp(l, sorted[i - 1]!) !== 0);
  for (const l of sorted) ctx.out(l + '\n');
  return failed ? 2 : 0;
}

function* uniq(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args);
  const { texts, failed } = yield* inputs(ctx, o.rest.slice(0, 1));
  const text = texts[0]?.text ?? '';
  const lines = text.split('\n').slice(0, text.endsWith('\n') ? -1 : undefined);
  for (let i = 0; i < lines.length; ) {
    let n = 1;
    while (i + n < lines.length && lines[i + n] === lines[i]) n++;
    if (!(o.flags.has('d') && n === 1) && !(o.flags.has('u') && n > 1)) ctx.out((o.flags.has('c') ? `${String(n).padStart(7)} ` : '') + lines[i] + '\n');
    i += n;
  }
  return failed ? 1 : 0;
}

/** One sed command with its address. */
interface SedCommand {
  address?: { line?: number; last?: boolean; re?: RegExp };
  cmd: 's' | 'd' | 'p' | 'q';
  re?: RegExp;
  replacement?: string;
  print?: boolean;
}

/** sed's script: `s/RE/REPLACEMENT/[gpi]`, `d`, `p`, `q`, each after an optional line, `$` or /RE/ address; `;` or newlines between. */
function sedScript(script: string): SedCommand[] | string {
  const out: SedCommand[] = [];
  let i = 0;
  const delimited = (d: string): string | undefined => {
    let text = '';
    for (i++; i < script.length && script[i] !== d; i++) {
      if (script[i] === '\\' && script[i + 1] === d) text += script[++i];
      else if (script[i] === '\\' && script[i + 1] === 'n') {
        text += '\n';
        i++;
      } else text += script[i];
    }
    return i < script.length ? text : undefined;
  };
  while (i < script.length) {
    while (/[\s;]/.test(script[i] ?? '')) i++;
    if (i >= script.length) break;
    const c: SedCommand = { cmd: 'p' };
    const num = /^\d+/.exec(script.slice(i));
    if (num) {
      c.address = { line: Number(num[0]) };
      i += num[0].length;
    } else if (script[i] === '$') {
      c.address = { last: true };
      i++;
    } else if (script[i] === '/') {
      const re = delimited('/');
      if (re === undefined) return "unmatched '/'";
      c.address = { re: regexOf(re, false, false, '') };
      i++;
    }
    const cmd = script[i];
    if (cmd === 's') {
      const d = script[++i] ?? '';
      const re = delimited(d);
      const rep = re === undefined ? undefined : delimited(d);
      if (re === undefined || rep === undefined) return `unmatched '${d}'`;
      i++;
      let flags = '';
      while (/[gpi]/.test(script[i] ?? '')) flags += script[i++];
      c.cmd = 's';
      c.re = regexOf(re, false, false, (flags.includes('g') ? 'g' : '') + (flags.includes('i') ? 'i' : ''));
      // sed's & and \N as JavaScript's $& and $N.
      c.replacement = rep.replace(/\$/g, '$$$$').replace(/\\(\d)|\\&|&/g, (m, n: string | undefined) => (n ? `$${n}` : m === '&' ? '$&' : '&'));
      c.print = flags.includes('p');
    } else if (cmd === 'd' || cmd === 'p' || cmd === 'q') {
      c.cmd = cmd;
      i++;
    } else return `unsupported command ${cmd ?? ''}`;
    out.push(c);
  }
  return out;
}

function* sed(args: string[], ctx: ToolContext): Run<number> {
  const o = options(args, 'e');
  const rest = [...o.rest];
  const source = o.values.get('e') ?? rest.shift();
  if (source === undefined) {
    ctx.err('sed: no script specified\n');
    return 1;
  }
  let script: SedCommand[] | string;
  try {
    script = sedScript(source);
  } catch {
    script = 'bad regex';
  }
  if (typeof script === 'string') {
    ctx.err(`sed: ${script}\n`);
    return 1;
  }
  const quiet = o.flags.has('n');
  const run = (text: string): string => {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let out = '';
    for (let n = 0; n < lines.length; n++) {
      let line = lines[n]!;
      let deleted = false;
      let quit = false;
      for (const c of script as SedCommand[]) {
        const a = c.address;
        if (a && !(a.line === n + 1 || (a.last && n === lines.length - 1) || a.re?.test(line))) continue;
        if (c.cmd === 'd') {
          deleted = true;
          break;
        }
        if (c.cmd === 'p') out += line + '\n';
        if (c.cmd === 'q') {
          quit = true;
          break;
        }
        if (c.cmd === 's' && c.re) {
          c.re.lastIndex = 0;
          const replaced = line.replace(c.re, c.replacement ?? '');
          if (replaced !== line || c.re.test(line)) {
            line = replaced;
            if (c.print) out += line + '\n';
          }
        }
      }
      if (!deleted && !quiet) out += line + '\n';
      if (quit) break;
    }
    return out;
  };
  if (o.flags.has('i')) {
    let code = 0;
    for (const f of rest) {
      const path = resolvePath(ctx.cwd, f);
      const text = readFile(ctx.files, path);
      if (text === undefined) {
        ctx.err(`sed: ${f}: No such file or directory\n`);
        code = 1;
      } else if (isReadOnly(ctx.files, path)) {
        // sed -i writes a temporary file beside the file, then renames it over.
        ctx.err(`sed: can't create temp file '${f}XXXXXX': ${erofs}\n`);
        return 4;
      } else writeFile(ctx.files, path, run(text), false);
    }
    return code;
  }
  const { texts, failed } = yield* inputs(ctx, rest, (f) => `sed: ${f}: No such file or directory\n`);
  ctx.out(run(texts.map((t) => t.text).join('')));
  return failed ? 2 : 0;
}

// ---- numbers and time

const seq: Tool = (args, ctx) => {
  let sep = '\n';
  let equalWidth = false;
  const nums: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-w') equalWidth = true;
    else if (a === '-s') sep = args[++i] ?? '';
    else if (a.startsWith('-s')) sep = a.slice(2);
    else nums.push(a);
  }
  const parsed = nums.map(Number);
  if (!nums.length || parsed.some((n) => Number.isNaN(n))) {
    const bad = nums.find((n) => Number.isNaN(Number(n)));
    ctx.err(bad !== undefined ? `seq: invalid number '${bad}'\n` : 'seq: missing operand\n');
    return 1;
  }
  const [first, step, last] = parsed.length === 1 ? [1, 1, parsed[0]!] : parsed.length === 2 ? [parsed[0]!, 1, parsed[1]!] : [parsed[0]!, parsed[1]!, parsed[2]!];
  const decimals = Math.max(...nums.map((n) => (n.includes('.') ? n.length - n.indexOf('.') - 1 : 0)));
  const out: string[] = [];
  const width = equalWidth ? Math.max(first.toFixed(decimals).length, last.toFixed(decimals).length) : 0;
  if (step !== 0) for (let i = 0, v = first; step > 0 ? v <= last : v >= last; i++, v = first + i * step) out.push(v.toFixed(decimals).padStart(width, '0'));
  if (out.length) ctx.out(out.join(sep) + '\n');
  return 0;
};

/** busybox sleep's duration: seconds with an optional s/m/h/d suffix, fractions allowed; `inf`/`infinity` forever. */
export function sleepMs(arg: string): number | undefined {
  if (/^inf(inity)?$/i.test(arg)) return Infinity;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m) return undefined;
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(m[1]) * unit);
}

function* sleep(args: string[], ctx: ToolContext): Run<number> {
  if (!args.length) {
    ctx.err('BusyBox v1.37.0 multi-call binary.\n\nUsage: sleep [N]...\n\nPause for a time equal to the total of the args given, where each arg can\nhave an optional suffix of (s)econds, (m)inutes, (h)ours, or (d)ays\n');
    return 1;
  }
  let ms = 0;
  for (const a of args) {
    const v = sleepMs(a);
    if (v === undefined) {
      ctx.err(`sleep: invalid number '${a}'\n`);
      return 1;
    }
    ms += v;
  }
  yield { kind: 'sleep', ms };
  return 0;
}

const pad = (n: number, w = 2, c = '0') => String(n).padStart(w, c);

/** strftime over a UTC time (containers have no TZ: UTC). */
export function strftime(format: string, ms: number): string {
  const d = new Date(ms);
  const h12 = d.getUTCHours() % 12 || 12;
  const yday = Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
  return format.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case 'Y': return String(d.getUTCFullYear());
      case 'y': return pad(d.getUTCFullYear() % 100);
      case 'm': return pad(d.getUTCMonth() + 1);
      case 'd': return pad(d.getUTCDate());
      case 'e': return pad(d.getUTCDate(), 2, ' ');
      case 'H': return pad(d.getUTCHours());
      case 'I': return pad(h12);
      case 'M': return pad(d.getUTCMinutes());
      case 'S': return pad(d.getUTCSeconds());
      case 'N': return pad((ms % 1000) * 1_000_000, 9);
      case 'p': return d.getUTCHours() < 12 ? 'AM' : 'PM';
      case 'a': return days[d.getUTCDay()]!;
      case 'A': return dayNames[d.getUTCDay()]!;
      case 'b':
      case 'h': return months[d.getUTCMonth()]!;
      case 'B': return monthNames[d.getUTCMonth()]!;
      case 'j': return pad(yday, 3);
      case 'u': return String(d.getUTCDay() || 7);
      case 'w': return String(d.getUTCDay());
      case 's': return String(Math.floor(ms / 1000));
      case 'Z': return 'UTC';
      case 'z': return '+0000';
      case 'T': return strftime('%H:%M:%S', ms);
      case 'D': return strftime('%m/%d/%y', ms);
      case 'F': return strftime('%Y-%m-%d', ms);
      case 'R': return strftime('%H:%M', ms);
      case 'c': return strftime('%a %b %e %H:%M:%S %Y', ms);
      case 'n': return '\n';
      case 't': return '\t';
      case '%': return '%';
      default: return m;
    }
  });
}

/** A line as klog writes it (Go's Kubernetes components and tools): `I1129 23:34:50.123456       1 file.go:12] text`, pid 1 in its container. */
export const klogLine = (ms: number, source: string, text: string, severity: 'I' | 'W' | 'E' = 'I'): string => `${severity}${strftime('%m%d %H:%M:%S.%N', ms).slice(0, 20)}       1 ${source}] ${text}\n`;

const date: Tool = (args, ctx) => {
  let format = '%a %b %e %H:%M:%S %Z %Y';
  let at = ctx.now();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('+')) format = a.slice(1);
    else if (a === '-u' || a === '--utc') continue;
    else if (a === '-R') format = '%a, %d %b %Y %H:%M:%S %z';
    else if (/^-I/.test(a) || /^--iso-8601/.test(a)) {
      const spec = a.replace(/^-I|^--iso-8601=?/, '') || 'date';
      format = { date: '%Y-%m-%d', hours: '%Y-%m-%dT%H+00:00', minutes: '%Y-%m-%dT%H:%M+00:00', seconds: '%Y-%m-%dT%H:%M:%S+00:00', ns: '%Y-%m-%dT%H:%M:%S,%N+00:00' }[spec] ?? '%Y-%m-%d';
    } else if (a === '-d' || a.startsWith('-d') || a.startsWith('--date=')) {
      const v = a === '-d' ? args[++i] ?? '' : a.replace(/^-d|^--date=/, '');
      const parsed = v.startsWith('@') ? Number(v.slice(1)) * 1000 : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v + 'Z');
      if (Number.isNaN(parsed)) {
        ctx.err(`date: invalid date '${v}'\n`);
        return 1;
      }
      at = parsed;
    } else {
      ctx.err(`date: invalid date '${a}'\n`);
      return 1;
    }
  }
  ctx.out(strftime(format, at) + '\n');
  return 0;
};

// ---- test and expr

/** test / [ : the expression's truth (0), falsehood (1) or an error (2, reported). */
export function testExpression(args: string[], ctx: ToolContext, bracket: boolean): number {
  if (bracket) {
    if (args[args.length - 1] !== ']') {
      ctx.err(`${ctx.name}: missing ]\n`);
      return 2;
    }
    args = args.slice(0, -1);
  }
  let i = 0;
  const fail = (msg: string): never => {
    throw new TestError(msg);
  };
  const int = (s: string): number => {
    if (!/^\s*[+-]?\d+\s*$/.test(s)) fail(`invalid number '${s}'`);
    return Number(s);
  };
  const file = (p: string) => ctx.files.get(resolvePath(ctx.cwd, p));
  const unary: Record<string, (v: string) => boolean> = {
    '-n': (v) => v !== '',
    '-z': (v) => v === '',
    '-e': (v) => !!file(v),
    '-f': (v) => file(v)?.type === 'file',
    '-d': (v) => file(v)?.type === 'dir',
    '-s': (v) => {
      const e = file(v);
      return e?.type === 'file' ? e.content.length > 0 : e?.type === 'dir';
    },
    '-r': (v) => !!file(v),
    '-w': (v) => !!file(v),
    '-x': (v) => {
      const e = file(v);
      return !!e && (e.type === 'dir' || (e.mode & 0o111) !== 0);
    },
    '-h': (v) => lstat(ctx.files, resolvePath(ctx.cwd, v))?.type === 'link',
    '-L': (v) => lstat(ctx.files, resolvePath(ctx.cwd, v))?.type === 'link',
    '-t': () => false,
  };
  const binary: Record<string, (a: string, b: string) => boolean> = {
    '=': (a, b) => a === b,
    '==': (a, b) => a === b,
    '!=': (a, b) => a !== b,
    '<': (a, b) => a < b,
    '>': (a, b) => a > b,
    '-eq': (a, b) => int(a) === int(b),
    '-ne': (a, b) => int(a) !== int(b),
    '-lt': (a, b) => int(a) < int(b),
    '-le': (a, b) => int(a) <= int(b),
    '-gt': (a, b) => int(a) > int(b),
    '-ge': (a, b) => int(a) >= int(b),
  };
  const primary = (): boolean => {
    const a = args[i];
    if (a === undefined) return fail('argument expected');
    if (a === '!') {
      i++;
      return !primary();
    }
    if (a === '(' && args.length - i > 2) {
      i++;
      const v = or();
      if (args[i] !== ')') fail('closing paren expected');
      i++;
      return v;
    }
    if (args[i + 1] !== undefined && args[i + 1]! in binary && args.length - i >= 3) {
      i += 3;
      return binary[args[i - 2]!]!(a, args[i - 1]!);
    }
    if (a in unary && args[i + 1] !== undefined) {
      i += 2;
      return unary[a]!(args[i - 1]!);
    }
    i++;
    return a !== '';
  };
  const and = (): boolean => {
    let v = primary();
    while (args[i] === '-a') {
      i++;
      v = primary() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (args[i] === '-o') {
      i++;
      v = and() || v;
    }
    return v;
  };
  try {
    if (!args.length) return 1;
    const v = or();
    if (i < args.length) fail(`${args[i]}: unknown operand`);
    return v ? 0 : 1;
  } catch (e) {
    if (!(e instanceof TestError)) throw e;
    ctx.err(`${ctx.name}: ${e.message}\n`);
    return 2;
  }
}

class TestError extends Error {}

const expr: Tool = (args, ctx) => {
  let i = 0;
  const isInt = (s: string) => /^[+-]?\d+$/.test(s);
  const syntax = (): never => {
    throw new TestError('syntax error');
  };
  const atom = (): string => {
    const a = args[i++];
    if (a === undefined) return syntax();
    if (a === '(') {
      const v = orExpr();
      if (args[i++] !== ')') syntax();
      return v;
    }
    if (a === 'length') return String(atom().length);
    return a;
  };
  const match = (): string => {
    let v = atom();
    while (args[i] === ':') {
      i++;
      const re = regexOf(atom(), false, false, '');
      const m = new RegExp('^(?:' + re.source + ')').exec(v);
      v = m ? (m[1] ?? String(m[0].length)) : re.source.includes('(') ? '' : '0';
    }
    return v;
  };
  const arith = (ops: string[], next: () => string) => (): string => {
    let v = next();
    while (ops.includes(args[i] ?? '')) {
      const op = args[i++]!;
      const r = next();
      if (!isInt(v) || !isInt(r)) throw new TestError('non-numeric argument');
      const a = BigInt(v);
      const b = BigInt(r);
      if ((op === '/' || op === '%') && b === 0n) throw new TestError('division by zero');
      v = String(op === '*' ? a * b : op === '/' ? a / b : op === '%' ? a % b : op === '+' ? a + b : a - b);
    }
    return v;
  };
  const mul = arith(['*', '/', '%'], match);
  const add = arith(['+', '-'], mul);
  const cmp = (): string => {
    let v = add();
    while (['=', '==', '!=', '<', '<=', '>', '>='].includes(args[i] ?? '')) {
      const op = args[i++]!;
      const r = add();
      const c = isInt(v) && isInt(r) ? Number(BigInt(v) - BigInt(r)) : v < r ? -1 : v > r ? 1 : 0;
      v = { '=': c === 0, '==': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[op] ? '1' : '0';
    }
    return v;
  };
  const andExpr = (): string => {
    let v = cmp();
    while (args[i] === '&') {
      i++;
      const r = cmp();
      v = v !== '' && v !== '0' && r !== '' && r !== '0' ? v : '0';
    }
    return v;
  };
  const orExpr = (): string => {
    let v = andExpr();
    while (args[i] === '|') {
      i++;
      const r = andExpr();
      v = v !== '' && v !== '0' ? v : r !== '' && r !== '0' ? r : '0';
    }
    return v;
  };
  try {
    if (!args.length) syntax();
    const v = orExpr();
    if (i < args.length) syntax();
    ctx.out(v + '\n');
    return v === '' || v === '0' ? 1 : 0;
  } catch (e) {
    if (!(e instanceof TestError)) throw e;
    ctx.err(`expr: ${e.message}\n`);
    return 2;
  }
};

/** Every tool by its name in /bin. */
export const tools: ReadonlyMap<string, Tool> = new Map<string, Tool>([
  ['basename', basename],
  ['cat', cat],
  ['chmod', chmod],
  ['cp', cp],
  ['curl', curl],
  ['cut', cut],
  ['date', date],
  ['df', df],
  ['dirname', dirname],
  ['echo', echo],
  ['env', env],
  ['expr', expr],
  ['find', find],
  ['false', () => 1],
  ['grep', grep],
  ['head', head],
  ['httpd', httpd],
  ['hostname', hostname],
  ['id', id],
  ['kill', kill],
  ['ifconfig', ifconfig],
  ['ip', ip],
  ['ls', ls],
  ['mkdir', mkdir],
  ['mount', mount],
  ['mv', mv],
  ['netstat', netstat],
  ['nc', nc],
  ['nslookup', nslookup],
  ['ping', ping],
  ['printenv', printenv],
  ['printf', printf],
  ['ps', ps],
  ['pwd', (_a, ctx) => (ctx.out(ctx.cwd + '\n'), 0)],
  ['readlink', readlink],
  ['rm', rm],
  ['sed', sed],
  ['seq', seq],
  ['sleep', sleep],
  ['sort', sort],
  ['tail', tail],
  ['tar', tar],
  ['tee', tee],
  ['test', (a, ctx) => testExpression(a, ctx, false)],
  ['[', (a, ctx) => testExpression(a, ctx, true)],
  ['touch', touch],
  ['tr', tr],
  ['true', () => 0],
  ['uname', uname],
  ['uniq', uniq],
  ['wc', wc],
  ['wget', wget],
  ['which', which],
  ['free', free],
  ['dig', dig],
  ['iptables', iptables],
  ['iptables-save', iptablesSave],
  ['nproc', nproc],
  ['whoami', whoami],
  ['yes', yes],
  ...checksumTools,
  // The package managers of the image's distribution (Debian's when it names none).
  ['apt-get', (a, ctx) => aptGet(a, ctx, ctx.view.image.os ?? debianOs)],
  ['apt', (a, ctx) => aptGet(a, ctx, ctx.view.image.os ?? debianOs)],
  ['apk', (a, ctx) => apk(a, ctx, ctx.view.image.os ?? alpineOs)],
]);

/**
 * busybox tar: create (c), extract (x) and list (t) archives in the ustar
 * layout, to and from a file or the process's stdin and stdout. It is what
 * `kubectl cp` runs in a container: `tar cf - <path>` to copy out, and
 * `tar -xmf - -C <dir>` (with `--no-same-permissions --no-same-owner` under
 * `--no-preserve`) to copy in.
 *
 * A process's input and output are text, so an archive on stdin or stdout
 * travels as the UTF-8 text of its bytes: exact for every file whose bytes
 * are UTF-8 (what containers here hold), while other bytes would come out
 * as U+FFFD. Archives written to or read from files keep their bytes.
 * Symlinks are archived as symlinks (type 2), as tar does without -h.
 */
import type { FsEntry } from './containerView';
import { decodeBytes, encodeText } from './byteText';
import { children, erofs, parentOf, readAll, resolvePath, strftime, type Run, type ToolContext } from './containerTools';
import { isReadOnly, lstat } from './containerFiles';
import { concatBytes } from '../util/bytes';

const block = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The umask the container's processes run with: what `--no-same-permissions` applies to a member's mode. */
const umask = 0o022;

/** A member of an archive. */
interface Member {
  name: string;
  type: 'file' | 'dir' | 'link';
  mode: number;
  mtime: number;
  content: Uint8Array;
  /** A symlink's target. */
  target?: string;
}

interface Options {
  mode?: 'c' | 'x' | 't';
  file: string;
  dir?: string;
  verbose: boolean;
  toStdout: boolean;
  samePermissions: boolean;
  operands: string[];
}

/** Options that take a value: the file, the directory, and the -T/-X lists, which are not simulated. */
const valueFlags = 'fCTX';

/** The old style's first word (`tar cf - x`): bundled letters, whose values follow it in order, as options. */
function expandBundle(args: string[]): string[] {
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) return args;
  const out: string[] = [];
  for (const f of first) {
    out.push(`-${f}`);
    if (valueFlags.includes(f) && rest.length) out.push(rest.shift()!);
  }
  return [...out, ...rest];
}

/** busybox tar's options (the old style's bundle first); the words after them name members. */
function parse(args: string[]): Options | { error: string } {
  const o: Options = { file: '-', verbose: false, toStdout: false, samePermissions: true, operands: [] };
  const words = expandBundle(args);
  let i = 0;
  const next = () => words[++i];
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      i++;
      break;
    }
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      const name = eq < 0 ? w.slice(2) : w.slice(2, eq);
      const inline = eq < 0 ? undefined : w.slice(eq + 1);
      const error = longOption(o, name, () => inline ?? next());
      if (error) return { error };
      continue;
    }
    if (!w.startsWith('-') || w === '-') break;
    for (let j = 1; j < w.length; j++) {
      const f = w[j]!;
      // A value is the rest of the word (`-fx.tar`) or the next word.
      const inline = w.slice(j + 1);
      const error = shortOption(o, f, () => inline || next());
      if (error) return { error };
      if (valueFlags.includes(f)) break;
    }
  }
  o.operands = words.slice(i);
  return o;
}

function shortOption(o: Options, f: string, value: () => string | undefined): string | undefined {
  switch (f) {
    case 'c':
    case 'x':
    case 't':
      if (o.mode && o.mode !== f) return "exactly one of 'c', 'x' or 't' must be specified";
      o.mode = f;
      return undefined;
    case 'v':
      o.verbose = true;
      return undefined;
    case 'O':
      o.toStdout = true;
      return undefined;
    case 'p':
      o.samePermissions = true;
      return undefined;
    // Kept dates (-m), owners (-o) and links followed (-h) change nothing kubesim's files record.
    case 'm':
    case 'o':
    case 'h':
      return undefined;
    case 'f':
    case 'C': {
      const v = value();
      if (v === undefined) return `option requires an argument: ${f}`;
      if (f === 'f') o.file = v;
      else o.dir = v;
      return undefined;
    }
    case 'z':
    case 'j':
    case 'J':
    case 'Z':
    case 'a':
      return `compressed archives (-${f}) are not simulated`;
    case 'T':
    case 'X':
      return `-${f} (names read from a file) is not simulated`;
    default:
      return `unrecognized option: ${f}`;
  }
}

function longOption(o: Options, name: string, value: () => string | undefined): string | undefined {
  switch (name) {
    case 'no-same-permissions':
      o.samePermissions = false;
      return undefined;
    case 'same-permissions':
    case 'preserve-permissions':
      o.samePermissions = true;
      return undefined;
    case 'no-same-owner':
    case 'same-owner':
    case 'numeric-owner':
    case 'touch':
    case 'overwrite':
      return undefined;
    case 'to-stdout':
      o.toStdout = true;
      return undefined;
    case 'verbose':
      o.verbose = true;
      return undefined;
    case 'file':
    case 'directory': {
      const v = value();
      if (v === undefined) return `option '--${name}' requires an argument`;
      if (name === 'file') o.file = v;
      else o.dir = v;
      return undefined;
    }
    default:
      return `unrecognized option '--${name}'`;
  }
}

// ---- the ustar layout

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function putText(h: Uint8Array, at: number, width: number, text: string): void {
  h.set(encoder.encode(text).subarray(0, width), at);
}

/** One header block, as busybox writes it: GNU's `ustar  ` magic, root's names, the checksum last. */
function header(name: string, type: string, mode: number, size: number, mtime: number, target = ''): Uint8Array {
  const h = new Uint8Array(block);
  putText(h, 0, 100, name);
  putText(h, 157, 100, target);
  putText(h, 100, 8, octal(mode & 0o7777, 8));
  putText(h, 108, 8, octal(0, 8));
  putText(h, 116, 8, octal(0, 8));
  putText(h, 124, 12, octal(size, 12));
  putText(h, 136, 12, octal(Math.max(0, Math.floor(mtime / 1000)), 12));
  putText(h, 156, 1, type);
  putText(h, 257, 8, 'ustar  \0');
  putText(h, 265, 32, 'root');
  putText(h, 297, 32, 'root');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  putText(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

const padding = (size: number): Uint8Array => new Uint8Array((block - (size % block)) % block);

/** A member's blocks; a name (or a symlink's target) longer than the header holds goes first in a GNU long-name (long-link) member, as busybox writes it. */
function memberBlocks(m: Member): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [text, type] of [[m.target ?? '', 'K'], [m.name, 'L']] as const) {
    const bytes = encoder.encode(text);
    if (bytes.length <= 100) continue;
    const long = new Uint8Array(bytes.length + 1);
    long.set(bytes);
    out.push(header('././@LongLink', type, 0, long.length, 0), long, padding(long.length));
  }
  out.push(header(m.name, m.type === 'dir' ? '5' : m.type === 'link' ? '2' : '0', m.mode, m.type === 'file' ? m.content.length : 0, m.mtime, m.target));
  if (m.type === 'file' && m.content.length) out.push(m.content, padding(m.content.length));
  return out;
}


const fieldText = (h: Uint8Array, at: number, width: number): string => {
  const end = h.subarray(at, at + width).indexOf(0);
  return decoder.decode(h.subarray(at, end < 0 ? at + width : at + end));
};

/** A numeric field: octal text, or GNU's base-256 when its first byte has the high bit. */
function fieldNumber(h: Uint8Array, at: number, width: number): number {
  if (h[at]! & 0x80) {
    let n = h[at]! & 0x7f;
    for (let i = 1; i < width; i++) n = n * 256 + h[at + i]!;
    return n;
  }
  const t = fieldText(h, at, width).trim();
  return t ? parseInt(t, 8) : 0;
}

/** pax extended header records (`<len> key=value\n`). */
function paxRecords(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const text = decoder.decode(data);
  let at = 0;
  while (at < text.length) {
    const sp = text.indexOf(' ', at);
    const len = parseInt(text.slice(at, sp), 10);
    if (!(len > 0) || sp < 0) break;
    const record = text.slice(sp + 1, at + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

/**
 * The members of an archive, as busybox's get_header_tar reads them: an
 * empty input or a zero block ends it; a header without the ustar magic or
 * with a wrong checksum, or one cut short, is an error.
 */
function readArchive(bytes: Uint8Array): { members: Member[]; error?: string } {
  const members: Member[] = [];
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax = new Map<string, string>();
  for (let at = 0; at < bytes.length; ) {
    if (at + block > bytes.length) return { members, error: 'short read' };
    const h = bytes.subarray(at, at + block);
    if (h.every((b) => b === 0)) break;
    if (fieldText(h, 257, 5) !== 'ustar') return { members, error: 'invalid tar magic' };
    let sum = 0;
    for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    if (sum !== fieldNumber(h, 148, 8)) return { members, error: 'invalid tar header checksum' };
    const type = String.fromCharCode(h[156]!);
    let size = fieldNumber(h, 124, 12);
    if (pax.has('size')) size = Number(pax.get('size'));
    const dataAt = at + block;
    if (dataAt + size > bytes.length) return { members, error: 'short read' };
    const data = bytes.subarray(dataAt, dataAt + size);
    at = dataAt + size + ((block - (size % block)) % block);
    if (type === 'L') {
      longName = fieldText(data, 0, data.length);
      continue;
    }
    if (type === 'K') {
      longLink = fieldText(data, 0, data.length);
      continue;
    }
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g') continue;
    const prefix = fieldText(h, 345, 155);
    const name = pax.get('path') ?? longName ?? (prefix ? `${prefix}/${fieldText(h, 0, 100)}` : fieldText(h, 0, 100));
    const mtime = (pax.has('mtime') ? Number(pax.get('mtime')) : fieldNumber(h, 136, 12)) * 1000;
    const target = pax.get('linkpath') ?? longLink ?? fieldText(h, 157, 100);
    longName = longLink = undefined;
    pax = new Map();
    const mode = fieldNumber(h, 100, 8);
    if (type === '5') members.push({ name, type: 'dir', mode, mtime, content: new Uint8Array() });
    else if (type === '0' || type === '\0' || type === '7') members.push({ name, type: 'file', mode, mtime, content: data.slice() });
    else if (type === '2') members.push({ name, type: 'link', mode, mtime, content: new Uint8Array(), target });
    else if (type === '1') {
      // A hard link: the same bytes under a second name (kubesim's files have no hard links).
      const linked = members.find((m) => m.name === target);
      members.push({ name, type: 'file', mode, mtime, content: linked ? linked.content : new Uint8Array() });
    } else members.push({ name, type: 'file', mode: -1, mtime, content: new Uint8Array() });
  }
  return { members };
}

// ---- the three modes

/** busybox's unsafe-prefix stripping on extract and create: leading `/` (and `../` on extract), said once. */
function stripper(ctx: ToolContext): (name: string, dots: boolean) => string {
  const said = new Set<string>();
  return (name, dots) => {
    let n = name;
    for (;;) {
      const lead = n.startsWith('/') ? '/' : dots && n.startsWith('../') ? '../' : undefined;
      if (!lead) return n;
      if (!said.has(lead)) {
        said.add(lead);
        ctx.err(`tar: removing leading '${lead}' from member names\n`);
      }
      n = n.slice(lead.length);
    }
  };
}

/** `tar -tv`'s line: mode, owner, size, date and name (` -> target` for a symlink), as busybox's header_verbose_list prints them. */
function verboseLine(m: Member): string {
  const bits = 'rwxrwxrwx';
  let mode = m.type === 'dir' ? 'd' : m.type === 'link' ? 'l' : '-';
  for (let i = 0; i < 9; i++) mode += m.mode & (1 << (8 - i)) ? bits[i] : '-';
  return `${mode} root/root ${String(m.type === 'file' ? m.content.length : 0).padStart(9)} ${strftime('%Y-%m-%d %H:%M:%S', m.mtime)} ${m.name}${m.type === 'link' ? ` -> ${m.target ?? ''}` : ''}\n`;
}

function create(o: Options, ctx: ToolContext, base: string): number {
  if (!o.operands.length) {
    ctx.err('tar: empty archive\n');
    return 1;
  }
  const strip = stripper(ctx);
  const archivePath = o.file === '-' ? undefined : resolvePath(ctx.cwd, o.file);
  const members: Member[] = [];
  let failed = false;
  const add = (path: string, name: string) => {
    if (path === archivePath) {
      ctx.err(`tar: ${name}: file is the archive; not dumped\n`);
      return;
    }
    const e = lstat(ctx.files, path)!;
    const member: Member = { name: e.type === 'dir' ? `${name}/` : name, type: e.type, mode: e.mode, mtime: ctx.now(), content: e.type === 'file' ? e.content : new Uint8Array(), ...(e.type === 'link' ? { target: e.target } : {}) };
    members.push(member);
    if (o.verbose) (archivePath ? ctx.out : ctx.err)(`${member.name}\n`);
    if (e.type !== 'dir') return;
    const prefix = path === '/' ? '/' : `${path}/`;
    for (const c of children(ctx.files, path)) add(prefix + c, `${name === '' ? '' : `${name.replace(/\/$/, '')}/`}${c}`);
  };
  for (const operand of o.operands) {
    const path = resolvePath(base, operand);
    if (!lstat(ctx.files, path)) {
      ctx.err(`tar: ${operand}: No such file or directory\n`);
      failed = true;
      continue;
    }
    add(path, strip(operand.replace(/\/+$/, '') || '/', false));
  }
  const bytes = concatBytes([...members.flatMap(memberBlocks), new Uint8Array(2 * block)]);
  if (archivePath) {
    if (isReadOnly(ctx.files, archivePath)) {
      ctx.err(`tar: can't open '${o.file}': ${erofs}\n`);
      return 1;
    }
    if (ctx.files.get(archivePath)?.type === 'dir' || ctx.files.get(parentOf(archivePath))?.type !== 'dir') {
      ctx.err(`tar: can't open '${o.file}': ${ctx.files.get(archivePath)?.type === 'dir' ? 'Is a directory' : 'No such file or directory'}\n`);
      return 1;
    }
    ctx.files.set(archivePath, { type: 'file', content: bytes, mode: 0o644 });
  } else ctx.out(decodeBytes(bytes));
  if (failed) ctx.err('tar: error exit delayed from previous errors\n');
  return failed ? 1 : 0;
}

function* archiveBytes(o: Options, ctx: ToolContext): Run<Uint8Array | undefined> {
  if (o.file === '-') return encodeText(yield* readAll(ctx));
  const e = ctx.files.get(resolvePath(ctx.cwd, o.file));
  if (e?.type === 'file') return e.content;
  ctx.err(`tar: can't open '${o.file}': ${e ? 'Is a directory' : 'No such file or directory'}\n`);
  return undefined;
}

function extract(o: Options, ctx: ToolContext, base: string, members: Member[]): number {
  const strip = stripper(ctx);
  const wanted = o.operands.map((n) => n.replace(/\/+$/, ''));
  const chosen = (name: string) => !wanted.length || wanted.some((w) => name === w || name.startsWith(`${w}/`));
  const set = (path: string, entry: FsEntry) => ctx.files.set(path, entry);
  for (const m of members) {
    const name = strip(m.name, true);
    if (!name || !chosen(name.replace(/\/+$/, ''))) continue;
    if (o.mode === 't') {
      ctx.out(o.verbose ? verboseLine(m) : `${m.name}\n`);
      continue;
    }
    if (o.verbose) ctx.out(`${name}\n`);
    if (o.toStdout) {
      if (m.type === 'file') ctx.out(decodeBytes(m.content));
      continue;
    }
    const path = resolvePath(base, name);
    if (m.mode < 0) {
      ctx.err(`tar: ${name}: links and special files are not simulated\n`);
      continue;
    }
    // Leading directories the archive does not hold are made, as busybox's ARCHIVE_CREATE_LEADING_DIRS does.
    let dir = '';
    for (const seg of path.split('/').slice(1, -1)) {
      dir += `/${seg}`;
      const e = ctx.files.get(dir);
      if (!e && isReadOnly(ctx.files, dir)) {
        ctx.err(`tar: can't create directory '${dir}': ${erofs}\n`);
        return 1;
      }
      if (!e) set(dir, { type: 'dir', mode: 0o755 });
      else if (e.type !== 'dir') {
        ctx.err(`tar: can't create directory '${dir}': Not a directory\n`);
        return 1;
      }
    }
    const mode = o.samePermissions ? m.mode & 0o7777 : m.mode & 0o7777 & ~umask;
    const existing = ctx.files.get(path);
    if (isReadOnly(ctx.files, path)) {
      ctx.err(m.type === 'dir' ? `tar: can't create directory '${name}': ${erofs}\n` : `tar: can't open '${name}': ${erofs}\n`);
      return 1;
    }
    if (m.type === 'dir') {
      if (existing && existing.type !== 'dir') {
        ctx.err(`tar: can't make dir ${name}: File exists\n`);
        return 1;
      }
      set(path, { type: 'dir', mode });
    } else if (m.type === 'link') {
      if (lstat(ctx.files, path)?.type === 'dir') {
        ctx.err(`tar: can't remove old file ${name}: Is a directory\n`);
        return 1;
      }
      set(path, { type: 'link', target: m.target ?? '', mode: 0o777 });
    } else {
      if (existing?.type === 'dir') {
        ctx.err(`tar: can't remove old file ${name}: Is a directory\n`);
        return 1;
      }
      // The old file is unlinked first: a symlink there is replaced, not written through.
      if (lstat(ctx.files, path)?.type === 'link') ctx.files.delete(path);
      set(path, { type: 'file', content: m.content, mode });
    }
  }
  return 0;
}

export function* tar(args: string[], ctx: ToolContext): Run<number> {
  const o = parse(args);
  if ('error' in o) {
    ctx.err(`tar: ${o.error}\n`);
    return 1;
  }
  if (!o.mode) {
    ctx.err("tar: exactly one of 'c', 'x' or 't' must be specified\n");
    return 1;
  }
  let base = ctx.cwd;
  if (o.dir !== undefined) {
    base = resolvePath(ctx.cwd, o.dir);
    if (ctx.files.get(base)?.type !== 'dir') {
      ctx.err(`tar: can't change directory to '${o.dir}': ${ctx.files.has(base) ? 'Not a directory' : 'No such file or directory'}\n`);
      return 1;
    }
  }
  if (o.mode === 'c') return create(o, ctx, base);
  const bytes = yield* archiveBytes(o, ctx);
  if (!bytes) return 1;
  const { members, error } = readArchive(bytes);
  const code = extract(o, ctx, base, members);
  if (error) {
    ctx.err(`tar: ${error}\n`);
    return 1;
  }
  return code;
}

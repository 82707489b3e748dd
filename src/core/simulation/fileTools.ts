/**
 * busybox's file applets beyond the basics in containerTools.ts: `cp`, `mv`,
 * `chmod`, `find` and `readlink`, over the process's files, with busybox's
 * messages. kubesim's files have no owners or times, so the options about
 * those (`-p`, `-a`'s preservation) change nothing; symlinks (the kubelet's
 * in a configMap volume) are kept by `cp -R`, `-d`, `-P` and `-a`.
 */
import type { FsEntry } from './containerView';
import { erofs, options, parentOf, resolvePath, type Tool, type ToolContext } from './containerTools';
import { isMountPoint, isReadOnly, lstat, realPath } from './containerFiles';
import { globSource, patternRe } from './shellPatterns';

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The path and everything under it, the path first. */
function subtree(files: ReadonlyMap<string, FsEntry>, path: string): string[] {
  const prefix = path === '/' ? '/' : `${path}/`;
  return [path, ...[...files.keys()].filter((p) => p.startsWith(prefix) && p !== path).sort()];
}

/**
 * Where operands go: into `last` when it is a directory (each under its
 * own name), else to `last` itself for a single source; more sources need
 * a directory.
 */
function targets(name: string, ctx: ToolContext, operands: string[]): { pairs: [string, string][] } | { error: string } {
  if (operands.length < 2) return { error: `${name}: missing file operand\n` };
  const last = operands[operands.length - 1]!;
  const dest = resolvePath(ctx.cwd, last);
  const sources = operands.slice(0, -1);
  const intoDir = ctx.files.get(dest)?.type === 'dir';
  if (!intoDir && sources.length > 1) return { error: `${name}: '${last}' is not a directory\n` };
  return { pairs: sources.map((s) => [s, intoDir ? `${dest === '/' ? '' : dest}/${baseName(resolvePath(ctx.cwd, s))}` : dest]) };
}

/** Copies the tree at `from` to `to` (which must not be inside it), its symlinks as symlinks unless followed; an error message, or undefined. */
function copyTree(ctx: ToolContext, from: string, to: string, source: string, follow: boolean): string | undefined {
  if (to === from || to.startsWith(`${from}/`)) return `can't copy a directory into itself: '${source}'`;
  const existing = ctx.files.get(to);
  if (existing && existing.type !== 'dir') return `'${to}' exists and is not a directory`;
  if (isReadOnly(ctx.files, to)) return `can't create directory '${to}': ${erofs}`;
  for (const p of subtree(ctx.files, from)) {
    const e = follow ? ctx.files.get(p) : lstat(ctx.files, p);
    const target = to + p.slice(from.length);
    if (e?.type === 'dir') {
      if (ctx.files.get(target)?.type !== 'dir') ctx.files.set(target, { type: 'dir', mode: e.mode });
    } else if (e) ctx.files.set(target, e);
  }
  return undefined;
}

/** busybox cp: a symlink is followed, unless -R (or -d, -P, -a) copies it as one and -L does not. */
export const cp: Tool = (args, ctx) => {
  const { flags, rest } = options(args);
  const recursive = flags.has('r') || flags.has('R') || flags.has('a');
  const follow = flags.has('L') || !(recursive || flags.has('d') || flags.has('P'));
  const t = targets('cp', ctx, rest);
  if ('error' in t) {
    ctx.err(t.error);
    return 1;
  }
  let code = 0;
  const fail = (message: string) => {
    ctx.err(`cp: ${message}\n`);
    code = 1;
  };
  for (const [source, to] of t.pairs) {
    const from = resolvePath(ctx.cwd, source);
    const e = follow ? ctx.files.get(from) : lstat(ctx.files, from);
    if (!e) fail(`can't stat '${source}': No such file or directory`);
    else if (e.type === 'dir') {
      if (!recursive) fail(`omitting directory '${source}'`);
      else {
        if (ctx.files.get(parentOf(to))?.type !== 'dir') fail(`can't create directory '${to}': No such file or directory`);
        else {
          const error = copyTree(ctx, realPath(ctx.files, from) ?? from, to, source, follow);
          if (error) fail(error);
        }
      }
    } else if (from === to) fail(`'${source}' and '${to}' are the same file`);
    else {
      const target = ctx.files.get(to);
      if (target?.type === 'dir') fail(`cannot overwrite directory '${to}' with non-directory`);
      else if (ctx.files.get(parentOf(to))?.type !== 'dir') fail(`can't create '${to}': No such file or directory`);
      else if (isReadOnly(ctx.files, to)) fail(`can't create '${to}': ${erofs}`);
      else if (e.type === 'link') ctx.files.set(to, e);
      // An existing file keeps its mode (it is opened and truncated), as without -p.
      else ctx.files.set(to, { type: 'file', content: e.content, mode: target?.type === 'file' && !flags.has('p') && !flags.has('a') ? target.mode : e.mode });
    }
  }
  return code;
};

export const mv: Tool = (args, ctx) => {
  const { rest } = options(args);
  const t = targets('mv', ctx, rest);
  if ('error' in t) {
    ctx.err(t.error);
    return 1;
  }
  let code = 0;
  for (const [source, to] of t.pairs) {
    const from = resolvePath(ctx.cwd, source);
    // A symlink is renamed itself.
    const e = lstat(ctx.files, from);
    const fail = (message: string) => {
      ctx.err(`mv: ${message}\n`);
      code = 1;
    };
    if (!e) fail(`can't rename '${source}': No such file or directory`);
    else if (from === to) continue;
    else if (e.type === 'dir' && (to === from || to.startsWith(`${from}/`))) fail(`can't rename '${source}': Invalid argument`);
    else if (ctx.files.get(parentOf(to))?.type !== 'dir') fail(`can't rename '${source}': No such file or directory`);
    else if (isReadOnly(ctx.files, from) || isReadOnly(ctx.files, to)) fail(`can't rename '${source}': ${erofs}`);
    else if (isMountPoint(ctx.files, from)) fail(`can't rename '${source}': Resource busy`);
    else if (ctx.files.get(to)?.type === 'dir' && e.type !== 'dir') fail(`can't rename '${source}': Is a directory`);
    else if (ctx.files.get(to) && ctx.files.get(to)!.type !== 'dir' && e.type === 'dir') fail(`can't rename '${source}': Not a directory`);
    else {
      const moved = subtree(ctx.files, from).map((p) => [p, lstat(ctx.files, p)!] as const);
      if (ctx.files.get(to)?.type === 'dir') for (const p of subtree(ctx.files, to)) ctx.files.delete(p);
      for (const [p] of moved) ctx.files.delete(p);
      for (const [p, entry] of moved) ctx.files.set(to + p.slice(from.length), entry);
    }
  }
  return code;
};

/** A symbolic mode clause list (`u+x,go-w`, `a=r`, `+x`) applied to a mode; undefined when it does not parse. */
function symbolicMode(spec: string, mode: number, isDir: boolean): number | undefined {
  let out = mode;
  for (const clause of spec.split(',')) {
    const m = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!m) return undefined;
    const who = m[1] || 'a';
    let mask = 0;
    if (who.includes('u') || who.includes('a')) mask |= 0o4700;
    if (who.includes('g') || who.includes('a')) mask |= 0o2070;
    if (who.includes('o') || who.includes('a')) mask |= 0o1007;
    let bits = 0;
    for (const p of m[3]!) {
      if (p === 'r') bits |= 0o444;
      else if (p === 'w') bits |= 0o222;
      else if (p === 'x' || (p === 'X' && (isDir || (mode & 0o111) !== 0))) bits |= 0o111;
      else if (p === 's') bits |= 0o6000;
      else if (p === 't') bits |= 0o1000;
    }
    // Without who, the umask (022) holds back what it masks: `chmod +w f` gives write to the owner only.
    const applied = m[1] ? bits & mask : bits & mask & ~0o022;
    if (m[2] === '+') out |= applied;
    else if (m[2] === '-') out &= ~applied;
    else out = (out & ~mask) | applied;
  }
  return out;
}

export const chmod: Tool = (args, ctx) => {
  // A mode may start with `-` (`chmod -x f`): only -R, -v, -c, -f are options.
  let i = 0;
  let recursive = false;
  for (; i < args.length && /^-[Rvcf]+$/.test(args[i]!); i++) if (args[i]!.includes('R')) recursive = true;
  const [spec, ...operands] = args.slice(i);
  if (spec === undefined || !operands.length) {
    ctx.err('chmod: missing operand\n');
    return 1;
  }
  const octal = /^[0-7]{1,4}$/.test(spec) ? parseInt(spec, 8) : undefined;
  if (octal === undefined && symbolicMode(spec, 0, false) === undefined) {
    ctx.err(`chmod: invalid mode '${spec}'\n`);
    return 1;
  }
  let code = 0;
  for (const f of operands) {
    const path = resolvePath(ctx.cwd, f);
    if (!ctx.files.has(path)) {
      ctx.err(`chmod: ${f}: No such file or directory\n`);
      code = 1;
      continue;
    }
    if (isReadOnly(ctx.files, path)) {
      ctx.err(`chmod: ${f}: ${erofs}\n`);
      code = 1;
      continue;
    }
    for (const p of recursive ? subtree(ctx.files, path) : [path]) {
      const e = ctx.files.get(p)!;
      const mode = octal ?? symbolicMode(spec, e.mode, e.type === 'dir')!;
      ctx.files.set(p, { ...e, mode: (e.mode & ~0o7777) | mode });
    }
  }
  return code;
};

interface FindTest {
  (path: string, entry: FsEntry, depth: number): boolean;
}

const findTypes: Record<string, FsEntry['type'] | undefined> = { f: 'file', d: 'dir', l: 'link' };

/** busybox find: paths (default `.`), then -name/-iname/-path, -type f|d|l, -maxdepth/-mindepth, -print; tests joined by and. Symlinks are listed, not followed. */
export const find: Tool = (args, ctx) => {
  const starts: string[] = [];
  let i = 0;
  for (; i < args.length && !args[i]!.startsWith('-'); i++) starts.push(args[i]!);
  const tests: FindTest[] = [];
  let maxDepth = Infinity;
  let minDepth = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const value = args[i + 1];
    const needsValue = ['-name', '-iname', '-path', '-type', '-maxdepth', '-mindepth'].includes(a);
    if (needsValue && value === undefined) {
      ctx.err(`find: '${a}' requires an argument\n`);
      return 1;
    }
    if (needsValue) i++;
    if (a === '-name' || a === '-iname' || a === '-path') {
      const re = patternRe(`^${globSource(value!, false, a === '-path' ? '.*' : '.*')}$`, a === '-iname' ? 'i' : '');
      if (!re) continue;
      tests.push(a === '-path' ? (p) => re.test(p) : (p) => re.test(baseName(p) || p));
    } else if (a === '-type') {
      const type = findTypes[value!];
      if (!type) {
        ctx.err(`find: invalid argument '${value!}' to '-type'\n`);
        return 1;
      }
      tests.push((_p, e) => e.type === type);
    } else if (a === '-maxdepth' || a === '-mindepth') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) {
        ctx.err(`find: invalid argument '${value!}' to '${a}'\n`);
        return 1;
      }
      if (a === '-maxdepth') maxDepth = n;
      else minDepth = n;
    } else if (a !== '-print') {
      ctx.err(`find: unrecognized: ${a}\n`);
      return 1;
    }
  }
  let code = 0;
  for (const start of starts.length ? starts : ['.']) {
    const root = resolvePath(ctx.cwd, start);
    if (!lstat(ctx.files, root)) {
      ctx.err(`find: ${start}: No such file or directory\n`);
      code = 1;
      continue;
    }
    const shown = start.length > 1 ? start.replace(/\/+$/, '') : start;
    for (const p of subtree(ctx.files, root)) {
      const rel = p.slice(root.length).replace(/^\//, '');
      const depth = rel ? rel.split('/').length : 0;
      if (depth > maxDepth || depth < minDepth) continue;
      const name = rel ? `${shown === '/' ? '' : shown}/${rel}` : shown;
      const e = lstat(ctx.files, p)!;
      if (tests.every((t) => t(name, e, depth))) ctx.out(`${name}\n`);
    }
  }
  return code;
};

/** busybox readlink: a symlink's target; -f the path with every symlink resolved (its last name may be missing); -n no newline. Quiet when there is none. */
export const readlink: Tool = (args, ctx) => {
  const { flags, rest, bad } = options(args);
  const unknown = bad ?? [...flags].find((f) => !'fnsqv'.includes(f));
  if (unknown !== undefined || rest.length !== 1) {
    ctx.err(unknown !== undefined ? `readlink: unrecognized option: ${unknown}\n` : 'BusyBox v1.36.1 multi-call binary.\n\nUsage: readlink [-fnv] FILE\n');
    return 1;
  }
  const path = resolvePath(ctx.cwd, rest[0]!);
  let answer: string | undefined;
  if (flags.has('f')) {
    const real = realPath(ctx.files, path);
    answer = real !== undefined && ctx.files.get(parentOf(real))?.type === 'dir' ? real : undefined;
  } else {
    const e = lstat(ctx.files, path);
    answer = e?.type === 'link' ? e.target : undefined;
  }
  if (answer === undefined) return 1;
  ctx.out(flags.has('n') ? answer : `${answer}\n`);
  return 0;
};

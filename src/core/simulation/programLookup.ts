/**
 * Finding what a command runs in a simulated container, as execvp and Go's
 * exec.LookPath do: a path as it is, a bare name on PATH; an executable file
 * is one of the image's tools in its place on PATH, the image's own program,
 * or a `#!` script for sh or bash.
 */
import { readFile, resolvePath, tools } from './containerTools';
import type { ProcessHost } from './processIo';

/** The shell's dialect: which messages it prints. */
export type ShellName = 'sh' | 'bash';

/** execvp's PATH when the environment has none (musl's). */
export const defaultPath = '/usr/local/bin:/bin:/usr/bin';

/** What a path runs. */
export type Program = { kind: 'tool'; name: string } | { kind: 'shell'; name: ShellName; script?: string } | { kind: 'image'; path: string };

export type Found = { path: string; program: Program } | { error: 'not found' | 'no such file' | 'permission denied' } | { error: 'exec format error'; path: string };

/** What an executable file at path runs: a tool in its place on PATH, the image's program, a `#!` script; undefined: nothing kubesim can run. */
function programAt(host: Pick<ProcessHost, 'files' | 'view'>, path: string): Program | undefined {
  if (host.view.image.programs.has(path)) return { kind: 'image', path };
  const base = path.slice(path.lastIndexOf('/') + 1);
  const text = readFile(host.files, path) ?? '';
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (shebang) {
    const interp = shebang[1]!.endsWith('/env') ? (shebang[2] ?? '') : shebang[1]!;
    const name = interp.slice(interp.lastIndexOf('/') + 1);
    if (name === 'sh' || name === 'ash' || name === 'bash') return { kind: 'shell', name: name === 'bash' ? 'bash' : 'sh', script: path };
    return undefined;
  }
  if (text) return undefined;
  if (base === 'sh' || base === 'ash') return { kind: 'shell', name: 'sh' };
  if (base === 'bash') return { kind: 'shell', name: 'bash' };
  return tools.has(base) ? { kind: 'tool', name: base } : undefined;
}

/** Finds a command as execvp and Go's exec.LookPath do: a path as it is, a bare name on PATH. */
export function lookUp(host: Pick<ProcessHost, 'files' | 'view'>, name: string, path: string, cwd: string): Found {
  const executable = (p: string) => {
    const e = host.files.get(p);
    return e?.type === 'file' && (e.mode & 0o111) !== 0;
  };
  if (name.includes('/')) {
    const p = resolvePath(cwd, name);
    const e = host.files.get(p);
    if (!e) return { error: 'no such file' };
    if (!executable(p)) return { error: 'permission denied' };
    const program = programAt(host, p);
    return program ? { path: p, program } : { error: 'exec format error', path: p };
  }
  if (!name) return { error: 'not found' };
  for (const dir of path.split(':')) {
    // Most PATH entries are plain absolute directories: no need to normalize them.
    const p = /^\/[^.]*$/.test(dir) && !dir.includes('//') ? `${dir === '/' ? '' : dir.replace(/\/$/, '')}/${name}` : resolvePath(cwd, `${dir || '.'}/${name}`);
    if (!executable(p)) continue;
    const program = programAt(host, p);
    return program ? { path: p, program } : { error: 'exec format error', path: p };
  }
  return { error: 'not found' };
}

/**
 * lookUp for a shell: an executable file the kernel cannot run (no `#!`,
 * ENOEXEC) is run by the shell itself as a script, as POSIX asks and ash
 * and bash do; runc, execing directly, fails on it instead.
 */
export function shellLookUp(host: ProcessHost, name: string, path: string, cwd: string, shell: ShellName): Found {
  const found = lookUp(host, name, path, cwd);
  return 'error' in found && found.error === 'exec format error' ? { path: found.path, program: { kind: 'shell', name: shell, script: found.path } } : found;
}

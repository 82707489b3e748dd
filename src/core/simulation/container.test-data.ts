/** A container view without a cluster behind it, and a shell run in it, for the process and shell tests. */
import { startProcess, type ProcessOutput } from './containerProcess';
import { imagePrograms, type ContainerView, type FsEntry } from './containerView';
import { unknownImage, type SimulatedImage } from './image';

/** 2026-11-28T17:18:10Z: a Saturday. */
export const t0 = Date.UTC(2026, 10, 28, 17, 18, 10);

const encoder = new TextEncoder();

export function testView(opts: { image?: SimulatedImage; files?: Record<string, string | { text: string; mode: number }>; env?: [string, string][]; uid?: number; workingDir?: string } = {}): ContainerView {
  const image = opts.image ?? unknownImage;
  const files = new Map<string, FsEntry>();
  const dir = (p: string) => {
    for (let d = p; ; d = d.slice(0, d.lastIndexOf('/')) || '/') {
      if (!files.has(d)) files.set(d, { type: 'dir', mode: d === '/tmp' ? 0o1777 : 0o755 });
      if (d === '/') break;
    }
  };
  for (const d of ['/bin', '/etc', '/root', '/tmp', '/usr/local/bin', '/var']) dir(d);
  const file = (p: string, text: string, mode: number) => {
    dir(p.slice(0, p.lastIndexOf('/')) || '/');
    files.set(p, { type: 'file', content: encoder.encode(text), mode });
  };
  for (const t of image.tools ?? imagePrograms) file(`/bin/${t}`, '', 0o755);
  for (const p of image.programs.keys()) file(p, '', 0o755);
  file('/etc/hostname', 'web\n', 0o644);
  for (const [p, f] of Object.entries(opts.files ?? {})) file(p, typeof f === 'string' ? f : f.text, typeof f === 'string' ? 0o644 : f.mode);
  const env: [string, string][] = [['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], ['HOSTNAME', 'web'], ...(opts.env ?? []), ['HOME', '/root']];
  const uid = opts.uid ?? 0;
  return { container: 'app', env, files, hostname: 'web', uid, gid: 0, groups: [0], workingDir: opts.workingDir ?? '/', image };
}

export interface Ran {
  stdout: string;
  stderr: string;
  code: number | undefined;
  /** When it exited, in ms after t0. */
  exitAt: number | undefined;
  output: ProcessOutput[];
}

/** Runs argv (or `sh -c script`) from t0 until it exits or `forMs` passes. */
export function run(cmd: string | string[], opts: { view?: ContainerView; stdin?: string; forMs?: number; tty?: boolean } = {}): Ran {
  const argv = typeof cmd === 'string' ? ['sh', '-c', cmd] : cmd;
  const start = startProcess(opts.view ?? testView(), argv, t0, { stdin: opts.stdin !== undefined, tty: opts.tty ?? false, seed: 7 });
  if (!start.started) throw new Error(start.error);
  if (opts.stdin !== undefined) {
    start.process.input(opts.stdin, t0);
    start.process.closeInput(t0);
  }
  const r = start.process.advance(t0 + (opts.forMs ?? 3_600_000), 1_000_000);
  const text = (s: 1 | 2) => r.output.filter((o) => o.stream === s).map((o) => o.text).join('');
  return { stdout: text(1), stderr: text(2), code: r.exit?.code, exitAt: r.exit ? r.exit.at - t0 : undefined, output: r.output };
}

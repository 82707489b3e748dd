/**
 * The kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go), which
 * writes configMap, secret, downwardAPI and projected volumes: the payload
 * goes into a timestamped directory `..2006_01_02_15_04_05.<random>`,
 * `..data` is a symlink to it, and each top-level name of the payload a
 * symlink `name -> ..data/name`. An update writes a new directory,
 * re-points `..data` (a rename: the whole payload changes at once) and
 * removes the old directory. A volume's entries here are rooted at `/`.
 */
import type { FsEntry, MountedFile } from './containerView';
import type { FileStore } from './fileStore';

const dataDir = '..data';

/** FNV-1a: the stand-in for os.MkdirTemp's random suffix, the same on every run. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** newTimestampDir's name: `..` + the UTC time as Go's "2006_01_02_15_04_05." + MkdirTemp's random uint32 (from the volume and the time). */
export function timestampDir(at: number, volume: string): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `..${d.getUTCFullYear()}_${two(d.getUTCMonth() + 1)}_${two(d.getUTCDate())}_${two(d.getUTCHours())}_${two(d.getUTCMinutes())}_${two(d.getUTCSeconds())}.${hash(`${volume}@${at}`)}`;
}

/** The payload's entries by path, directories included (made 0755, as MkdirAll under the kubelet's umask). */
function payloadEntries(files: readonly MountedFile[]): Map<string, FsEntry> {
  const out = new Map<string, FsEntry>();
  for (const f of files) {
    const parts = f.path.split('/').filter((s) => s && s !== '.');
    for (let i = 1; i < parts.length; i++) out.set(parts.slice(0, i).join('/'), { type: 'dir', mode: 0o755 });
    out.set(parts.join('/'), { type: 'file', content: f.content, mode: f.mode });
  }
  return out;
}

/** The volume's entries with the payload in the directory `dir`, under the volume's root (whose mode is `rootMode`). */
function layout(payload: Map<string, FsEntry>, dir: string, rootMode: number): Map<string, FsEntry> {
  const out = new Map<string, FsEntry>([['/', { type: 'dir', mode: rootMode }], [`/${dir}`, { type: 'dir', mode: 0o755 }]]);
  for (const [p, e] of payload) out.set(`/${dir}/${p}`, e);
  out.set(`/${dataDir}`, { type: 'link', target: dir, mode: 0o777 });
  for (const p of payload.keys()) {
    const top = p.split('/')[0]!;
    out.set(`/${top}`, { type: 'link', target: `${dataDir}/${top}`, mode: 0o777 });
  }
  return out;
}

/** A volume's first entries, written at `at` (the first mount). */
export function atomicLayout(files: readonly MountedFile[], at: number, volume: string, rootMode: number): Map<string, FsEntry> {
  return layout(payloadEntries(files), timestampDir(at, volume), rootMode);
}

/** Whether an entry is already as it should be (a link's target, a file's bytes and mode). */
function sameEntry(a: FsEntry | undefined, b: FsEntry): boolean {
  if (!a || a.type !== b.type || a.mode !== b.mode) return false;
  if (a.type === 'link') return b.type === 'link' && a.target === b.target;
  return a.type !== 'file' || (b.type === 'file' && a.content.length === b.content.length && a.content.every((x, i) => x === b.content[i]));
}

/**
 * An update of the volume in `store` at `at`: when the payload differs
 * from the one `..data` points to, a new timestamped directory, `..data`
 * re-pointed to it, the symlinks of the names gone removed, the old
 * directory removed, all at that one time. A file marked `keep` (a token
 * not asked for again) keeps the content it had. Whether it wrote.
 */
export function updateAtomically(store: FileStore, files: readonly MountedFile[], at: number, volume: string): boolean {
  const link = store.get(`/${dataDir}`, at);
  const old = link?.type === 'link' ? link.target : undefined;
  const payload = payloadEntries(files.map((f) => {
    const kept = f.keep && old ? store.get(`/${old}/${f.path}`, at) : undefined;
    return kept?.type === 'file' ? { ...f, content: kept.content } : f;
  }));
  const oldPrefix = `/${old}/`;
  const current = old === undefined ? [] : [...store.paths(at)].filter((p) => p.startsWith(oldPrefix));
  if (current.length === payload.size && [...payload].every(([p, e]) => sameEntry(store.get(oldPrefix + p, at), e))) return false;
  const root = store.get('/', at);
  const next = layout(payload, timestampDir(at, volume), root?.mode ?? 0o777);
  for (const p of [...store.paths(at)]) if (!next.has(p)) store.put(p, undefined, at);
  for (const [p, e] of next) if (!sameEntry(store.get(p, at), e)) store.put(p, e, at);
  return true;
}

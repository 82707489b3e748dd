/**
 * The kubelet's remount of a running pod's configMap, secret, downwardAPI
 * and projected volumes: on a sync of the pod it builds their files again
 * from their sources and, where they differ, its atomic writer swaps them
 * in at once (every changed, added and removed file at one time, as the
 * `..data` symlink swap does). Only a volume mounted whole follows: a
 * subPath mount is a bind mount of the file as it was when the container
 * started (containerView.ts keeps it in the container's layer), and the
 * environment is never rebuilt.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import type { FileStore } from './fileStore';
import { isKubeletWritten, kubeletVolumeName, volumeFiles, type FsEntry, type VolumeFilesSource } from './containerView';

type Obj = Record<string, unknown>;

/**
 * The kubelet's --sync-frequency (1m): each pod worker syncs its pod again
 * that long after its last sync (pod_workers.go adds up to 50% jitter,
 * left out here to keep runs the same), and a sync remounts these volumes.
 */
export const podResyncMs = 60_000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A source whose content can change while the pod runs (the cluster's CA and the namespace never do). */
function followsSource(volume: Obj): boolean {
  const downward = (d: unknown) => objectsOf(isObject(d) ? d['items'] : undefined).some((i) => /^metadata\.(labels|annotations)\b/.test(str(isObject(i['fieldRef']) ? i['fieldRef']['fieldPath'] : '')));
  if (isObject(volume['configMap']) || isObject(volume['secret'])) return true;
  if (isObject(volume['downwardAPI'])) return downward(volume['downwardAPI']);
  if (!isObject(volume['projected'])) return false;
  return objectsOf(volume['projected']['sources']).some((s) => isObject(s['secret']) || (isObject(s['configMap']) && s['configMap']['name'] !== 'kube-root-ca.crt') || downward(s['downwardAPI']));
}

/** The pod's volumes whose files follow their sources (the kube-api-access volume every pod has does not need to). */
export function followedVolumes(pod: KubeObject): Obj[] {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return objectsOf(spec['volumes']).filter((v) => isKubeletWritten(v) && followsSource(v));
}

const sameEntry = (a: FsEntry | undefined, b: FsEntry): boolean =>
  a !== undefined && a.type === b.type && a.mode === b.mode && (a.type !== 'file' || (b.type === 'file' && a.content.length === b.content.length && a.content.every((x, i) => x === b.content[i])));

/**
 * Writes a volume's new files into its store at the sync's time, or just
 * after the last time a process read it (a process may run up to a second
 * ahead of the server clock: what it read must stay true): only what
 * changed, all at that one time.
 */
function swap(store: FileStore, files: Awaited<ReturnType<typeof volumeFiles>>, syncAt: number): boolean {
  const at = Math.max(syncAt, store.readUpTo + 1);
  const next = new Map<string, FsEntry | 'keep'>([['/', 'keep']]);
  for (const f of files) {
    const path = '/' + f.path.split('/').filter((s) => s && s !== '.').join('/');
    for (let d = path.slice(0, path.lastIndexOf('/')); d; d = d.slice(0, d.lastIndexOf('/'))) if (!next.has(d)) next.set(d, { type: 'dir', mode: 0o755 });
    next.set(path, f.keep ? 'keep' : { type: 'file', content: f.content, mode: f.mode });
  }
  let changed = false;
  for (const p of [...store.paths(at)]) {
    if (next.has(p)) continue;
    store.put(p, undefined, at);
    changed = true;
  }
  for (const [p, e] of next) {
    if (e === 'keep' || sameEntry(store.get(p, at), e)) continue;
    store.put(p, e, at);
    changed = true;
  }
  return changed;
}

/**
 * The sync's remount: each followed volume a container has mounted whole
 * gets its sources' files as of now, swapped in at the sync's time `at`
 * (or just after a process's latest read of it). Tokens are not
 * asked for again (the token manager renews them on its own schedule).
 * Returns the volumes that changed.
 */
export async function refreshVolumes(src: Pick<VolumeFilesSource, 'get'>, pod: KubeObject, storeOf: (volume: string) => FileStore | undefined, at: number): Promise<string[]> {
  const changed: string[] = [];
  for (const volume of followedVolumes(pod)) {
    const name = str(volume['name']);
    const store = storeOf(kubeletVolumeName(pod, name));
    if (store && swap(store, await volumeFiles({ get: src.get }, pod, volume), at)) changed.push(name);
  }
  return changed;
}

/**
 * The kubelet's remount of a running pod's configMap, secret, downwardAPI
 * and projected volumes: on a sync of the pod it builds their files again
 * from their sources and, where they differ, its atomic writer swaps them
 * in at once (atomicWriter.ts: a new timestamped directory, `..data`
 * re-pointed to it). Only a volume mounted whole follows: a
 * subPath mount is a bind mount of the file as it was when the container
 * started (containerView.ts keeps it in the container's layer), and the
 * environment is never rebuilt.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import type { FileStore } from './fileStore';
import { isKubeletWritten, kubeletVolumeName, volumeFiles, type VolumeFilesSource } from './containerView';
import { updateAtomically } from './atomicWriter';

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
    const shared = kubeletVolumeName(pod, name);
    const store = storeOf(shared);
    if (!store) continue;
    const files = await volumeFiles({ get: src.get }, pod, volume);
    // After the last time a process read it (a process may run up to a second ahead of the server clock: what it read must stay true).
    if (updateAtomically(store, files, Math.max(at, store.readUpTo + 1), shared)) changed.push(name);
  }
  return changed;
}

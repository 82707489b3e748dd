/**
 * The PVC and PV protection controllers (pkg/controller/volume/pvcprotection,
 * pvprotection): they keep the kubernetes.io/pvc-protection and
 * kubernetes.io/pv-protection finalizers (which StorageObjectInUseProtection
 * admission puts on new objects) on live claims and volumes, and take them
 * off one being deleted once nothing uses it: a claim no scheduled pod mounts
 * (a finished pod still holds its claims until it is deleted; a generic
 * ephemeral volume's claim is let go once its pod is shut down), a volume
 * that is not Bound.
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { Store } from '../registry/generic/store';
import type { KeyValue } from '../storage/interface';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';

/** The claims a pod names: its persistentVolumeClaim volumes, and its generic ephemeral volumes' (named <pod>-<volume>). */
function claimsOf(pod: KubeObject): { name: string; ephemeral: boolean }[] {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const volumes = Array.isArray(spec['volumes']) ? (spec['volumes'] as unknown[]).filter(isObject) : [];
  return volumes.flatMap((v): { name: string; ephemeral: boolean }[] => {
    if (isObject(v['persistentVolumeClaim']) && typeof v['persistentVolumeClaim']['claimName'] === 'string') return [{ name: v['persistentVolumeClaim']['claimName'], ephemeral: false }];
    if (isObject(v['ephemeral'])) return [{ name: `${pod.metadata.name}-${String(v['name'])}`, ephemeral: true }];
    return [];
  });
}

/** podIsShutDown: the kubelet is done with it (deleted with a zero grace period) or it was force-deleted. */
const shutDown = (pod: KubeObject) => !!pod.metadata.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;

/** podUsesPVC: only a scheduled pod uses a claim, as the kubelet starts none whose claim is being deleted. */
function podUsesClaim(pod: KubeObject, claim: string): boolean {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  if (!spec['nodeName']) return false;
  return claimsOf(pod).some((c) => c.name === claim && (!c.ephemeral || !shutDown(pod)));
}

const terminated = (pod: KubeObject) => {
  const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
};

/** Adds the finalizer to a live object without it, or drops it from a deleted one nothing uses. */
async function syncFinalizer(store: Store, namespace: string, name: string, finalizer: string, inUse: (obj: KubeObject) => Promise<boolean>): Promise<void> {
  const kv = await store.getKv(namespace, name);
  if (!kv) return;
  const obj = store.decode(kv);
  const has = obj.metadata.finalizers?.includes(finalizer) ?? false;
  const deleting = !!obj.metadata.deletionTimestamp;
  if (deleting ? !has || (await inUse(obj)) : has) return;
  try {
    await store.update(namespace, name, (cur) => {
      if (!cur || cur.metadata.uid !== obj.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });
      const rest = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      cur.metadata.finalizers = deleting ? rest : [...rest, finalizer];
      return cur;
    });
  } catch (e) {
    // Changed or gone meanwhile: the watch brings the next state.
    if (!(e instanceof StatusError && (e.code === 409 || e.code === 404))) throw e;
  }
}

export function startPVCProtectionController(deps: NamespaceControllerDeps): RunningController {
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const inUse = async (pvc: KubeObject) => {
    const name = pvc.metadata.name ?? '';
    const { items } = await pods.list(pvc.metadata.namespace ?? '');
    return items.some((pod) => podUsesClaim(pod, name));
  };
  const queue = newWorkQueue('persistentvolumeclaim-protection-controller', (key) => {
    const [namespace = '', name = ''] = key.split('/');
    return syncFinalizer(claims, namespace, name, pvcProtectionFinalizer, inUse);
  });
  // enqueuePVCs: a pod that goes, finishes or is not scheduled may free its claims.
  const podClaims = (kv: KeyValue, deleted: boolean) => {
    const pod = pods.decode(kv);
    const spec = isObject(pod['spec']) ? pod['spec'] : {};
    if (!deleted && !terminated(pod) && spec['nodeName']) return [];
    return claimsOf(pod).map((c) => `${pod.metadata.namespace}/${c.name}`);
  };
  return watchInto(deps, queue, claims, [{ store: pods, keysFor: (e) => podClaims(e.kv, e.type === 'DELETE') }]);
}

export function startPVProtectionController(deps: NamespaceControllerDeps): RunningController {
  const volumes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumes')!);
  const bound = async (pv: KubeObject) => isObject(pv['status']) && pv['status']['phase'] === 'Bound';
  const queue = newWorkQueue('persistentvolume-protection-controller', (key) => syncFinalizer(volumes, '', key.slice(1), pvProtectionFinalizer, bound));
  return watchInto(deps, queue, volumes, []);
}

/**
 * kube-controller-manager's ephemeral-volume-controller
 * (pkg/controller/volume/ephemeral): each generic ephemeral volume of a pod
 * gets its claim `<pod>-<volume>` from the volume's volumeClaimTemplate,
 * owned by the pod (controller, blockOwnerDeletion) so it goes with it. A
 * claim of that name the pod does not own is left alone (the scheduler says
 * the pod cannot use it).
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { specOf } from './controllerUtils';
import { newEventRecorder } from './events';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

export function startEphemeralVolumeController(deps: NamespaceControllerDeps): RunningController {
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const recorder = newEventRecorder(deps, 'ephemeral_volume');

  async function sync(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const kv = await pods.getKv(namespace, name);
    if (!kv) return;
    const pod = pods.decode(kv);
    if (pod.metadata.deletionTimestamp) return;
    const volumes = Array.isArray(specOf(pod)['volumes']) ? (specOf(pod)['volumes'] as unknown[]).filter(isObject) : [];
    for (const volume of volumes) {
      const ephemeral = volume['ephemeral'];
      if (!isObject(ephemeral) || !isObject(ephemeral['volumeClaimTemplate'])) continue;
      const template = ephemeral['volumeClaimTemplate'];
      const claimName = `${name}-${String(volume['name'])}`;
      const existing = await claims.getKv(namespace, claimName);
      // One of that name already: the pod's own, or another's the scheduler reports the pod cannot use.
      if (existing) continue;
      const meta = isObject(template['metadata']) ? template['metadata'] : {};
      const claim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: claimName,
          ...(isObject(meta['labels']) ? { labels: meta['labels'] } : {}),
          ...(isObject(meta['annotations']) ? { annotations: meta['annotations'] } : {}),
          ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata.uid!, controller: true, blockOwnerDeletion: true }],
        },
        spec: structuredClone(isObject(template['spec']) ? template['spec'] : {}),
      } as unknown as KubeObject;
      try {
        await claims.create(namespace, claim);
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        if (e.code === 409) continue;
        recorder.event(pod, 'Warning', 'FailedBinding', `create PVC ${claimName}: ${e.message}`);
      }
    }
  }

  return watchInto(deps, newWorkQueue('ephemeral-volume-controller', sync), pods, [{
    // A pod's claim deleted while the pod lives is made again.
    store: claims,
    keysFor: (e) => {
      if (e.type !== 'DELETE') return [];
      const claim = claims.decode(e.kv);
      const owner = claim.metadata.ownerReferences?.find((r) => r.kind === 'Pod' && r.controller);
      return owner ? [`${claim.metadata.namespace}/${owner.name}`] : [];
    },
  }]);
}

/**
 * kube-controller-manager's persistentvolume-binder-controller
 * (pkg/controller/volume/persistentvolume pv_controller.go): it binds each
 * unbound claim to the smallest Available volume that satisfies it (or to
 * the volume it names, or that names it), writing both sides as the
 * controller does: pv.spec.claimRef, pvc.spec.volumeName, the
 * bound-by-controller and bind-completed annotations and both phases. A
 * claim of a WaitForFirstConsumer class waits for the scheduler's
 * selected-node; a claim of a class with no volume to take goes to the
 * class's provisioner (external to kube-controller-manager: the annotations
 * tell it so); a claim that never chose a class takes the default class
 * once there is one. When a claim goes its volume is Released and reclaimed:
 * Retain keeps it, Delete leaves a provisioned volume to its provisioner
 * and otherwise runs the in-tree deleter (hostPath only under /tmp).
 * Claim and volume syncs take one turn each, in order, as the controller's
 * cache makes its two workers agree.
 */
import { defaultStorageClass } from '../admission';
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { Store } from '../registry/generic/store';
import { specOf, statusOf } from './controllerUtils';
import { newEventRecorder } from './events';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import {
  annBetaStorageProvisioner,
  annBindCompleted,
  annBoundByController,
  annDynamicallyProvisioned,
  annSelectedNode,
  annStorageProvisioner,
  claimClass,
  claimRefOf,
  claimReference,
  findMatchingVolume,
  isVolumeBoundToClaim,
  volumePhase,
  volumeSatisfiesClaim,
} from './volumeUtil';
import { newWorkQueue } from './workqueue';

const changed = () => new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });

/** An update of exactly the version read: a change meanwhile is a conflict, and the next sync sees it. */
async function updateRead(store: Store, obj: KubeObject, change: (cur: KubeObject) => void, subresource?: string): Promise<KubeObject> {
  const { object } = await store.update(obj.metadata.namespace ?? '', obj.metadata.name!, (cur) => {
    if (!cur || cur.metadata.resourceVersion !== obj.metadata.resourceVersion) throw changed();
    change(cur);
    return cur;
  }, subresource ? { subresource } : {});
  return object;
}

const annotate = (obj: KubeObject, key: string, value: string) => {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [key]: value };
};

export function startPersistentVolumeBinder(deps: NamespaceControllerDeps): RunningController {
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const volumes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumes')!);
  const classes = deps.storeFor(deps.registry.resourceFor('storage.k8s.io', 'v1', 'storageclasses')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const recorder = newEventRecorder(deps, 'persistentvolume-controller');
  let turn: Promise<void> = Promise.resolve();
  const inTurn = (work: () => Promise<void>) => {
    const next = turn.then(work);
    turn = next.catch(() => {});
    return next;
  };

  const getClass = async (name: string): Promise<KubeObject | undefined> => {
    const kv = name ? await classes.getKv('', name) : undefined;
    return kv ? classes.decode(kv) : undefined;
  };

  // updateVolumePhase / updateClaimStatus: status writes only when something differs.
  async function setVolumePhase(volume: KubeObject, phase: string, message = ''): Promise<KubeObject> {
    const status = statusOf(volume);
    if (status['phase'] === phase && (status['message'] ?? '') === message) return volume;
    return updateRead(volumes, volume, (cur) => {
      const next: Record<string, unknown> = { ...statusOf(cur), phase };
      if (message) next['message'] = message;
      else delete next['message'];
      cur['status'] = next;
    }, 'status');
  }

  async function setClaimStatus(claim: KubeObject, phase: string, volume?: KubeObject): Promise<KubeObject> {
    const status = statusOf(claim);
    const accessModes = volume ? specOf(volume)['accessModes'] : undefined;
    const capacity = volume ? specOf(volume)['capacity'] : undefined;
    if (status['phase'] === phase && JSON.stringify(status['accessModes']) === JSON.stringify(accessModes) && JSON.stringify(status['capacity']) === JSON.stringify(capacity)) return claim;
    return updateRead(claims, claim, (cur) => {
      const next: Record<string, unknown> = { ...statusOf(cur), phase };
      delete next['accessModes'];
      delete next['capacity'];
      if (volume) Object.assign(next, { accessModes, capacity });
      cur['status'] = next;
    }, 'status');
  }

  /** bind: the volume points at the claim and is Bound, then the claim at the volume, Bound with its capacity. */
  async function bind(volume: KubeObject, claim: KubeObject): Promise<void> {
    const ref = claimRefOf(volume);
    const byController = !isVolumeBoundToClaim(volume, claim);
    if (!ref || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace || ref.uid !== claim.metadata.uid || (byController && !volume.metadata.annotations?.[annBoundByController])) {
      volume = await updateRead(volumes, volume, (cur) => {
        const spec = isObject(cur['spec']) ? cur['spec'] : (cur['spec'] = {});
        const curRef = claimRefOf(cur);
        if (!curRef || curRef.name !== claim.metadata.name || curRef.namespace !== claim.metadata.namespace || curRef.uid !== claim.metadata.uid) spec['claimRef'] = claimReference(claim);
        if (byController && cur.metadata.annotations?.[annBoundByController] === undefined) annotate(cur, annBoundByController, 'yes');
      });
    }
    volume = await setVolumePhase(volume, 'Bound');
    const name = volume.metadata.name!;
    const claimByController = specOf(claim)['volumeName'] !== name;
    const ann = claim.metadata.annotations ?? {};
    if (claimByController || ann[annBindCompleted] === undefined) {
      claim = await updateRead(claims, claim, (cur) => {
        specOf(cur)['volumeName'] = name;
        if (claimByController && cur.metadata.annotations?.[annBoundByController] === undefined) annotate(cur, annBoundByController, 'yes');
        if (cur.metadata.annotations?.[annBindCompleted] === undefined) annotate(cur, annBindCompleted, 'yes');
      });
    }
    await setClaimStatus(claim, 'Bound', volume);
  }

  /** emitEventForUnboundDelayBindingClaim: waiting for a pod, or for the pods that use it to be scheduled. */
  async function waitingForConsumer(claim: KubeObject): Promise<void> {
    const users = (await pods.list(claim.metadata.namespace ?? '')).items.filter((p) =>
      !specOf(p)['nodeName'] && (Array.isArray(specOf(p)['volumes']) ? (specOf(p)['volumes'] as unknown[]) : []).some((v) => isObject(v) && isObject(v['persistentVolumeClaim']) && v['persistentVolumeClaim']['claimName'] === claim.metadata.name),
    ).map((p) => p.metadata.name!);
    if (!users.length) recorder.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    else recorder.event(claim, 'Normal', 'WaitForPodScheduled', users.length > 1 ? `waiting for pods ${users.join(',')} to be scheduled` : `waiting for pod ${users[0]} to be scheduled`);
  }

  /** provisionClaim for an external provisioner: the claim is annotated with it, and the event says who is expected to act. */
  async function provision(claim: KubeObject): Promise<KubeObject> {
    const className = claimClass(claim);
    const storageClass = await getClass(className);
    if (!storageClass) {
      recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return claim;
    }
    const provisioner = String(storageClass['provisioner'] ?? '');
    const ann = claim.metadata.annotations ?? {};
    if (ann[annStorageProvisioner] !== provisioner || ann[annBetaStorageProvisioner] !== provisioner) {
      claim = await updateRead(claims, claim, (cur) => {
        annotate(cur, annBetaStorageProvisioner, provisioner);
        annotate(cur, annStorageProvisioner, provisioner);
      });
    }
    recorder.event(claim, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
    return claim;
  }

  async function syncUnboundClaim(claim: KubeObject): Promise<void> {
    const volumeName = specOf(claim)['volumeName'];
    if (!volumeName) {
      const storageClass = await getClass(claimClass(claim));
      const delayBinding = storageClass?.['volumeBindingMode'] === 'WaitForFirstConsumer';
      const volume = findMatchingVolume(claim, (await volumes.list('')).items, delayBinding);
      if (volume) return bind(volume, claim);
      // RetroactiveDefaultStorageClass: a claim that never chose a class takes today's default; its update syncs it again.
      if (specOf(claim)['storageClassName'] === undefined && claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] === undefined) {
        const def = defaultStorageClass((await classes.list('')).items);
        if (def) {
          await updateRead(claims, claim, (cur) => void (specOf(cur)['storageClassName'] = def.metadata.name));
          return;
        }
      }
      if (delayBinding && !claim.metadata.annotations?.[annSelectedNode]) await waitingForConsumer(claim);
      else if (claimClass(claim)) {
        claim = await provision(claim);
      } else recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      await setClaimStatus(claim, 'Pending');
      return;
    }
    // The user asked for this volume.
    const kv = await volumes.getKv('', String(volumeName));
    if (!kv) {
      await setClaimStatus(claim, 'Pending');
      return;
    }
    const volume = volumes.decode(kv);
    if (!claimRefOf(volume)) {
      const mismatch = volume.metadata.deletionTimestamp ? `the volume is marked for deletion "${volume.metadata.name}"` : volumeSatisfiesClaim(volume, claim);
      if (!mismatch) return bind(volume, claim);
      recorder.event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${volume.metadata.name}": ${mismatch}`);
      await setClaimStatus(claim, 'Pending');
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) return bind(volume, claim);
    if (claim.metadata.annotations?.[annBoundByController] === undefined) {
      recorder.event(claim, 'Warning', 'FailedBinding', `volume "${volume.metadata.name}" already bound to a different claim.`);
      await setClaimStatus(claim, 'Pending');
    }
  }

  async function syncBoundClaim(claim: KubeObject): Promise<void> {
    const volumeName = specOf(claim)['volumeName'];
    const lost = (reason: string, message: string) => {
      if (statusOf(claim)['phase'] !== 'Lost') recorder.event(claim, 'Warning', reason, message);
      return setClaimStatus(claim, 'Lost');
    };
    if (!volumeName) return void (await lost('ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!'));
    const kv = await volumes.getKv('', String(volumeName));
    if (!kv) return void (await lost('ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!'));
    const volume = volumes.decode(kv);
    const ref = claimRefOf(volume);
    if (!ref || ref.uid === claim.metadata.uid) return bind(volume, claim);
    await lost('ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
  }

  async function syncClaim(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const kv = await claims.getKv(namespace, name);
    if (!kv) return;
    const claim = claims.decode(kv);
    if (claim.metadata.annotations?.[annBindCompleted] === undefined) await syncUnboundClaim(claim);
    else await syncBoundClaim(claim);
  }

  /** reclaimVolume: what a Released volume's reclaim policy asks for. */
  async function reclaim(volume: KubeObject): Promise<void> {
    const policy = specOf(volume)['persistentVolumeReclaimPolicy'] ?? 'Retain';
    if (policy === 'Retain') return;
    const source = specOf(volume)['hostPath'];
    const hostPath = isObject(source) ? String(source['path'] ?? '') : undefined;
    if (policy === 'Recycle') {
      // The recycler scrubs hostPath and NFS volumes and makes them Available again.
      if (hostPath === undefined && !isObject(specOf(volume)['nfs'])) {
        if (volumePhase(volume) !== 'Failed') recorder.event(volume, 'Warning', 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
        await setVolumePhase(volume, 'Failed', 'No recycler plugin found for the volume!');
        return;
      }
      recorder.event(volume, 'Normal', 'VolumeRecycled', 'Volume recycled');
      return unbind(volume);
    }
    // Delete: a provisioned volume is its provisioner's to delete.
    if (volume.metadata.annotations?.[annDynamicallyProvisioned]) return;
    const failure = hostPath === undefined ? `error getting deleter volume plugin for volume "${volume.metadata.name}": no deletable volume plugin matched` : /\/tmp\/.+/.test(hostPath) ? undefined : `host_path deleter only supports /tmp/.+ but received provided ${hostPath}`;
    if (failure) {
      if (volumePhase(volume) !== 'Failed') recorder.event(volume, 'Warning', 'VolumeFailedDelete', failure);
      await setVolumePhase(volume, 'Failed', failure);
      return;
    }
    try {
      await volumes.delete('', volume.metadata.name!, { preconditions: { uid: volume.metadata.uid! } });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }

  /** unbindVolume: a volume the controller bound is freed; one the user pre-bound keeps its claim's name. */
  async function unbind(volume: KubeObject): Promise<void> {
    volume = await updateRead(volumes, volume, (cur) => {
      if (cur.metadata.annotations?.[annBoundByController] !== undefined) {
        delete specOf(cur)['claimRef'];
        const { [annBoundByController]: _, ...rest } = cur.metadata.annotations;
        cur.metadata.annotations = Object.keys(rest).length ? rest : undefined;
      } else {
        const ref = claimRefOf(cur);
        if (ref) delete ref.uid;
      }
    });
    await setVolumePhase(volume, 'Available');
  }

  async function syncVolume(name: string): Promise<void> {
    const kv = await volumes.getKv('', name);
    if (!kv) return;
    const volume = volumes.decode(kv);
    const ref = claimRefOf(volume);
    if (!ref || !ref.uid) return void (await setVolumePhase(volume, 'Available'));
    const claimKv = await claims.getKv(ref.namespace ?? '', ref.name ?? '');
    const found = claimKv ? claims.decode(claimKv) : undefined;
    const claim = found?.metadata.uid === ref.uid ? found : undefined;
    if (!claim) {
      // The claim is gone: Released (a Failed volume stays Failed), then reclaimed.
      const phase = volumePhase(volume);
      return reclaim(phase === 'Released' || phase === 'Failed' ? volume : await setVolumePhase(volume, 'Released'));
    }
    const claimVolume = specOf(claim)['volumeName'];
    // Not bound on the claim's side yet: the claim's sync finishes it.
    if (!claimVolume) return claimQueue.add(`${claim.metadata.namespace}/${claim.metadata.name}`);
    if (claimVolume === name) return void (await setVolumePhase(volume, 'Bound'));
    // The claim went to another volume.
    if (volume.metadata.annotations?.[annDynamicallyProvisioned] && specOf(volume)['persistentVolumeReclaimPolicy'] === 'Delete') {
      const phase = volumePhase(volume);
      return reclaim(phase === 'Released' || phase === 'Failed' ? volume : await setVolumePhase(volume, 'Released'));
    }
    await unbind(volume);
  }

  const settle = async (work: () => Promise<void>) => {
    try {
      await inTurn(work);
    } catch (e) {
      // Changed or gone meanwhile: the watch brings the next state.
      if (!(e instanceof StatusError && (e.code === 409 || e.code === 404))) throw e;
    }
  };
  const claimQueue = newWorkQueue('persistentvolume-binder-controller', (key) => settle(() => syncClaim(key)));
  const volumeQueue = newWorkQueue('persistentvolume-binder-controller', (key) => settle(() => syncVolume(key.slice(1))));
  const claimKey = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  const parts = [
    // A claim's change (or its going) syncs the volume it names; a volume's change, the claim it names.
    watchInto(deps, claimQueue, claims, [{
      store: volumes,
      keysFor: (e) => {
        const ref = claimRefOf(volumes.decode(e.kv));
        return ref ? [`${ref.namespace}/${ref.name}`] : [];
      },
    }]),
    watchInto(deps, volumeQueue, volumes, [{
      store: claims,
      keysFor: (e) => {
        const claim = claims.decode(e.kv);
        const name = specOf(claim)['volumeName'];
        return name ? [`/${name}`] : [];
      },
    }]),
  ];
  // Pending claims are tried again when a volume or a class appears or changes, as the 15s resync would find them.
  const retryPending = watchInto(deps, newWorkQueue('persistentvolume-binder-controller', async () => {
    for (const claim of (await claims.list('')).items) if (statusOf(claim)['phase'] !== 'Bound') claimQueue.add(claimKey(claim));
  }), volumes, [{ store: classes, keysFor: () => ['/'] }]);
  parts.push(retryPending);
  return {
    stop: () => parts.forEach((p) => p.stop()),
    idle: async () => {
      for (let i = 0; i < 2; i++) for (const p of parts) await p.idle();
    },
  };
}

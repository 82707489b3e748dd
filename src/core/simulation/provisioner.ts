/**
 * The simulated nodes' storage, as kind ships it: a default StorageClass
 * `standard` (WaitForFirstConsumer, reclaimPolicy Delete) created at start
 * when absent, and an external provisioner for it in the manner of
 * rancher.io/local-path (sig-storage-lib-external-provisioner): a claim the
 * PV controller handed to `kubesim.io/simulated-path`, once the scheduler
 * selected its node, gets a `pvc-<claim uid>` hostPath volume on that node
 * (node affinity), pre-bound to it; the PV controller then binds the two. A
 * Released volume of its own with reclaimPolicy Delete is deleted.
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { specOf } from '../controllers/controllerUtils';
import { newEventRecorder } from '../controllers/events';
import { watchInto, type RunningController } from '../controllers/informer';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import {
  annBetaStorageProvisioner,
  annDynamicallyProvisioned,
  annSelectedNode,
  annStorageProvisioner,
  claimClass,
  claimReference,
  volumePhase,
} from '../controllers/volumeUtil';
import { newWorkQueue } from '../controllers/workqueue';
import { hexOf } from './nodes';

export const simulatedProvisioner = 'kubesim.io/simulated-path';
export const defaultStorageClassName = 'standard';
/** Where the volumes' directories would live on their node. */
const volumesDir = '/var/kubesim/simulated-path';

/** kind's default StorageClass, with kubesim's provisioner. */
export const defaultStorageClass = (): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: defaultStorageClassName, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: simulatedProvisioner,
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
} as KubeObject);

/** The provisioner's identity in its events: name, host and instance, as the provisioning library writes it. */
const identity = () => {
  const hex = hexOf('simulated-path-provisioner', 32);
  return `${simulatedProvisioner}_simulated-path-provisioner_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

export function startProvisioner(deps: NamespaceControllerDeps): RunningController {
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const volumes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumes')!);
  const classes = deps.storeFor(deps.registry.resourceFor('storage.k8s.io', 'v1', 'storageclasses')!);
  const recorder = newEventRecorder(deps, identity());

  const ensureClass = classes.create('', defaultStorageClass()).catch((e) => {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  });

  /** shouldProvision: unbound, handed to us, of our class, and placed when its class waits for a consumer. */
  async function shouldProvision(claim: KubeObject): Promise<KubeObject | undefined> {
    if (specOf(claim)['volumeName'] || claim.metadata.deletionTimestamp) return undefined;
    const ann = claim.metadata.annotations ?? {};
    if ((ann[annStorageProvisioner] ?? ann[annBetaStorageProvisioner]) !== simulatedProvisioner) return undefined;
    const kv = await classes.getKv('', claimClass(claim));
    const storageClass = kv ? classes.decode(kv) : undefined;
    if (storageClass?.['provisioner'] !== simulatedProvisioner) return undefined;
    if (storageClass['volumeBindingMode'] === 'WaitForFirstConsumer' && !ann[annSelectedNode]) return undefined;
    return storageClass;
  }

  async function provision(claim: KubeObject, storageClass: KubeObject): Promise<void> {
    const name = `pvc-${claim.metadata.uid}`;
    if (await volumes.getKv('', name)) return;
    const node = claim.metadata.annotations?.[annSelectedNode];
    const key = `${claim.metadata.namespace}/${claim.metadata.name}`;
    recorder.event(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${key}"`);
    const claimSpec = specOf(claim);
    const requests = isObject(claimSpec['resources']) && isObject(claimSpec['resources']['requests']) ? claimSpec['resources']['requests'] : {};
    const volume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [annDynamicallyProvisioned]: simulatedProvisioner } },
      spec: {
        accessModes: claimSpec['accessModes'],
        capacity: { storage: requests['storage'] },
        claimRef: claimReference(claim),
        hostPath: { path: `${volumesDir}/${name}_${claim.metadata.namespace}_${claim.metadata.name}`, type: 'DirectoryOrCreate' },
        ...(node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } } : {}),
        persistentVolumeReclaimPolicy: storageClass['reclaimPolicy'] ?? 'Delete',
        storageClassName: storageClass.metadata.name,
        volumeMode: claimSpec['volumeMode'] ?? 'Filesystem',
        ...(Array.isArray(storageClass['mountOptions']) ? { mountOptions: storageClass['mountOptions'] } : {}),
      },
    } as unknown as KubeObject;
    try {
      await volumes.create('', volume);
    } catch (e) {
      if (e instanceof StatusError && e.code === 409) return;
      if (e instanceof StatusError) recorder.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${storageClass.metadata.name}": ${e.message}`);
      throw e;
    }
    recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`);
  }

  const claimQueue = newWorkQueue('simulated-path-provisioner', async (key) => {
    await ensureClass;
    const [namespace = '', name = ''] = key.split('/');
    const kv = await claims.getKv(namespace, name);
    if (!kv) return;
    const claim = claims.decode(kv);
    const storageClass = await shouldProvision(claim);
    if (storageClass) await provision(claim, storageClass);
  });

  /** shouldDelete: our Released volume with reclaimPolicy Delete goes. */
  const volumeQueue = newWorkQueue('simulated-path-provisioner', async (key) => {
    const kv = await volumes.getKv('', key.slice(1));
    if (!kv) return;
    const volume = volumes.decode(kv);
    if (volume.metadata.annotations?.[annDynamicallyProvisioned] !== simulatedProvisioner || volumePhase(volume) !== 'Released' || specOf(volume)['persistentVolumeReclaimPolicy'] !== 'Delete') return;
    try {
      await volumes.delete('', key.slice(1), { preconditions: { uid: volume.metadata.uid! } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  });

  const parts = [watchInto(deps, claimQueue, claims, []), watchInto(deps, volumeQueue, volumes, [])];
  return {
    stop: () => parts.forEach((p) => p.stop()),
    idle: async () => {
      await ensureClass;
      for (const p of parts) await p.idle();
    },
  };
}


/**
 * kube-scheduler's VolumeBinding plugin for simulated nodes. PreFilter: a
 * pod whose claim is missing, being deleted or lost, or whose claim of an
 * Immediate class is still unbound, fits no node (unresolvably). Filter: a
 * bound claim's volume must exist and its node affinity admit the node; an
 * unbound WaitForFirstConsumer claim needs an Available volume the node can
 * reach, or a class whose provisioner can make one there. PreBind: the
 * chosen volume is pointed at the claim, or the claim is given the
 * `volume.kubernetes.io/selected-node` its provisioner waits for; the pod is
 * bound to the node only once every claim is bound (the scheduler's binding
 * cycle waits for that).
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { specOf } from '../controllers/controllerUtils';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import {
  accessModesOf,
  annBoundByController,
  annSelectedNode,
  claimClass,
  claimReference,
  findMatchingVolume,
  isClaimBound,
  isVolumeBoundToClaim,
} from '../controllers/volumeUtil';
import { nodeSelectorMatches } from '../api/nodeAffinity';


/** The VolumeBinding filter's reasons (ConflictReasons). */
export const errReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
export const errReasonNodeConflict = 'node(s) had volume node affinity conflict';
export const errReasonPVNotExist = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
const notSupportedProvisioner = 'kubernetes.io/no-provisioner';

/** The claims a pod's volumes name: persistentVolumeClaim volumes, and generic ephemeral ones (`<pod>-<volume>`). */
export function podClaimNames(pod: KubeObject): { name: string; ephemeral: boolean }[] {
  return objectsOf(specOf(pod)['volumes']).flatMap((v): { name: string; ephemeral: boolean }[] => {
    if (isObject(v['persistentVolumeClaim']) && typeof v['persistentVolumeClaim']['claimName'] === 'string') return [{ name: v['persistentVolumeClaim']['claimName'], ephemeral: false }];
    if (isObject(v['ephemeral'])) return [{ name: `${pod.metadata.name}-${String(v['name'])}`, ephemeral: true }];
    return [];
  });
}

/** What PreFilter learned of a pod's claims, for the filter and PreBind. */
export interface PodVolumeClaims {
  bound: KubeObject[];
  /** Unbound claims of WaitForFirstConsumer classes: the scheduler picks their node. */
  toBind: KubeObject[];
  volumes: KubeObject[];
  classes: Map<string, KubeObject>;
}

/** A decision for one node: a volume for each claim to bind statically, the rest provisioned there. */
export interface PodVolumes {
  staticBindings: { claim: KubeObject; volume: KubeObject }[];
  provisions: KubeObject[];
}

export function newVolumeBinding(deps: NamespaceControllerDeps) {
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const volumeStore = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumes')!);
  const classStore = deps.storeFor(deps.registry.resourceFor('storage.k8s.io', 'v1', 'storageclasses')!);

  /** PreFilter: undefined when the pod names no claim (Skip), a message when it cannot be scheduled anywhere. */
  async function preFilter(pod: KubeObject): Promise<PodVolumeClaims | string | undefined> {
    const names = podClaimNames(pod);
    if (!names.length) return undefined;
    const namespace = pod.metadata.namespace ?? '';
    const found: KubeObject[] = [];
    for (const { name, ephemeral } of names) {
      const kv = await claims.getKv(namespace, name);
      if (!kv) return ephemeral ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"` : `persistentvolumeclaim "${name}" not found`;
      const claim = claims.decode(kv);
      if (isObject(claim['status']) && claim['status']['phase'] === 'Lost') return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${String(specOf(claim)['volumeName'] ?? '')}"`;
      if (claim.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
      // ephemeral.VolumeIsForPod
      if (ephemeral && !claim.metadata.ownerReferences?.some((r) => r.uid === pod.metadata.uid && r.controller)) return `PVC ${namespace}/${name} was not created for pod ${namespace}/${pod.metadata.name} (pod is not owner)`;
      found.push(claim);
    }
    const classes = new Map((await classStore.list('')).items.map((c) => [c.metadata.name!, c]));
    const result: PodVolumeClaims = { bound: [], toBind: [], volumes: [], classes };
    let immediate = false;
    for (const claim of found) {
      if (isClaimBound(claim)) result.bound.push(claim);
      else if (classes.get(claimClass(claim))?.['volumeBindingMode'] === 'WaitForFirstConsumer') result.toBind.push(claim);
      else immediate = true;
    }
    // Unbound Immediate claims wait for the PV controller; a change to them brings the pod back.
    if (immediate) return 'pod has unbound immediate PersistentVolumeClaims';
    result.volumes = (await volumeStore.list('')).items;
    return result;
  }

  /** A volume's required node affinity admits the node (CheckNodeAffinity). */
  const reachable = (volume: KubeObject, node: KubeObject): boolean => {
    const affinity = specOf(volume)['nodeAffinity'];
    const required = isObject(affinity) && isObject(affinity['required']) ? affinity['required'] : undefined;
    return !required || nodeSelectorMatches(objectsOf(required['nodeSelectorTerms']), node);
  };

  /** Filter (FindPodVolumes): the reasons the node cannot serve the pod's claims, or how it would. */
  function filter(state: PodVolumeClaims, node: KubeObject): { reasons: string[] } | PodVolumes {
    const byName = new Map(state.volumes.map((v) => [v.metadata.name!, v]));
    const reasons = new Set<string>();
    for (const claim of state.bound) {
      const volume = byName.get(String(specOf(claim)['volumeName']));
      if (!volume) reasons.add(errReasonPVNotExist);
      else if (!reachable(volume, node)) reasons.add(errReasonNodeConflict);
    }
    const decision: PodVolumes = { staticBindings: [], provisions: [] };
    const chosen = new Set<string>();
    for (const claim of state.toBind) {
      // findMatchingVolumes: Available volumes this node reaches, with the claim's access modes, each taken once.
      const candidates = state.volumes.filter((v) => !chosen.has(v.metadata.name!) && reachable(v, node) && accessModesOf(claim).every((m) => accessModesOf(v).includes(m)));
      const volume = findMatchingVolume(claim, candidates, false);
      if (volume) {
        chosen.add(volume.metadata.name!);
        decision.staticBindings.push({ claim, volume });
        continue;
      }
      // checkVolumeProvisions: the class can provision, on a node its allowedTopologies admit.
      const storageClass = state.classes.get(claimClass(claim));
      const provisioner = String(storageClass?.['provisioner'] ?? '');
      const topologies = objectsOf(storageClass?.['allowedTopologies']);
      const topologyFits = !topologies.length || topologies.some((term) => objectsOf(term['matchLabelExpressions']).every((e) => (Array.isArray(e['values']) ? e['values'] : []).includes(node.metadata.labels?.[String(e['key'])])));
      if (!provisioner || provisioner === notSupportedProvisioner || !topologyFits) reasons.add(errReasonBindConflict);
      else decision.provisions.push(claim);
    }
    return reasons.size ? { reasons: [...reasons] } : decision;
  }

  /** PreBind (BindPodVolumes' API writes): volumes pointed at their claims, claims given the chosen node. */
  async function preBind(decision: PodVolumes, nodeName: string): Promise<void> {
    for (const { claim, volume } of decision.staticBindings) {
      await volumeStore.update('', volume.metadata.name!, (cur) => {
        if (!cur || cur.metadata.resourceVersion !== volume.metadata.resourceVersion) throw conflict();
        if (!isVolumeBoundToClaim(cur, claim)) cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [annBoundByController]: 'yes' };
        specOf(cur)['claimRef'] = claimReference(claim);
        return cur;
      });
    }
    for (const claim of decision.provisions) {
      await claims.update(claim.metadata.namespace!, claim.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== claim.metadata.uid) throw conflict();
        cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [annSelectedNode]: nodeName };
        return cur;
      });
    }
  }

  /** checkBindings: every claim of the pod bound (to a volume the node reaches); undefined while some wait. */
  async function allBound(pod: KubeObject, node: KubeObject | undefined): Promise<boolean | string> {
    for (const { name } of podClaimNames(pod)) {
      const kv = await claims.getKv(pod.metadata.namespace ?? '', name);
      if (!kv) return `persistentvolumeclaim "${name}" not found`;
      const claim = claims.decode(kv);
      if (!isClaimBound(claim)) {
        const selected = claim.metadata.annotations?.[annSelectedNode];
        if (selected !== undefined && node && selected !== node.metadata.name) return `selectedNode annotation value "${selected}" not set to scheduled node "${node.metadata.name}"`;
        return false;
      }
      const volumeKv = await volumeStore.getKv('', String(specOf(claim)['volumeName']));
      if (!volumeKv) return false;
      if (node && !reachable(volumeStore.decode(volumeKv), node)) return `pv "${specOf(claim)['volumeName']}" node affinity doesn't match node "${node.metadata.name}"`;
    }
    return true;
  }

  return { preFilter, filter, preBind, allBound, claims, volumes: volumeStore, classes: classStore };
}

const conflict = () => new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });

export type VolumeBinding = ReturnType<typeof newVolumeBinding>;

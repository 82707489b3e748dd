/**
 * StatefulPodControl (stateful_pod_control.go): the StatefulSet controller's
 * writes of pods and their claims, each reported as the Event 1.32 records on
 * the set: "create Claim www-web-0 Pod web-0 in StatefulSet web success",
 * "create Pod web-0 in StatefulSet web successful", "delete Pod ...", and the
 * Failed* warnings with the error. A pod's claims are created before it.
 */
import type { KubeObject } from '../api/types';
import { isAlreadyExists, newNotFound } from '../errors';
import type { Store } from '../registry/generic/store';
import type { EventRecorder } from './events';
import {
  claimName,
  claimTemplatesOf,
  claimsFor,
  hasUnexpectedController,
  identityMatches,
  isClaimOwnerUpToDate,
  ordinalOf,
  retentionPolicyOf,
  storageMatches,
  updateClaimOwnerRefs,
  updateIdentity,
  updateStorage,
} from './statefulsetUtils';

/** An error already reported by an Event: the set is synced again after a backoff. */
export class StatefulSetSyncError extends Error {}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface StatefulPodControl {
  createStatefulPod(set: KubeObject, pod: KubeObject): Promise<void>;
  updateStatefulPod(set: KubeObject, pod: KubeObject): Promise<void>;
  deleteStatefulPod(set: KubeObject, pod: KubeObject): Promise<void>;
  createMissingPersistentVolumeClaims(set: KubeObject, pod: KubeObject): Promise<void>;
  claimsMatchRetentionPolicy(set: KubeObject, pod: KubeObject): Promise<boolean>;
  updatePodClaimForRetentionPolicy(set: KubeObject, pod: KubeObject): Promise<void>;
  podClaimIsStale(set: KubeObject, pod: KubeObject): Promise<boolean>;
}

export function newStatefulPodControl(pods: Store, claims: Store, recorder: EventRecorder): StatefulPodControl {
  const title = (verb: string) => verb[0]!.toUpperCase() + verb.slice(1);

  function recordPodEvent(verb: string, set: KubeObject, pod: KubeObject, err?: unknown): void {
    if (err === undefined) recorder.event(set, 'Normal', `Successful${title(verb)}`, `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    else recorder.event(set, 'Warning', `Failed${title(verb)}`, `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${errorText(err)}`);
  }

  function recordClaimEvent(verb: string, set: KubeObject, pod: KubeObject, claim: KubeObject, err?: unknown): void {
    if (err === undefined) recorder.event(set, 'Normal', `Successful${title(verb)}`, `${verb} Claim ${claim.metadata.name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`);
    else recorder.event(set, 'Warning', `Failed${title(verb)}`, `${verb} Claim ${claim.metadata.name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${errorText(err)}`);
  }

  async function getClaim(namespace: string, name: string): Promise<KubeObject | undefined> {
    const kv = await claims.getKv(namespace, name);
    return kv ? claims.decode(kv) : undefined;
  }

  /** createPersistentVolumeClaims: each missing claim created; the errors joined as one. */
  async function createPersistentVolumeClaims(set: KubeObject, pod: KubeObject): Promise<void> {
    const errs: string[] = [];
    for (const [, claim] of claimsFor(set, ordinalOf(pod))) {
      const namespace = claim.metadata.namespace!;
      const existing = await getClaim(namespace, claim.metadata.name!);
      if (!existing) {
        try {
          await claims.create(namespace, claim);
          recordClaimEvent('create', set, pod, claim);
        } catch (e) {
          errs.push(`failed to create PVC ${claim.metadata.name}: ${errorText(e)}`);
          if (!isAlreadyExists(e)) recordClaimEvent('create', set, pod, claim, e);
        }
      } else if (existing.metadata.deletionTimestamp) {
        errs.push(`pvc ${claim.metadata.name} is being deleted`);
      }
    }
    if (errs.length) throw new StatefulSetSyncError(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  /** The set's claims of this pod that exist, with their names. */
  async function existingClaims(set: KubeObject, pod: KubeObject): Promise<KubeObject[]> {
    const found: KubeObject[] = [];
    for (const t of claimTemplatesOf(set)) {
      const claim = await getClaim(set.metadata.namespace!, claimName(set, t, ordinalOf(pod)));
      // A missing claim is picked up by a later sync.
      if (claim) found.push(claim);
    }
    return found;
  }

  const control: StatefulPodControl = {
    async createStatefulPod(set, pod) {
      try {
        await createPersistentVolumeClaims(set, pod);
      } catch (e) {
        recordPodEvent('create', set, pod, e);
        throw e;
      }
      let created: KubeObject;
      try {
        created = await pods.create(set.metadata.namespace!, pod);
      } catch (e) {
        // An existing pod of this name is not reported: it shows up in the next sync.
        if (!isAlreadyExists(e)) recordPodEvent('create', set, pod, e);
        throw e;
      }
      try {
        await control.updatePodClaimForRetentionPolicy(set, created);
      } catch (e) {
        recordPodEvent('update', set, pod, e);
        throw e;
      }
      recordPodEvent('create', set, pod);
    },

    async updateStatefulPod(set, pod) {
      try {
        let consistent = identityMatches(set, pod);
        if (!storageMatches(set, pod)) {
          consistent = false;
          await createPersistentVolumeClaims(set, pod);
        }
        if (!(await control.claimsMatchRetentionPolicy(set, pod))) {
          await control.updatePodClaimForRetentionPolicy(set, pod);
          consistent = false;
        }
        if (consistent) return;
        // Fixed on the pod as stored, read again on a conflict (RetryOnConflict).
        await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid) throw newNotFound(pods.gr, pod.metadata.name!);
          if (!identityMatches(set, cur)) updateIdentity(set, cur);
          if (!storageMatches(set, cur)) updateStorage(set, cur);
          return cur;
        });
      } catch (e) {
        recordPodEvent('update', set, pod, e);
        throw e;
      }
      recordPodEvent('update', set, pod);
    },

    async deleteStatefulPod(set, pod) {
      try {
        await pods.delete(pod.metadata.namespace!, pod.metadata.name!);
      } catch (e) {
        recordPodEvent('delete', set, pod, e);
        throw e;
      }
      recordPodEvent('delete', set, pod);
    },

    async createMissingPersistentVolumeClaims(set, pod) {
      try {
        await createPersistentVolumeClaims(set, pod);
      } catch (e) {
        throw new StatefulSetSyncError(`failed to create missing PVCs for pod ${pod.metadata.name}: ${errorText(e)}`);
      }
    },

    async claimsMatchRetentionPolicy(set, pod) {
      for (const claim of await existingClaims(set, pod)) if (!isClaimOwnerUpToDate(claim, set, pod)) return false;
      return true;
    },

    async updatePodClaimForRetentionPolicy(set, pod) {
      for (const claim of await existingClaims(set, pod)) {
        if (hasUnexpectedController(claim, set, pod)) {
          recorder.event(set, 'Warning', 'ConflictingController', `PersistentVolumeClaim ${claim.metadata.name} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`);
        }
        if (isClaimOwnerUpToDate(claim, set, pod)) continue;
        try {
          await claims.update(claim.metadata.namespace!, claim.metadata.name!, (cur) => {
            if (!cur || cur.metadata.uid !== claim.metadata.uid) throw newNotFound(claims.gr, claim.metadata.name!);
            updateClaimOwnerRefs(cur, set, pod);
            return cur;
          });
        } catch (e) {
          throw new StatefulSetSyncError(`could not update claim ${claim.metadata.name} for delete policy ownerRefs: ${errorText(e)}`);
        }
      }
    },

    async podClaimIsStale(set, pod) {
      // Claims kept on scale-down are meant to be reused.
      if (retentionPolicyOf(set).whenScaled !== 'Delete') return false;
      for (const claim of await existingClaims(set, pod)) {
        // A claim still owned by an earlier pod of this name (or by any pod, for one not created yet) is stale.
        if ((claim.metadata.ownerReferences ?? []).some((r) => r.kind === 'Pod' && r.apiVersion === 'v1' && r.name === pod.metadata.name && r.uid !== pod.metadata.uid)) return true;
      }
      return false;
    },
  };
  return control;
}

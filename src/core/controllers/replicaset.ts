/**
 * The ReplicaSet controller (pkg/controller/replicaset): keeps as many
 * active pods as spec.replicas, created from spec.template with the
 * ReplicaSet as their controller, adopts matching orphans and releases
 * pods whose labels stop matching (ClaimPods), and reports
 * replicas, readyReplicas and availableReplicas in status.
 *
 * kubesim has no scheduler or kubelet: the pods it creates stay Pending and
 * unbound (so scaling down removes them at once) and count as ready only when
 * someone writes a Ready condition into their status.
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import {
  controllerKeyOf,
  controllerRefOf,
  isPodActive,
  isPodAvailable,
  isPodReady,
  labelsInclude,
  newControllerRef,
  specOf,
  statusOf,
} from './controllerUtils';
import type { StorageEvent } from '../storage/interface';
import type { NamespaceControllerDeps } from './namespace';
import { watchInto, type RunningController } from './informer';
import { newWorkQueue } from './workqueue';

/** At most this many pods are created or deleted in one sync (burstReplicas). */
const burstReplicas = 500;

const ignoreGone = (e: unknown) => {
  // Deleted, changed or refused meanwhile (a terminating namespace): the next event brings the work back.
  if (e instanceof StatusError && (e.code === 404 || e.code === 409 || e.code === 403)) return;
  throw e;
};

/** Deletion order (controller.ActivePodsWithRanks): unbound, pending, not ready, then the newest first. */
function deletionRank(pod: KubeObject): number[] {
  const phase = statusOf(pod)['phase'];
  return [
    specOf(pod)['nodeName'] ? 1 : 0,
    phase === 'Pending' ? 0 : phase === 'Unknown' ? 1 : 2,
    isPodReady(pod) ? 1 : 0,
    -Date.parse(pod.metadata.creationTimestamp ?? '') || 0,
  ];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export function startReplicaSetController(deps: NamespaceControllerDeps): RunningController {
  const replicaSets = deps.storeFor(deps.registry.resourceFor('apps', 'v1', 'replicasets')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);

  async function podsOf(rs: KubeObject, selector: { matches(l: Record<string, string> | undefined): boolean }): Promise<KubeObject[]> {
    const namespace = rs.metadata.namespace!;
    const listed = await pods.list(namespace);
    const owned: KubeObject[] = [];
    for (const pod of listed.items) {
      const ref = controllerRefOf(pod);
      if (ref) {
        if (ref.uid !== rs.metadata.uid) continue;
        if (selector.matches(pod.metadata.labels) || rs.metadata.deletionTimestamp) {
          owned.push(pod);
          continue;
        }
        // Release: a pod whose labels stopped matching is no longer this ReplicaSet's.
        try {
          await pods.update(namespace, pod.metadata.name!, (cur) => {
            if (!cur || cur.metadata.uid !== pod.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
            const refs = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== rs.metadata.uid);
            if (refs.length) cur.metadata.ownerReferences = refs;
            else delete cur.metadata.ownerReferences;
            return cur;
          });
        } catch (e) {
          ignoreGone(e);
        }
        continue;
      }
      // Adoption (ClaimPods): an orphan whose labels match becomes this ReplicaSet's, unless either is being deleted.
      if (rs.metadata.deletionTimestamp || pod.metadata.deletionTimestamp || !isPodActive(pod) || !selector.matches(pod.metadata.labels)) continue;
      try {
        const { object } = await pods.update(namespace, pod.metadata.name!, (cur) => {
          if (!cur || controllerRefOf(cur) || cur.metadata.uid !== pod.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'claimed elsewhere' });
          cur.metadata.ownerReferences = [...(cur.metadata.ownerReferences ?? []), newControllerRef(rs)];
          return cur;
        });
        owned.push(object);
      } catch (e) {
        ignoreGone(e);
      }
    }
    return owned;
  }

  async function manage(rs: KubeObject, active: KubeObject[]): Promise<void> {
    const namespace = rs.metadata.namespace!;
    const want = Number(specOf(rs)['replicas'] ?? 1);
    const diff = want - active.length;
    const template = isObject(specOf(rs)['template']) ? (specOf(rs)['template'] as Record<string, unknown>) : {};
    const tmeta = isObject(template['metadata']) ? (template['metadata'] as KubeObject['metadata']) : {};
    if (diff > 0) {
      for (let i = 0; i < Math.min(diff, burstReplicas); i++) {
        const pod: KubeObject = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            generateName: `${rs.metadata.name}-`,
            ...(tmeta.labels ? { labels: { ...tmeta.labels } } : {}),
            ...(tmeta.annotations ? { annotations: { ...tmeta.annotations } } : {}),
            ...(tmeta.finalizers ? { finalizers: [...tmeta.finalizers] } : {}),
            ownerReferences: [newControllerRef(rs)],
          },
          spec: structuredClone(template['spec'] ?? {}),
        };
        try {
          await pods.create(namespace, pod);
        } catch (e) {
          ignoreGone(e);
          return;
        }
      }
    } else if (diff < 0) {
      const doomed = [...active].sort((a, b) => compareRanks(deletionRank(a), deletionRank(b))).slice(0, Math.min(-diff, burstReplicas));
      for (const pod of doomed) {
        try {
          await pods.delete(namespace, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
        } catch (e) {
          ignoreGone(e);
        }
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // An orphan pod changed (`namespace/`): every ReplicaSet of its namespace looks whether to adopt it.
    if (!name) {
      for (const rs of (await replicaSets.list(namespace)).items) queue.add(`${namespace}/${rs.metadata.name}`);
      return;
    }
    const kv = await replicaSets.getKv(namespace, name);
    if (!kv) return;
    const rs = replicaSets.decode(kv);
    const selector = labelSelectorFromObject(specOf(rs)['selector'] as LabelSelectorObject | undefined);
    if (isSelectorError(selector)) return;
    let active = (await podsOf(rs, selector)).filter(isPodActive);
    if (!rs.metadata.deletionTimestamp) {
      await manage(rs, active);
      active = (await podsOf(rs, selector)).filter(isPodActive);
    }
    const tlabels = (isObject(specOf(rs)['template']) && isObject((specOf(rs)['template'] as Record<string, unknown>)['metadata'])
      ? ((specOf(rs)['template'] as { metadata: KubeObject['metadata'] }).metadata.labels)
      : undefined);
    const minReadySeconds = Number(specOf(rs)['minReadySeconds'] ?? 0);
    const now = deps.clock.now();
    const status: Record<string, unknown> = { replicas: active.length };
    const fully = active.filter((p) => labelsInclude(p.metadata.labels, tlabels)).length;
    const ready = active.filter(isPodReady).length;
    const available = active.filter((p) => isPodAvailable(p, minReadySeconds, now)).length;
    if (fully) status['fullyLabeledReplicas'] = fully;
    if (ready) status['readyReplicas'] = ready;
    if (available) status['availableReplicas'] = available;
    if (rs.metadata.generation) status['observedGeneration'] = rs.metadata.generation;
    const conditions = statusOf(rs)['conditions'];
    if (Array.isArray(conditions) && conditions.length) status['conditions'] = conditions;
    try {
      await replicaSets.update(namespace, name, (cur) => {
        if (!cur || cur.metadata.uid !== rs.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
        cur['status'] = status;
        return cur;
      }, { subresource: 'status' });
    } catch (e) {
      ignoreGone(e);
    }
    // A pod that turns available after minReadySeconds changes nothing in storage: look again then.
    if (minReadySeconds > 0 && ready > available) {
      void deps.clock.sleep(minReadySeconds * 1000, stopped.signal).then(() => queue.add(key));
    }
  }

  const stopped = new AbortController();
  const queue = newWorkQueue('replicaset-controller', sync);
  /** The namespace key of an orphan pod with labels, which some ReplicaSet may adopt. */
  const orphanKey = (e: StorageEvent): string | undefined => {
    if (e.type !== 'PUT' || e.kv.value.includes('"ownerReferences"') || !e.kv.value.includes('"labels"')) return undefined;
    const namespace = e.kv.key.slice(pods.prefix.length).split('/')[0];
    return `${namespace}/`;
  };
  const running = watchInto(deps, queue, replicaSets, [{ store: pods, keysFor: (e) => [controllerKeyOf(e.kv, 'ReplicaSet'), controllerKeyOf(e.prevKv, 'ReplicaSet'), orphanKey(e)] }]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}

/**
 * The Deployment controller (pkg/controller/deployment): one ReplicaSet per
 * pod template, named `<deployment>-<pod-template-hash>`, carrying the
 * `deployment.kubernetes.io/revision` annotation; RollingUpdate moves
 * replicas from the old ReplicaSets to the new one within maxSurge and
 * maxUnavailable, Recreate scales the old ones to zero first; status and the
 * Available and Progressing conditions are what `kubectl rollout status`
 * reads, including ProgressDeadlineExceeded once progressDeadlineSeconds pass
 * on the server clock without progress.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/equality';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import { controllerKeyOf, controllerRefOf, newControllerRef, scaledValue, specOf, statusOf, objectGone } from './controllerUtils';
import { newEventRecorder } from './events';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

export const podTemplateHashLabel = 'pod-template-hash';
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
/** The revisions a rolled-back-to ReplicaSet had before (comma-separated). */
const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
/** maxRevHistoryLengthInChars in the controller's sync: the history annotation stays within it. */
const revisionHistoryLimitInChars = 2000;
/** annotationsToSkip: the Deployment's annotations a ReplicaSet does not copy (the controller's own, and kubectl apply's). */
const annotationsNotCopied = new Set(['kubectl.kubernetes.io/last-applied-configuration', revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation, 'deprecated.deployment.rollback.to']);

type Obj = Record<string, unknown>;
interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** rand.SafeEncodeString: digits mapped onto letters that spell no words. */
export function safeEncode(s: string): string {
  const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
  return [...s].map((c) => alphanums[c.charCodeAt(0) % alphanums.length]).join('');
}

/** JSON with sorted keys, so equal templates hash equally. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** controller.ComputeHash: FNV-32a of the template (and the collision count), safely encoded. */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const text = stableJson(template) + (collisionCount ? String(collisionCount) : '');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return safeEncode(String(h));
}

const templateOf = (obj: KubeObject): Obj => (isObject(specOf(obj)['template']) ? (specOf(obj)['template'] as Obj) : {});

/** EqualIgnoreHash: the templates match once the pod-template-hash label is dropped. */
function equalIgnoreHash(a: Obj, b: Obj): boolean {
  const strip = (t: Obj): Obj => {
    const c = structuredClone(t);
    const meta = isObject(c['metadata']) ? c['metadata'] : {};
    if (isObject(meta['labels'])) {
      delete meta['labels'][podTemplateHashLabel];
      if (!Object.keys(meta['labels']).length) delete meta['labels'];
    }
    c['metadata'] = meta;
    return c;
  };
  return jsonEqual(strip(a), strip(b));
}

const replicasOf = (obj: KubeObject): number => Number(specOf(obj)['replicas'] ?? 1);
const statusNumber = (obj: KubeObject, field: string): number => Number(statusOf(obj)[field] ?? 0);
const revisionOf = (rs: KubeObject): number => Number(rs.metadata.annotations?.[revisionAnnotation] ?? 0) || 0;

/**
 * deploymentutil.SetNewReplicaSetAnnotations on annotations (changed in place): the Deployment's own
 * annotations copied over (kubernetes.io/change-cause among them, which `kubectl rollout history`
 * lists), the revision raised to newRevision when lower, and a ReplicaSet rolled back to (it had a
 * revision) keeps the ones it had in revision-history. Returns whether anything changed.
 */
function setNewReplicaSetAnnotations(d: KubeObject, annotations: Record<string, string>, newRevision: number): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (annotationsNotCopied.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const oldRevision = annotations[revisionAnnotation];
  const old = Number(oldRevision ?? 0) || 0;
  if (old >= newRevision) return changed;
  annotations[revisionAnnotation] = String(newRevision);
  if (oldRevision !== undefined) {
    const history = annotations[revisionHistoryAnnotation] ?? '';
    if (!history) annotations[revisionHistoryAnnotation] = oldRevision;
    else {
      // The oldest revisions give way once the history would pass its limit.
      const kept = history.split(',');
      let length = history.length + oldRevision.length + 1;
      while (length > revisionHistoryLimitInChars && kept.length) length -= kept.shift()!.length + 1;
      if (length <= revisionHistoryLimitInChars) annotations[revisionHistoryAnnotation] = [...kept, oldRevision].join(',');
    }
  }
  return true;
}

/** maxSurge and maxUnavailable resolved against spec.replicas (deploymentutil.ResolveFenceposts). */
function fenceposts(d: KubeObject): { surge: number; unavailable: number } {
  const strategy = isObject(specOf(d)['strategy']) ? (specOf(d)['strategy'] as Obj) : {};
  if (strategy['type'] === 'Recreate') return { surge: 0, unavailable: 0 };
  const ru = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  const replicas = replicasOf(d);
  const surge = scaledValue(ru['maxSurge'] ?? '25%', replicas, true);
  let unavailable = scaledValue(ru['maxUnavailable'] ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable: Math.min(unavailable, replicas) };
}

export function startDeploymentController(deps: NamespaceControllerDeps): RunningController {
  const deployments = deps.storeFor(deps.registry.resourceFor('apps', 'v1', 'deployments')!);
  const replicaSets = deps.storeFor(deps.registry.resourceFor('apps', 'v1', 'replicasets')!);
  const recorder = newEventRecorder(deps, 'deployment-controller');
  const stopped = new AbortController();
  /** Deadlines already scheduled, so each is slept on once. */
  const deadlines = new Set<string>();

  const now = () => formatTime(deps.clock.now());
  const newCondition = (type: string, status: Condition['status'], reason: string, message: string): Condition => ({ type, status, lastUpdateTime: now(), lastTransitionTime: now(), reason, message });

  /** deploymentutil.SetDeploymentCondition: same status and reason change nothing; the changed condition goes last. */
  function setCondition(conditions: Condition[], c: Condition): Condition[] {
    const current = conditions.find((x) => x.type === c.type);
    if (current && current.status === c.status && current.reason === c.reason) return conditions;
    if (current && current.status === c.status) c.lastTransitionTime = current.lastTransitionTime;
    return [...conditions.filter((x) => x.type !== c.type), c];
  }

  async function scaleReplicaSet(rs: KubeObject, replicas: number, d: KubeObject): Promise<KubeObject> {
    const { surge } = fenceposts(d);
    let from = replicasOf(rs);
    const { object } = await replicaSets.update(rs.metadata.namespace!, rs.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== rs.metadata.uid) throw objectGone();
      from = replicasOf(cur);
      (cur['spec'] as Obj)['replicas'] = replicas;
      cur.metadata.annotations = { ...cur.metadata.annotations, [desiredReplicasAnnotation]: String(replicasOf(d)), [maxReplicasAnnotation]: String(replicasOf(d) + surge) };
      return cur;
    });
    if (from !== replicas) scaledEvent(d, object, from, replicas);
    return object;
  }

  /** The ScalingReplicaSet event kubectl describe deployment lists. */
  function scaledEvent(d: KubeObject, rs: KubeObject, from: number, to: number): void {
    recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`);
  }

  async function ownedReplicaSets(d: KubeObject): Promise<KubeObject[]> {
    const listed = await replicaSets.list(d.metadata.namespace!);
    return listed.items.filter((rs) => controllerRefOf(rs)?.uid === d.metadata.uid);
  }

  /** getNewReplicaSet: finds the ReplicaSet of the current template or creates it. */
  async function newReplicaSet(d: KubeObject, owned: KubeObject[], conditions: Condition[]): Promise<{ rs: KubeObject; conditions: Condition[] }> {
    const template = templateOf(d);
    const existing = owned.find((rs) => equalIgnoreHash(templateOf(rs), template));
    const revision = Math.max(0, ...owned.filter((rs) => rs !== existing).map(revisionOf)) + 1;
    if (existing) {
      let rs = existing;
      if (setNewReplicaSetAnnotations(d, { ...existing.metadata.annotations }, revision)) {
        ({ object: rs } = await replicaSets.update(existing.metadata.namespace!, existing.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== existing.metadata.uid) throw objectGone();
          const annotations = { ...cur.metadata.annotations };
          setNewReplicaSetAnnotations(d, annotations, revision);
          cur.metadata.annotations = annotations;
          return cur;
        }));
      }
      if (!conditions.some((c) => c.type === 'Progressing')) conditions = setCondition(conditions, newCondition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${rs.metadata.name}"`));
      return { rs, conditions };
    }
    const hash = computeHash(template, Number(statusOf(d)['collisionCount'] ?? 0));
    const tmeta = isObject(template['metadata']) ? (template['metadata'] as KubeObject['metadata']) : {};
    const labels = { ...tmeta.labels, [podTemplateHashLabel]: hash };
    const selector = structuredClone((specOf(d)['selector'] ?? {}) as LabelSelectorObject);
    selector.matchLabels = { ...selector.matchLabels, [podTemplateHashLabel]: hash };
    const annotations: Record<string, string> = {};
    setNewReplicaSetAnnotations(d, annotations, revision);
    const { surge } = fenceposts(d);
    Object.assign(annotations, { [desiredReplicasAnnotation]: String(replicasOf(d)), [maxReplicasAnnotation]: String(replicasOf(d) + surge) });
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `${d.metadata.name}-${hash}`, labels, annotations, ownerReferences: [newControllerRef(d)] },
      spec: {
        replicas: newReplicaSetReplicas(d, owned, undefined),
        minReadySeconds: Number(specOf(d)['minReadySeconds'] ?? 0),
        selector,
        template: { ...structuredClone(template), metadata: { ...structuredClone(tmeta), labels } },
      },
    };
    const created = await replicaSets.create(d.metadata.namespace!, rs);
    const scale = replicasOf(created);
    if (scale > 0) scaledEvent(d, created, 0, scale);
    conditions = setCondition(conditions, newCondition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata.name}"`));
    return { rs: created, conditions };
  }

  /** deploymentutil.NewRSNewReplicas. */
  function newReplicaSetReplicas(d: KubeObject, all: KubeObject[], newRs: KubeObject | undefined): number {
    const want = replicasOf(d);
    const current = newRs ? replicasOf(newRs) : 0;
    const strategy = isObject(specOf(d)['strategy']) ? (specOf(d)['strategy'] as Obj) : {};
    if (strategy['type'] === 'Recreate') return want;
    const total = all.reduce((n, rs) => n + replicasOf(rs), 0);
    const maxTotal = want + fenceposts(d).surge;
    if (total >= maxTotal) return current;
    return current + Math.max(0, Math.min(maxTotal - total, want - current));
  }

  /** rolloutRolling: scale the new ReplicaSet up and the old ones down within the fenceposts. */
  async function rolloutRolling(d: KubeObject, newRs: KubeObject, old: KubeObject[]): Promise<void> {
    const want = replicasOf(d);
    const activeOld = old.filter((rs) => replicasOf(rs) > 0);
    // A scaling event with nothing left to roll: the new ReplicaSet simply takes the new size.
    if (!activeOld.length) {
      if (replicasOf(newRs) !== want) await scaleReplicaSet(newRs, want, d);
      return;
    }
    const target = newReplicaSetReplicas(d, [newRs, ...old], newRs);
    if (target !== replicasOf(newRs)) newRs = await scaleReplicaSet(newRs, target, d);
    // reconcileOldReplicaSets: never below minAvailable, counting the new ReplicaSet's unavailable pods.
    const all = [newRs, ...old];
    const allPods = all.reduce((n, rs) => n + replicasOf(rs), 0);
    const minAvailable = want - fenceposts(d).unavailable;
    const newUnavailable = replicasOf(newRs) - statusNumber(newRs, 'availableReplicas');
    let budget = allPods - minAvailable - newUnavailable;
    if (budget <= 0) return;
    const oldestFirst = [...activeOld].sort((a, b) => Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? ''));
    // cleanupUnhealthyReplicas first, then scaleDownOldReplicaSetsForRollingUpdate by available pods.
    for (const rs of oldestFirst) {
      if (budget <= 0) return;
      const unhealthy = replicasOf(rs) - statusNumber(rs, 'availableReplicas');
      const cut = Math.min(budget, unhealthy);
      if (cut > 0) {
        await scaleReplicaSet(rs, replicasOf(rs) - cut, d);
        rs['spec'] = { ...specOf(rs), replicas: replicasOf(rs) - cut };
        budget -= cut;
      }
    }
    let available = all.reduce((n, rs) => n + statusNumber(rs, 'availableReplicas'), 0);
    for (const rs of oldestFirst) {
      if (available <= minAvailable) return;
      const cut = Math.min(replicasOf(rs), available - minAvailable);
      if (cut > 0) {
        await scaleReplicaSet(rs, replicasOf(rs) - cut, d);
        available -= cut;
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await deployments.getKv(namespace, name);
    if (!kv) return;
    const d = deployments.decode(kv);
    const selector = labelSelectorFromObject(specOf(d)['selector'] as LabelSelectorObject | undefined);
    if (isSelectorError(selector) || selector.empty()) return;
    let owned = await ownedReplicaSets(d);
    let conditions = (Array.isArray(statusOf(d)['conditions']) ? statusOf(d)['conditions'] : []) as Condition[];
    let newRs: KubeObject | undefined = owned.find((rs) => equalIgnoreHash(templateOf(rs), templateOf(d)));
    const paused = specOf(d)['paused'] === true;
    // checkPausedConditions: pausing and resuming show in Progressing, unless the deadline already passed.
    const progressing = conditions.find((c) => c.type === 'Progressing');
    if (progressing?.reason !== 'ProgressDeadlineExceeded') {
      if (paused && progressing?.reason !== 'DeploymentPaused') conditions = setCondition(conditions, newCondition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'));
      if (!paused && progressing?.reason === 'DeploymentPaused') conditions = setCondition(conditions, newCondition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed'));
    }
    if (paused && !d.metadata.deletionTimestamp) {
      // A paused Deployment still scales (dc.sync): a lone active ReplicaSet takes the new size; no new ReplicaSet is made.
      const active = owned.filter((rs) => replicasOf(rs) > 0);
      const only = active.length === 1 ? active[0] : !active.length ? newRs : undefined;
      if (only && replicasOf(only) !== replicasOf(d)) await scaleReplicaSet(only, replicasOf(d), d);
      owned = await ownedReplicaSets(d);
      newRs = newRs && owned.find((rs) => rs.metadata.uid === newRs!.metadata.uid);
    }
    if (!d.metadata.deletionTimestamp && !paused) {
      ({ rs: newRs, conditions } = await newReplicaSet(d, owned, conditions));
      const old = owned.filter((rs) => rs.metadata.uid !== newRs!.metadata.uid);
      const strategy = isObject(specOf(d)['strategy']) ? (specOf(d)['strategy'] as Obj) : {};
      if (strategy['type'] === 'Recreate') {
        for (const rs of old) if (replicasOf(rs) > 0) await scaleReplicaSet(rs, 0, d);
        const oldPods = old.reduce((n, rs) => n + statusNumber(rs, 'replicas'), 0);
        if (oldPods === 0 && replicasOf(newRs) !== replicasOf(d)) await scaleReplicaSet(newRs, replicasOf(d), d);
      } else {
        await rolloutRolling(d, newRs, old);
      }
      if (d.metadata.annotations?.[revisionAnnotation] !== newRs.metadata.annotations?.[revisionAnnotation]) {
        await deployments.update(namespace, name, (cur) => {
          if (!cur || cur.metadata.uid !== d.metadata.uid) throw objectGone();
          cur.metadata.annotations = { ...cur.metadata.annotations, [revisionAnnotation]: newRs!.metadata.annotations![revisionAnnotation]! };
          return cur;
        });
      }
      owned = await ownedReplicaSets(d);
      newRs = owned.find((rs) => rs.metadata.uid === newRs!.metadata.uid);
    }
    await writeStatus(d, owned, newRs, conditions, key);
  }

  /** calculateStatus and syncRolloutStatus. */
  async function writeStatus(d: KubeObject, owned: KubeObject[], newRs: KubeObject | undefined, conditions: Condition[], key: string): Promise<void> {
    const want = replicasOf(d);
    const sum = (f: string) => owned.reduce((n, rs) => n + statusNumber(rs, f), 0);
    const status: Obj = {
      observedGeneration: d.metadata.generation ?? 1,
      replicas: sum('replicas'),
      updatedReplicas: newRs ? statusNumber(newRs, 'replicas') : 0,
      readyReplicas: sum('readyReplicas'),
      availableReplicas: sum('availableReplicas'),
      unavailableReplicas: Math.max(0, want - sum('availableReplicas')),
    };
    for (const f of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) if (status[f] === 0) delete status[f];
    if (statusOf(d)['collisionCount'] !== undefined) status['collisionCount'] = statusOf(d)['collisionCount'];
    const n = (o: Obj, f: string) => Number(o[f] ?? 0);
    const available = n(status, 'availableReplicas') >= want - fenceposts(d).unavailable;
    conditions = setCondition(conditions, available
      ? newCondition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
      : newCondition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'));

    const deadline = specOf(d)['progressDeadlineSeconds'];
    const progressing = conditions.find((c) => c.type === 'Progressing');
    const complete = n(status, 'replicas') === n(status, 'updatedReplicas') && progressing?.reason === 'NewReplicaSetAvailable';
    if (typeof deadline === 'number' && deadline < 2147483647 && !complete && !d.metadata.deletionTimestamp && specOf(d)['paused'] !== true) {
      const old = statusOf(d);
      const rsName = newRs ? `ReplicaSet "${newRs.metadata.name}"` : `Deployment "${d.metadata.name}"`;
      if (n(status, 'updatedReplicas') === want && n(status, 'replicas') === want && n(status, 'availableReplicas') === want) {
        conditions = setCondition(conditions, newCondition('Progressing', 'True', 'NewReplicaSetAvailable', `${rsName} has successfully progressed.`));
      } else if (n(status, 'updatedReplicas') > n(old, 'updatedReplicas') || n(status, 'replicas') - n(status, 'updatedReplicas') < n(old, 'replicas') - n(old, 'updatedReplicas') || n(status, 'readyReplicas') > n(old, 'readyReplicas') || n(status, 'availableReplicas') > n(old, 'availableReplicas')) {
        // Progress refreshes lastUpdateTime even when the reason stays ReplicaSetUpdated.
        const c = newCondition('Progressing', 'True', 'ReplicaSetUpdated', `${rsName} is progressing.`);
        if (progressing?.status === 'True') c.lastTransitionTime = progressing.lastTransitionTime;
        conditions = [...conditions.filter((x) => x.type !== 'Progressing'), c];
      } else if (progressing) {
        const due = Date.parse(progressing.lastUpdateTime) + deadline * 1000;
        if (progressing.reason !== 'ProgressDeadlineExceeded' && due < deps.clock.now().getTime()) {
          conditions = setCondition(conditions, newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', `${rsName} has timed out progressing.`));
        } else if (progressing.reason !== 'ProgressDeadlineExceeded') {
          // requeueStuckDeployment: look again when the deadline passes.
          const mark = `${key}@${due}`;
          if (!deadlines.has(mark)) {
            deadlines.add(mark);
            void deps.clock.sleep(due - deps.clock.now().getTime() + 1000, stopped.signal).then(() => {
              deadlines.delete(mark);
              queue.add(key);
            });
          }
        }
      }
    }
    // getReplicaFailures: a ReplicaSet's ReplicaFailure (the new one's first) shows on the Deployment, with its times.
    const failureOf = (rs: KubeObject): Condition | undefined => {
      const cs = statusOf(rs)['conditions'];
      return Array.isArray(cs) ? (cs as Condition[]).find((c) => c.type === 'ReplicaFailure') : undefined;
    };
    const failure = (newRs && failureOf(newRs)) || owned.map(failureOf).find((c) => c !== undefined);
    if (failure) conditions = setCondition(conditions, { type: 'ReplicaFailure', status: failure.status, lastUpdateTime: failure.lastTransitionTime, lastTransitionTime: failure.lastTransitionTime, reason: failure.reason, message: failure.message });
    else conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
    if (conditions.length) status['conditions'] = conditions;
    if (jsonEqual(status, statusOf(d))) return;
    await deployments.update(d.metadata.namespace!, d.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== d.metadata.uid) throw objectGone();
      cur['status'] = status;
      return cur;
    }, { subresource: 'status' });
  }

  const queue = newWorkQueue('deployment-controller', async (key) => {
    try {
      await sync(key);
    } catch (e) {
      // Gone, or changed underneath (the next event syncs again), or refused in a terminating namespace.
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409 || e.code === 403))) throw e;
    }
  });
  const running = watchInto(deps, queue, deployments, [{ store: replicaSets, keysFor: (e) => [controllerKeyOf(e.kv, 'Deployment'), controllerKeyOf(e.prevKv, 'Deployment')] }]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}


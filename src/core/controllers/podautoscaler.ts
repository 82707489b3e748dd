/**
 * The horizontal pod autoscaler (kube-controller-manager's
 * `horizontal-pod-autoscaling`, pkg/controller/podautoscaler/horizontal.go)
 * for autoscaling/v2 Resource metrics (cpu, memory; Utilization and
 * AverageValue targets). Each HPA is looked at every 15s of server time
 * (--horizontal-pod-autoscaler-sync-period; an added or changed HPA waits
 * that long too, as kube's rate-limited queue makes it): it reads the
 * target's scale (spec.replicas, status.selector), the selected pods' usage
 * from the simulated metrics, computes the replica count
 * (podautoscalerReplicas.ts), stabilizes it and limits its rate (no
 * behavior: the 5 minute downscale window and at most max(2x, 4) up;
 * with spec.behavior: its stabilization windows and policies), writes the
 * target's /scale and the HPA's status with kube's conditions, reasons,
 * messages and events.
 *
 * On by default only with simulated nodes: without them no pod has metrics.
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { formatQuantity, parseQuantity, quantityMilliValue } from '../api/quantity';
import { StatusError } from '../errors';
import { scaleOf } from '../http/handlers/scale';
import { isSelectorError, parseLabelSelector } from '../selectors';
import { podUsage } from '../simulation/metrics';
import { isSimulatedNode } from '../simulation/nodes';
import { objectGone, specOf, statusOf } from './controllerUtils';
import { newEventRecorder } from './events';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';
import { ReplicaCalculationError, resourceReplicas, type PodMetricsInfo } from './podautoscalerReplicas';
import { defaultScaleDownRules, defaultScaleUpRules } from '../registry/autoscaling';

type Obj = Record<string, unknown>;

/** --horizontal-pod-autoscaler-sync-period */
export const hpaSyncPeriodMs = 15_000;
/** --horizontal-pod-autoscaler-downscale-stabilization */
const downscaleStabilizationMs = 300_000;
/** The metrics window metrics-server reports. */
const metricWindowMs = 20_000;

interface Recommendation {
  replicas: number;
  atMs: number;
}
interface ScaleEvent {
  change: number;
  atMs: number;
  outdated: boolean;
}

/** setConditionInList: the condition's transition time moves only when its status does. */
function setCondition(status: Obj, type: string, value: 'True' | 'False', reason: string, message: string, now: string): void {
  const conditions = objectsOf(status['conditions']);
  let c = conditions.find((x) => x['type'] === type);
  if (!c) conditions.push((c = { type }));
  if (c['status'] !== value) c['lastTransitionTime'] = now;
  Object.assign(c, { status: value, reason, message });
  // Keep the key order kube writes: type, status, lastTransitionTime, reason, message.
  const ordered = { type, status: value, lastTransitionTime: c['lastTransitionTime'], reason, message };
  conditions[conditions.indexOf(c)] = ordered;
  status['conditions'] = conditions;
}

const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * One direction's scaling rules. The v2 store already filled a given behavior with the API defaults
 * (GenerateHPAScaleUpRules / ...DownRules) when it decoded the HPA; the same defaults stand in for a
 * direction that is absent, and the scale-down window left unset is the controller's flag.
 */
interface ScalingRules {
  stabilizationWindowSeconds: number;
  selectPolicy: string;
  policies: { type: string; value: number; periodSeconds: number }[];
}
function rulesOf(behavior: Obj, direction: 'scaleUp' | 'scaleDown'): ScalingRules {
  const up = direction === 'scaleUp';
  const defaults: Obj = up ? defaultScaleUpRules() : defaultScaleDownRules();
  const rules = isObject(behavior[direction]) ? behavior[direction] : defaults;
  const policies = objectsOf(rules['policies']);
  return {
    stabilizationWindowSeconds: int(rules['stabilizationWindowSeconds'], up ? 0 : downscaleStabilizationMs / 1000),
    selectPolicy: typeof rules['selectPolicy'] === 'string' ? rules['selectPolicy'] : String(defaults['selectPolicy']),
    policies: (policies.length ? policies : objectsOf(defaults['policies'])).map((p) => ({ type: String(p['type']), value: int(p['value'], 0), periodSeconds: int(p['periodSeconds'], 15) })),
  };
}

/** getReplicasChangePerPeriod */
const changeInPeriod = (periodSeconds: number, events: readonly ScaleEvent[], nowMs: number) =>
  events.filter((e) => e.atMs > nowMs - periodSeconds * 1000 && !e.outdated).reduce((sum, e) => sum + e.change, 0);

/** calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors */
function scaleLimit(up: boolean, current: number, upEvents: readonly ScaleEvent[], downEvents: readonly ScaleEvent[], rules: ScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // For scale up Max picks the largest proposal; for scale down Max picks the largest change, the smallest count.
  const pickLarger = (rules.selectPolicy === 'Min') !== up;
  let result = pickLarger ? -Infinity : Infinity;
  for (const p of rules.policies) {
    const periodStart = current - changeInPeriod(p.periodSeconds, upEvents, nowMs) + changeInPeriod(p.periodSeconds, downEvents, nowMs);
    let proposed: number;
    if (up) proposed = p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100));
    else proposed = p.type === 'Pods' ? periodStart - p.value : Math.trunc(periodStart * (1 - p.value / 100));
    result = pickLarger ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

export function startHorizontalPodAutoscalerController(deps: NamespaceControllerDeps): RunningController {
  const hpaType = deps.registry.resourceFor('autoscaling', 'v2', 'horizontalpodautoscalers');
  if (!hpaType) return { stop() {}, idle: async () => {} };
  const hpas = deps.storeFor(hpaType);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const recorder = newEventRecorder(deps, 'horizontal-pod-autoscaler');
  const stopped = new AbortController();
  const recommendations = new Map<string, Recommendation[]>();
  const upEvents = new Map<string, ScaleEvent[]>();
  const downEvents = new Map<string, ScaleEvent[]>();
  /** HPAs waiting out their sync period: an event for one of them adds nothing (AddRateLimited). */
  const waiting = new Set<string>();

  const queue = newWorkQueue('horizontal-pod-autoscaling', async (key) => {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await hpas.getKv(namespace, name);
    if (!kv) {
      recommendations.delete(key);
      upEvents.delete(key);
      downEvents.delete(key);
      return;
    }
    try {
      await reconcile(key, hpas.decode(kv));
    } finally {
      schedule(key);
    }
  });

  function schedule(key: string): void {
    if (waiting.has(key) || stopped.signal.aborted) return;
    waiting.add(key);
    void deps.clock.sleep(hpaSyncPeriodMs, stopped.signal).then(() => {
      waiting.delete(key);
      if (!stopped.signal.aborted) queue.add(key);
    });
  }

  /** The target's scale as its /scale subresource shows it, with the resource to write it through. */
  async function scaleOfTarget(namespace: string, ref: Obj) {
    const apiVersion = String(ref['apiVersion'] ?? '');
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    const kind = String(ref['kind'] ?? '');
    const type = deps.registry.kindFor(group, version, kind);
    if (!type) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
    if (!type.subresources.some((s) => s.name === 'scale') || type.custom) throw new Error(`${type.resource}${group ? `.${group}` : ''} "${String(ref['name'])}" has no scale subresource`);
    const store = deps.storeFor(type);
    return { store, scale: scaleOf(await store.get(namespace, String(ref['name']))) };
  }

  /** The selected pods and their usage in milli-units, as the metrics client reads PodMetrics. */
  async function podMetrics(namespace: string, selectorText: string, resource: 'cpu' | 'memory', nowMs: number) {
    const selector = parseLabelSelector(selectorText);
    if (isSelectorError(selector)) throw new ReplicaCalculationError(selector.message);
    const selected = (await pods.list(namespace)).items.filter((p) => selector.matches(p.metadata.labels));
    const simulated = new Set((await nodes.list('')).items.filter(isSimulatedNode).map((n) => n.metadata.name));
    const metrics: PodMetricsInfo = new Map();
    for (const pod of selected) {
      const usage = simulated.has(String(specOf(pod)['nodeName'])) ? podUsage(pod, nowMs) : undefined;
      if (!usage) continue;
      // MilliValue: nanocores rounded up to millicores; bytes times 1000.
      const value = usage.reduce((sum, c) => sum + (resource === 'cpu' ? (c.cpuNano + 999_999n) / 1_000_000n : c.memoryBytes * 1000n), 0n);
      metrics.set(pod.metadata.name!, { value, timestampMs: nowMs, windowMs: metricWindowMs });
    }
    return { selected, metrics };
  }

  /** computeReplicasForMetric for one Resource metric: the proposal, its status and name, or the error and condition. */
  async function replicasForMetric(hpa: KubeObject, spec: Obj, currentReplicas: number, selectorText: string, nowMs: number) {
    const source = isObject(spec['resource']) ? spec['resource'] : {};
    const resource = String(source['name'] ?? '');
    const target = isObject(source['target']) ? source['target'] : {};
    try {
      if (spec['type'] !== 'Resource' || (resource !== 'cpu' && resource !== 'memory')) {
        throw new ReplicaCalculationError(spec['type'] === 'Resource' ? `unable to get metrics for resource ${resource}: no metrics returned from resource metrics API` : `unable to fetch metrics from ${String(spec['type'])} metrics API`);
      }
      const { selected, metrics } = await podMetrics(hpa.metadata.namespace!, selectorText, resource, nowMs);
      const average = parseQuantity(target['averageValue']);
      if (average) {
        const r = resourceReplicas(currentReplicas, { averageMilli: quantityMilliValue(average) }, resource, selected, metrics, nowMs);
        return { replicas: r.replicas, name: `${resource} resource`, status: { type: 'Resource', resource: { name: resource, current: { averageValue: milliQuantity(r.averageValue) } } } };
      }
      if (typeof target['averageUtilization'] !== 'number') throw new ReplicaCalculationError('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
      try {
        const r = resourceReplicas(currentReplicas, { utilization: target['averageUtilization'] }, resource, selected, metrics, nowMs);
        return {
          replicas: r.replicas,
          name: `${resource} resource utilization (percentage of request)`,
          status: { type: 'Resource', resource: { name: resource, current: { averageUtilization: r.utilization, averageValue: milliQuantity(r.averageValue) } } },
        };
      } catch (e) {
        if (e instanceof ReplicaCalculationError) throw new ReplicaCalculationError(`failed to get ${resource} utilization: ${e.message}`);
        throw e;
      }
    } catch (e) {
      if (!(e instanceof ReplicaCalculationError)) throw e;
      // getUnableComputeReplicaCountCondition: an event, and the condition the HPA shows when no metric works.
      recorder.event(hpa, 'Warning', 'FailedGetResourceMetric', e.message);
      return { error: `failed to get ${resource} resource metric value: ${e.message}`, condition: ['FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${e.message}`] as const };
    }
  }

  /** normalizeDesiredReplicas (no spec.behavior): the highest recommendation of the last 5 minutes, at most max(2x, 4). */
  function normalize(key: string, status: Obj, current: number, desired: number, min: number, max: number, nowMs: number, now: string): number {
    const recs = recommendations.get(key)!;
    let stabilized = desired;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.atMs < nowMs - downscaleStabilizationMs) old = i;
      else if (r.replicas > stabilized) stabilized = r.replicas;
    });
    if (old >= 0) recs[old] = { replicas: desired, atMs: nowMs };
    else recs.push({ replicas: desired, atMs: nowMs });
    if (stabilized !== desired) setCondition(status, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation', now);
    else setCondition(status, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
    const scaleUpLimit = Math.max(2 * current, 4);
    let [result, reason, message] = [stabilized, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
    const [maxAllowed, limitReason, limitMessage] = stabilized > scaleUpLimit
      ? [scaleUpLimit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
      : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
    if (stabilized < min) [result, reason, message] = [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
    else if (stabilized > maxAllowed) [result, reason, message] = [maxAllowed, limitReason, limitMessage];
    setCondition(status, 'ScalingLimited', result === stabilized ? 'False' : 'True', reason, message, now);
    return result;
  }

  /** normalizeDesiredReplicasWithBehaviors: the stabilization windows, then the policies' rate limits. */
  function normalizeWithBehavior(key: string, status: Obj, behavior: Obj, current: number, desired: number, min: number, max: number, nowMs: number, now: string): number {
    const up = rulesOf(behavior, 'scaleUp');
    const down = rulesOf(behavior, 'scaleDown');
    const recs = recommendations.get(key)!;
    const upCutoff = nowMs - up.stabilizationWindowSeconds * 1000;
    const downCutoff = nowMs - down.stabilizationWindowSeconds * 1000;
    let upRec = desired;
    let downRec = desired;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.atMs > upCutoff) upRec = Math.min(upRec, r.replicas);
      if (r.atMs > downCutoff) downRec = Math.max(downRec, r.replicas);
      if (r.atMs < upCutoff && r.atMs < downCutoff) old = i;
    });
    const stabilized = Math.min(Math.max(current, upRec), downRec);
    if (old >= 0) recs[old] = { replicas: desired, atMs: nowMs };
    else recs.push({ replicas: desired, atMs: nowMs });
    if (stabilized !== desired) {
      if (desired >= current) setCondition(status, 'AbleToScale', 'True', 'ScaleUpStabilized', 'recent recommendations were lower than current one, applying the lowest recent recommendation', now);
      else setCondition(status, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation', now);
    } else setCondition(status, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);

    let [result, reason, message] = [stabilized, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
    const ups = upEvents.get(key) ?? [];
    const downs = downEvents.get(key) ?? [];
    if (stabilized > current) {
      const limit = Math.max(scaleLimit(true, current, ups, downs, up, nowMs), current);
      const [allowed, r, m] = max > limit ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'] : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
      if (stabilized > allowed) [result, reason, message] = [allowed, r, m];
    } else if (stabilized < current) {
      const limit = Math.min(scaleLimit(false, current, ups, downs, down, nowMs), current);
      const [allowed, r, m] = min < limit ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate'] : [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
      if (stabilized < allowed) [result, reason, message] = [allowed, r, m];
    }
    setCondition(status, 'ScalingLimited', result === stabilized ? 'False' : 'True', reason, message, now);
    return result;
  }

  /** storeScaleEvent: scale events feed the policies' periods (only with spec.behavior). */
  function storeScaleEvent(key: string, behavior: Obj, previous: number, next: number, nowMs: number): void {
    const up = next > previous;
    const rules = rulesOf(behavior, up ? 'scaleUp' : 'scaleDown');
    const longest = Math.max(...rules.policies.map((p) => p.periodSeconds));
    const events = (up ? upEvents : downEvents).get(key) ?? [];
    for (const e of events) if (e.atMs <= nowMs - longest * 1000) e.outdated = true;
    const event = { change: Math.abs(next - previous), atMs: nowMs, outdated: false };
    const slot = events.findIndex((e) => e.outdated);
    if (slot >= 0) events[slot] = event;
    else events.push(event);
    (up ? upEvents : downEvents).set(key, events);
  }

  async function writeStatus(hpa: KubeObject, status: Obj): Promise<void> {
    if (JSON.stringify(status) === JSON.stringify(statusOf(hpa))) return;
    try {
      await hpas.update(hpa.metadata.namespace!, hpa.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== hpa.metadata.uid) throw objectGone();
        cur['status'] = status;
        return cur;
      }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  /** reconcileAutoscaler */
  async function reconcile(key: string, hpa: KubeObject): Promise<void> {
    const nowDate = deps.clock.now();
    const nowMs = nowDate.getTime();
    const now = formatTime(nowDate);
    const spec = specOf(hpa);
    const previous = statusOf(hpa);
    const status: Obj = structuredClone(previous);
    const ref = isObject(spec['scaleTargetRef']) ? spec['scaleTargetRef'] : {};
    /** setStatus: the fields kube writes, in its order. */
    const finalStatus = (currentReplicas: number, desiredReplicas: number, metrics: Obj[] | undefined, rescaled: boolean): Obj => ({
      ...(rescaled ? { lastScaleTime: now } : previous['lastScaleTime'] !== undefined ? { lastScaleTime: previous['lastScaleTime'] } : {}),
      ...(currentReplicas ? { currentReplicas } : {}),
      desiredReplicas,
      ...(metrics ? { currentMetrics: metrics } : {}),
      ...(status['conditions'] ? { conditions: status['conditions'] } : {}),
    });

    let target: Awaited<ReturnType<typeof scaleOfTarget>>;
    try {
      target = await scaleOfTarget(hpa.metadata.namespace!, ref);
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      recorder.event(hpa, 'Warning', 'FailedGetScale', e.message);
      setCondition(status, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${e.message}`, now);
      await writeStatus(hpa, status);
      return;
    }
    setCondition(status, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
    const scale = target.scale;
    const currentReplicas = Number(specOf(scale)['replicas'] ?? 0);
    if (!recommendations.has(key)) recommendations.set(key, [{ replicas: currentReplicas, atMs: nowMs }]);
    const minReplicas = int(spec['minReplicas'], 1);
    const maxReplicas = int(spec['maxReplicas'], 1);
    const behavior = isObject(spec['behavior']) ? spec['behavior'] : undefined;

    let desiredReplicas = 0;
    let rescale = true;
    let reason = '';
    let metricStatuses: Obj[] | undefined;
    if (currentReplicas === 0 && minReplicas !== 0) {
      rescale = false;
      setCondition(status, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
    } else if (currentReplicas > maxReplicas) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      // computeReplicasForMetrics
      const selectorText = String(statusOf(scale)['selector'] ?? '');
      if (!selectorText) {
        recorder.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
        setCondition(status, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now);
        await writeStatus(hpa, finalStatus(currentReplicas, int(previous['desiredReplicas'], 0), undefined, false));
        return;
      }
      const specs = objectsOf(spec['metrics']);
      metricStatuses = specs.map(() => ({ type: '' }));
      let proposal = -1;
      let proposalName = '';
      let invalid = 0;
      let firstError: { error: string; condition: readonly [string, string] } | undefined;
      for (const [i, m] of specs.entries()) {
        const r = await replicasForMetric(hpa, m, currentReplicas, selectorText, nowMs);
        if (r.error !== undefined || !r.status) {
          invalid++;
          firstError ??= { error: r.error ?? '', condition: r.condition ?? ['', ''] };
          continue;
        }
        metricStatuses[i] = r.status;
        if (proposal === -1 || r.replicas > proposal) [proposal, proposalName] = [r.replicas, r.name];
      }
      if (specs.length === 0 || invalid === specs.length) {
        const message = `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError?.error ?? 'no metrics'}`;
        if (firstError) setCondition(status, 'ScalingActive', 'False', firstError.condition[0], firstError.condition[1], now);
        await writeStatus(hpa, finalStatus(currentReplicas, int(previous['desiredReplicas'], 0), metricStatuses, false));
        recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', message);
        return;
      }
      setCondition(status, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${proposalName}`, now);
      let metricName = '';
      if (proposal > desiredReplicas) [desiredReplicas, metricName] = [proposal, proposalName];
      if (desiredReplicas > currentReplicas) reason = `${metricName} above target`;
      if (desiredReplicas < currentReplicas) reason = 'All metrics below target';
      desiredReplicas = behavior
        ? normalizeWithBehavior(key, status, behavior, currentReplicas, desiredReplicas, minReplicas, maxReplicas, nowMs, now)
        : normalize(key, status, currentReplicas, desiredReplicas, minReplicas, maxReplicas, nowMs, now);
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await target.store.update(hpa.metadata.namespace!, String(ref['name']), (cur) => {
          if (!cur) throw objectGone();
          const s = isObject(cur['spec']) ? cur['spec'] : (cur['spec'] = {});
          s['replicas'] = desiredReplicas;
          return cur;
        }, { subresource: 'scale' });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${reason}; error: ${e.message}`);
        setCondition(status, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${e.message}`, now);
        await writeStatus(hpa, finalStatus(currentReplicas, int(previous['desiredReplicas'], 0), metricStatuses, false));
        return;
      }
      setCondition(status, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`, now);
      recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${reason}`);
      if (behavior) storeScaleEvent(key, behavior, currentReplicas, desiredReplicas, nowMs);
    } else {
      desiredReplicas = currentReplicas;
    }
    await writeStatus(hpa, finalStatus(currentReplicas, desiredReplicas, metricStatuses, rescale));
  }

  const unsubscribes: (() => void)[] = [];
  const started = (async () => {
    const listed = await hpas.list('');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(hpas.prefix, listed.revision, (e) => {
      const key = e.kv.key.slice(hpas.prefix.length);
      if (e.type === 'PUT') schedule(key);
      else {
        // deleteHPA: its recommendations and scale events go with it.
        recommendations.delete(key);
        upEvents.delete(key);
        downEvents.delete(key);
      }
    }));
    for (const h of listed.items) schedule(`${h.metadata.namespace}/${h.metadata.name}`);
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: horizontal-pod-autoscaling:', e);
  });
  return {
    async idle() {
      await started;
      await queue.idle();
      await recorder.flushed();
    },
    stop() {
      stopped.abort();
      queue.stop();
      for (const u of unsubscribes) u();
    },
  };
}

/** resource.NewMilliQuantity(v, DecimalSI) as it serializes. */
const milliQuantity = (milli: bigint): string => formatQuantity({ unscaled: milli, scale: -3, format: 'DecimalSI' });

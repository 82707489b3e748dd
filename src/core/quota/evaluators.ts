/**
 * Quota evaluators (pkg/quota/v1/evaluator/core and
 * k8s.io/apiserver/pkg/quota/v1/generic): for one kind, which quota
 * resources it is charged to, what one object uses, which scopes it falls
 * in, and what a quota on it requires of the object.
 */
import { compareQuantities } from '../api/quantity';
import { isObject, type KubeObject } from '../api/types';
import { containerResources, podLimits, podRequests } from './podResources';
import { add, countQuantity, parseResourceList, roundUpQuantity, zeroQuantity, type ResourceList } from './resources';

type Obj = Record<string, unknown>;

/** A scope of a quota (spec.scopes, or one of spec.scopeSelector.matchExpressions). */
export interface ScopeSelector {
  scopeName: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface GroupResource {
  group: string;
  resource: string;
}

export interface Evaluator {
  readonly groupResource: GroupResource;
  /** Whether a write of this operation (on the main resource) can change usage. */
  handles(operation: 'CREATE' | 'UPDATE' | 'DELETE'): boolean;
  /** The quota resource names, of those given, this kind is charged to. */
  matchingResources(names: string[]): string[];
  /** Whether the object falls in one scope; kinds without scopes match none. */
  matchesScope(scope: ScopeSelector, obj: KubeObject): boolean;
  /** What a quota on `required` demands of the object ("must specify ..."), or undefined. */
  constraints(required: string[], obj: KubeObject): string | undefined;
  /** What the object uses. */
  usage(obj: KubeObject, now: Date): ResourceList;
}

const specOf = (obj: KubeObject): Obj => (isObject(obj['spec']) ? obj['spec'] : {});
const statusOf = (obj: KubeObject): Obj => (isObject(obj['status']) ? obj['status'] : {});

/** generic.ObjectCountQuotaResourceNameFor: count/<resource>[.<group>]. */
export function objectCountName(gr: GroupResource): string {
  return gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`;
}

/** The group and resource a count/<resource>[.<group>] name counts. */
export function groupResourceOfCount(name: string): GroupResource | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** generic.NewObjectCountEvaluator: one per object, under count/... and the legacy alias. */
export function objectCountEvaluator(gr: GroupResource, alias?: string): Evaluator {
  const names = [objectCountName(gr), ...(alias ? [alias] : [])];
  return {
    groupResource: gr,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, countQuantity(1)])),
  };
}

// --- pods ---

const podResourceNames = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
const hugePagesPrefix = 'hugepages-';
const requestsPrefix = 'requests.';
/** Quota on these makes every container say how much it wants (a historical coupling kube keeps). */
const validationSet = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** helper.IsNativeResource: no domain, or one under kubernetes.io. */
function isNativeResource(name: string): boolean {
  const slash = name.indexOf('/');
  return slash < 0 || name.slice(0, slash).endsWith('kubernetes.io');
}

/** helper.IsExtendedResourceName: qualified, not native, not requests.-prefixed. */
function isExtendedResourceName(name: string): boolean {
  return !isNativeResource(name) && !name.startsWith(requestsPrefix);
}

/** podComputeUsageHelper: the quota names a set of requests and limits is charged to. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', countQuantity(1)]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith(hugePagesPrefix)) {
      out.set(r, q);
      out.set(requestsPrefix + r, q);
    }
    if (isExtendedResourceName(r)) out.set(requestsPrefix + r, q);
  }
  return out;
}

/** QuotaV1Pod: a pod in a terminal phase, or past its deletion grace period, no longer uses compute. */
export function podChargesCompute(pod: KubeObject, now: Date): boolean {
  const phase = statusOf(pod)['phase'];
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && typeof deletionGracePeriodSeconds === 'number') {
    if (now.getTime() > Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

/** qos.GetPodQOS == BestEffort: no container asks for or caps cpu or memory. */
function isBestEffort(pod: KubeObject): boolean {
  const qos = statusOf(pod)['qosClass'];
  if (typeof qos === 'string' && qos) return qos === 'BestEffort';
  const spec = specOf(pod);
  for (const list of ['containers', 'initContainers']) {
    for (const c of Array.isArray(spec[list]) ? (spec[list] as unknown[]).filter(isObject) : []) {
      for (const which of ['requests', 'limits'] as const) {
        for (const [k, v] of containerResources(c, which)) if ((k === 'cpu' || k === 'memory') && compareQuantities(v, zeroQuantity) > 0) return false;
      }
    }
  }
  return true;
}

function isTerminating(pod: KubeObject): boolean {
  const ads = specOf(pod)['activeDeadlineSeconds'];
  return typeof ads === 'number' && ads >= 0;
}

function usesCrossNamespacePodAffinity(pod: KubeObject): boolean {
  const affinity = specOf(pod)['affinity'];
  if (!isObject(affinity)) return false;
  const crossNamespace = (t: unknown): boolean => isObject(t) && ((Array.isArray(t['namespaces']) && t['namespaces'].length > 0) || t['namespaceSelector'] != null);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isObject(a)) continue;
    const required = Array.isArray(a['requiredDuringSchedulingIgnoredDuringExecution']) ? a['requiredDuringSchedulingIgnoredDuringExecution'] : [];
    const preferred = Array.isArray(a['preferredDuringSchedulingIgnoredDuringExecution']) ? a['preferredDuringSchedulingIgnoredDuringExecution'] : [];
    if (required.some(crossNamespace) || preferred.some((w) => isObject(w) && crossNamespace(w['podAffinityTerm']))) return true;
  }
  return false;
}

/** A scope selector as a label selector over {PriorityClass: <name>} (ScopedResourceSelectorRequirementsAsSelector). */
function matchesPriorityClass(scope: ScopeSelector, priorityClassName: string): boolean {
  const has = priorityClassName !== '';
  switch (scope.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'In':
      return has && (scope.values ?? []).includes(priorityClassName);
    case 'NotIn':
      return !has || !(scope.values ?? []).includes(priorityClassName);
  }
  return false;
}

export const podEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'pods' },
  // A pod's resources cannot change after create (in-place resize is off in 1.32).
  handles: (op) => op === 'CREATE',
  matchingResources: (input) => input.filter((n) => podResourceNames.includes(n) || n.startsWith(hugePagesPrefix) || n.startsWith(requestsPrefix + hugePagesPrefix) || (!isNativeResource(n) && n.startsWith(requestsPrefix))),
  matchesScope(scope, pod) {
    switch (scope.scopeName) {
      case 'Terminating':
        return isTerminating(pod);
      case 'NotTerminating':
        return !isTerminating(pod);
      case 'BestEffort':
        return isBestEffort(pod);
      case 'NotBestEffort':
        return !isBestEffort(pod);
      case 'PriorityClass': {
        const pc = specOf(pod)['priorityClassName'];
        return matchesPriorityClass(scope, typeof pc === 'string' ? pc : '');
      }
      case 'CrossNamespacePodAffinity':
        return usesCrossNamespacePodAffinity(pod);
    }
    return false;
  },
  constraints(required, pod) {
    const requiredSet = required.filter((r) => validationSet.has(r));
    if (!requiredSet.length) return undefined;
    const missing = new Map<string, Set<string>>();
    const spec = specOf(pod);
    for (const list of ['containers', 'initContainers']) {
      for (const c of Array.isArray(spec[list]) ? (spec[list] as unknown[]).filter(isObject) : []) {
        const has = computeUsage(containerResources(c, 'requests'), containerResources(c, 'limits'));
        for (const r of requiredSet) {
          if (has.has(r)) continue;
          if (!missing.has(r)) missing.set(r, new Set());
          missing.get(r)!.add(String(c['name'] ?? ''));
        }
      }
    }
    if (!missing.size) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
  usage(pod, now) {
    // count/pods tracks every stored pod; the compute resources only live ones.
    const out: ResourceList = new Map([['count/pods', countQuantity(1)]]);
    if (!podChargesCompute(pod, now)) return out;
    return add(out, computeUsage(podRequests(pod, { overhead: true }), podLimits(pod, { overhead: true })));
  },
};

// --- services ---

const serviceResourceNames = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'];

export const serviceEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'services' },
  // A Service's type can change on update.
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((n) => serviceResourceNames.includes(n)),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(svc) {
    const spec = specOf(svc);
    const ports = Array.isArray(spec['ports']) ? (spec['ports'] as unknown[]) : [];
    const out: ResourceList = new Map([
      ['count/services', countQuantity(1)],
      ['services', countQuantity(1)],
      ['services.loadbalancers', { ...zeroQuantity }],
      ['services.nodeports', { ...zeroQuantity }],
    ]);
    if (spec['type'] === 'NodePort') out.set('services.nodeports', countQuantity(ports.length));
    if (spec['type'] === 'LoadBalancer') {
      // Without node port allocation only the ports that name one count.
      const counted = spec['allocateLoadBalancerNodePorts'] === false ? ports.filter((p) => isObject(p) && typeof p['nodePort'] === 'number' && p['nodePort'] !== 0).length : ports.length;
      out.set('services.nodeports', countQuantity(counted));
      out.set('services.loadbalancers', countQuantity(1));
    }
    return out;
  },
};

// --- persistentvolumeclaims ---

const storageClassSuffix = '.storageclass.storage.k8s.io/';
const pvcResourceNames = ['persistentvolumeclaims', 'requests.storage'];

/** The claim's class: spec.storageClassName, else the beta annotation. */
function storageClassOf(pvc: KubeObject): string {
  const annotated = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotated !== undefined) return annotated;
  const sc = specOf(pvc)['storageClassName'];
  return typeof sc === 'string' ? sc : '';
}

export const persistentVolumeClaimEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'persistentvolumeclaims' },
  // A claim can grow on update.
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((n) => n === 'count/persistentvolumeclaims' || pvcResourceNames.includes(n) || pvcResourceNames.some((r) => n.endsWith(storageClassSuffix + r))),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(pvc) {
    const out: ResourceList = new Map([
      ['persistentvolumeclaims', countQuantity(1)],
      ['count/persistentvolumeclaims', countQuantity(1)],
    ]);
    const sc = storageClassOf(pvc);
    if (sc) out.set(sc + storageClassSuffix + 'persistentvolumeclaims', countQuantity(1));
    const spec = specOf(pvc);
    let storage = parseResourceList(isObject(spec['resources']) ? spec['resources']['requests'] : undefined).get('storage');
    if (storage) {
      // Charged the larger of what is asked and what was allocated, in whole bytes.
      const allocated = parseResourceList(statusOf(pvc)['allocatedResources']).get('storage');
      if (allocated && compareQuantities(allocated, storage) > 0) storage = allocated;
      storage = roundUpQuantity(storage);
      out.set('requests.storage', storage);
      if (sc) out.set(sc + storageClassSuffix + 'requests.storage', storage);
    }
    return out;
  },
};

/** Legacy object-count names kept beside count/<resource> (core.legacyObjectCountAliases). */
const legacyAliases: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/** Kinds quota never counts (install.DefaultIgnoredResources). */
export function isIgnoredResource(gr: GroupResource): boolean {
  return gr.group === '' && gr.resource === 'events';
}

const cache = new Map<string, Evaluator>();

/** The evaluator of a kind: pods, services and claims have their own; anything else is counted. */
export function evaluatorFor(gr: GroupResource): Evaluator {
  if (gr.group === '') {
    if (gr.resource === 'pods') return podEvaluator;
    if (gr.resource === 'services') return serviceEvaluator;
    if (gr.resource === 'persistentvolumeclaims') return persistentVolumeClaimEvaluator;
  }
  const key = `${gr.group}/${gr.resource}`;
  let e = cache.get(key);
  if (!e) cache.set(key, (e = objectCountEvaluator(gr, gr.group === '' ? legacyAliases[gr.resource] : undefined)));
  return e;
}

/** The kinds whose evaluators are charged to any of the quota resource names. */
export function groupResourcesFor(names: string[]): GroupResource[] {
  const out = new Map<string, GroupResource>();
  const addGr = (gr: GroupResource) => out.set(`${gr.group}/${gr.resource}`, gr);
  for (const e of [podEvaluator, serviceEvaluator, persistentVolumeClaimEvaluator]) if (e.matchingResources(names).length) addGr(e.groupResource);
  for (const n of names) {
    if (legacyAliases[n]) addGr({ group: '', resource: n });
    const gr = groupResourceOfCount(n);
    if (gr) addGr(gr);
  }
  return [...out.values()];
}

/** The quota's scopes as selectors (getScopeSelectorsFromQuota): spec.scopes as Exists, then spec.scopeSelector. */
export function scopeSelectorsOf(quota: KubeObject): ScopeSelector[] {
  const spec = specOf(quota);
  const out: ScopeSelector[] = [];
  if (Array.isArray(spec['scopes'])) for (const s of spec['scopes']) if (typeof s === 'string') out.push({ scopeName: s, operator: 'Exists' });
  const selector = spec['scopeSelector'];
  if (isObject(selector) && Array.isArray(selector['matchExpressions'])) {
    for (const m of selector['matchExpressions']) {
      if (isObject(m)) out.push({ scopeName: String(m['scopeName'] ?? ''), operator: m['operator'] as ScopeSelector['operator'], values: Array.isArray(m['values']) ? m['values'].map(String) : undefined });
    }
  }
  return out;
}

/** generic.Matches: the quota limits something this kind uses, and the object is in every one of its scopes. */
export function quotaMatches(evaluator: Evaluator, quota: KubeObject, hardNames: string[], obj: KubeObject): boolean {
  if (!evaluator.matchingResources(hardNames).length) return false;
  return scopeSelectorsOf(quota).every((s) => evaluator.matchesScope(s, obj));
}

/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger), for
 * the LimitRanges of the write's namespace. Mutating: a new pod's
 * containers (and init containers) get the Container limits' `default` as
 * limits and `defaultRequest` as requests for the resources they leave
 * unset, and the pod the `kubernetes.io/limit-ranger` annotation saying so.
 * Validating: Container min, max and maxLimitRequestRatio per container,
 * Pod ones over the pod's effective requests and limits, and
 * PersistentVolumeClaim min and max over a claim's storage request (on
 * create and update), each broken rule in kube's words in one 403.
 */
import { canonicalQuantity, formatQuantity, quantityMilliValue, type Quantity } from '../api/quantity';
import { isObject, type KubeObject } from '../api/types';
import { newForbidden } from '../errors';
import { containerResources, parseResourceList, podLimits, podRequests, type ResourceList } from '../quota';
import type { Store } from '../registry/generic/store';
import type { Storage } from '../storage/interface';
import { newNamespacedCache } from './namespacedCache';
import type { PluginAttributes } from './attributes';

type Obj = Record<string, unknown>;

export interface LimitRangerPlugin {
  start(): Promise<void>;
  stop(): void;
  /** The mutating phase: defaults (undefined when no LimitRange applies). */
  admit(attrs: PluginAttributes): Promise<void> | undefined;
  /** The validating phase: min, max, ratios (undefined when no LimitRange applies). */
  validate(attrs: PluginAttributes): Promise<void> | undefined;
}

const limitRangerAnnotation = 'kubernetes.io/limit-ranger';

const itemsOf = (lr: KubeObject): Obj[] => {
  const spec = isObject(lr['spec']) ? lr['spec'] : {};
  return Array.isArray(spec['limits']) ? (spec['limits'] as unknown[]).filter(isObject) : [];
};
const quantities = (item: Obj, field: string): [string, Quantity][] => [...parseResourceList(item[field])];
const containersOf = (pod: KubeObject, list: string): Obj[] => {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return Array.isArray(spec[list]) ? (spec[list] as unknown[]).filter(isObject) : [];
};

/** A map with its keys sorted, as Go encodes a ResourceList. */
function sortedMap(m: Obj): Obj {
  return Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k]]));
}

/** mergeContainerResources: fills what the container leaves unset; returns the annotation parts. */
function mergeContainer(container: Obj, limits: Obj, requests: Obj, prefix: string): string[] {
  const res = isObject(container['resources']) ? container['resources'] : (container['resources'] = {});
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  const have = (field: 'limits' | 'requests'): Obj => (isObject(res[field]) ? res[field] : {});
  const curLimits = have('limits');
  const curRequests = have('requests');
  for (const [k, v] of Object.entries(limits)) {
    if (k in curLimits) continue;
    curLimits[k] = v;
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(requests)) {
    if (k in curRequests) continue;
    curRequests[k] = v;
    setRequests.push(k);
  }
  if (setLimits.length) res['limits'] = sortedMap(curLimits);
  if (setRequests.length) res['requests'] = sortedMap(curRequests);
  const name = String(container['name'] ?? '');
  const parts: string[] = [];
  if (setRequests.length) parts.push(`${setRequests.sort().join(', ')} request for ${prefix} ${name}`);
  if (setLimits.length) parts.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${name}`);
  return parts;
}

/** PodMutateLimitFunc: one LimitRange's Container defaults applied to a pod. */
function mutatePod(lr: KubeObject, pod: KubeObject): void {
  const limits: Obj = {};
  const requests: Obj = {};
  for (const item of itemsOf(lr)) {
    if (item['type'] !== 'Container') continue;
    for (const [k, v] of Object.entries(isObject(item['defaultRequest']) ? item['defaultRequest'] : {})) requests[k] = canonicalQuantity(v);
    for (const [k, v] of Object.entries(isObject(item['default']) ? item['default'] : {})) limits[k] = canonicalQuantity(v);
  }
  const annotations: string[] = [];
  for (const c of containersOf(pod, 'containers')) annotations.push(...mergeContainer(c, limits, requests, 'container'));
  for (const c of containersOf(pod, 'initContainers')) annotations.push(...mergeContainer(c, limits, requests, 'init container'));
  if (annotations.length) pod.metadata.annotations = { ...pod.metadata.annotations, [limitRangerAnnotation]: `LimitRanger plugin set: ${annotations.join('; ')}` };
}

const milli = (q: Quantity | undefined): bigint => (q ? quantityMilliValue(q) : 0n);
const str = (q: Quantity): string => formatQuantity(q);

/** minConstraint */
function minConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  if (!req) return `minimum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (milli(req) < milli(enforced)) return `minimum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  if (lim && milli(lim) < milli(enforced)) return `minimum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

/** maxConstraint */
function maxConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  if (!lim) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No limit is specified`;
  if (milli(lim) > milli(enforced)) return `maximum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (req && milli(req) > milli(enforced)) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** maxRequestConstraint: for claims, whose limits are not user input. */
function maxRequestConstraint(type: string, name: string, enforced: Quantity, request: ResourceList): string | undefined {
  const req = request.get(name);
  if (!req) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (milli(req) > milli(enforced)) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** limitRequestRatioConstraint: the ratio printed as Go's %f. */
function ratioConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = milli(request.get(name));
  const lim = milli(limit.get(name));
  if (req === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no request is specified or request is 0`;
  if (lim === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no limit is specified or limit is 0`;
  const ratio = Number(lim) / Number(req);
  if (ratio * 1000 > Number(milli(enforced))) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

/** min, max and maxLimitRequestRatio of one LimitRange item over one set of requests and limits. */
function checkItem(item: Obj, type: string, requests: ResourceList, limits: ResourceList, errs: string[]): void {
  for (const [k, v] of quantities(item, 'min')) { const e = minConstraint(type, k, v, requests, limits); if (e) errs.push(e); }
  for (const [k, v] of quantities(item, 'max')) { const e = maxConstraint(type, k, v, requests, limits); if (e) errs.push(e); }
  for (const [k, v] of quantities(item, 'maxLimitRequestRatio')) { const e = ratioConstraint(type, k, v, requests, limits); if (e) errs.push(e); }
}

/** PodValidateLimitFunc */
function validatePod(lr: KubeObject, pod: KubeObject, errs: string[]): void {
  for (const item of itemsOf(lr)) {
    if (item['type'] === 'Container') {
      for (const c of [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')]) {
        checkItem(item, 'Container', containerResources(c, 'requests'), containerResources(c, 'limits'), errs);
      }
    }
    if (item['type'] === 'Pod') checkItem(item, 'Pod', podRequests(pod, { overhead: false }), podLimits(pod, { overhead: false }), errs);
  }
}

/** PersistentVolumeClaimValidateLimitFunc: min and max over spec.resources.requests. */
function validateClaim(lr: KubeObject, pvc: KubeObject, errs: string[]): void {
  const spec = isObject(pvc['spec']) ? pvc['spec'] : {};
  const requests = parseResourceList(isObject(spec['resources']) ? spec['resources']['requests'] : undefined);
  for (const item of itemsOf(lr)) {
    if (item['type'] !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of quantities(item, 'min')) { const e = minConstraint('PersistentVolumeClaim', k, v, requests, new Map()); if (e) errs.push(e); }
    for (const [k, v] of quantities(item, 'max')) { const e = maxRequestConstraint('PersistentVolumeClaim', k, v, requests); if (e) errs.push(e); }
  }
}

/** utilerrors.NewAggregate(errs).Error(): one message alone, several in brackets, repeats once. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export function createLimitRangerPlugin(deps: { storage: Storage; limitRanges: Store }): LimitRangerPlugin {
  const cache = newNamespacedCache(deps.storage, deps.limitRanges);

  /** SupportsAttributes: pods on create (their containers cannot change later), claims on create and update; never subresources. */
  function supports(attrs: PluginAttributes): 'pod' | 'claim' | undefined {
    if (attrs.subresource || attrs.kind.group !== '' || !attrs.object || !attrs.namespace) return undefined;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return undefined;
    // An object already marked for deletion is left alone.
    if (attrs.oldObject?.metadata.deletionTimestamp) return undefined;
    if (attrs.kind.kind === 'Pod') return attrs.operation === 'CREATE' ? 'pod' : undefined;
    return attrs.kind.kind === 'PersistentVolumeClaim' ? 'claim' : undefined;
  }

  return {
    start: () => cache.start(),
    stop: () => cache.stop(),
    admit(attrs) {
      if (supports(attrs) !== 'pod') return undefined;
      const ranges = cache.list(attrs.namespace);
      if (!ranges.length) return undefined;
      for (const lr of ranges) mutatePod(lr, attrs.object!);
      return Promise.resolve();
    },
    validate(attrs) {
      const what = supports(attrs);
      if (!what) return undefined;
      const ranges = cache.list(attrs.namespace);
      if (!ranges.length) return undefined;
      for (const lr of ranges) {
        const errs: string[] = [];
        if (what === 'pod') validatePod(lr, attrs.object!, errs);
        else validateClaim(lr, attrs.object!, errs);
        if (errs.length) return Promise.reject(newForbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name || 'Unknown', aggregate(errs)));
      }
      return Promise.resolve();
    },
  };
}


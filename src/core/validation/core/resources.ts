/**
 * Container resource requirements (ValidateContainerResourceRequirements):
 * resource names, non-negative quantities, integer extended resources and
 * requests <= limits (== for resources that cannot be overcommitted).
 */
import { compareQuantities, formatQuantity, parseQuantity, quantityMilliValue, type Quantity } from '../../api/quantity';
import { forbidden, invalid, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isQualifiedName } from '../names';
import { isNegativeErrorMsg, obj, append, type Obj } from './common';

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers',
  'resourcequotas', 'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports',
  'services.loadbalancers', 'requests.storage',
]);
const hugePagesPrefix = 'hugepages-';

const isHugePages = (name: string) => name.startsWith(hugePagesPrefix);
/** IsNativeResource: unprefixed, or in the kubernetes.io domain. */
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
/** IsExtendedResourceName: outside kubernetes.io, and still a qualified name as a quota name. */
export const isExtendedResourceName = (name: string) =>
  !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const isOvercommitAllowed = (name: string) => isNative(name) && !isHugePages(name);

/** validateResourceName */
function validateResourceName(name: string, fld: Path): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(String(fld), name, m));
  if (errs.length) return errs;
  if (!name.includes('/') && !standardResources.has(name) && !isHugePages(name)) {
    errs.push(invalid(String(fld), name, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** validateContainerResourceName */
function validateContainerResourceName(name: string, fld: Path): FieldError[] {
  if (standardContainerResources.has(name)) return [];
  const errs = validateResourceName(name, fld);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePages(name)) errs.push(invalid(String(fld), name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(String(fld), name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, whole numbers for extended resources. */
function validateQuantityValue(name: string, q: Quantity, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (q.unscaled < 0n) errs.push(invalid(String(fld), formatQuantity(q), isNegativeErrorMsg));
  if (isExtendedResourceName(name) && quantityMilliValue(q) % 1000n !== 0n) errs.push(invalid(String(fld), formatQuantity(q), 'must be an integer'));
  return errs;
}

/** Name and value of one entry; the common case (a standard name, a non-negative value) builds no path. */
function validateNameAndValue(name: string, q: Quantity, list: Path): FieldError[] {
  if (standardContainerResources.has(name) && q.unscaled >= 0n) return [];
  const p = list.key(name);
  return [...validateContainerResourceName(name, p), ...validateQuantityValue(name, q, p)];
}

function quantities(list: Obj | undefined): [string, Quantity][] {
  const out: [string, Quantity][] = [];
  for (const k in list) {
    const q = parseQuantity(list[k]);
    if (q) out.push([k, q]);
  }
  return out;
}

/** A limit by resource name (a container lists a few). */
function limitOf(limits: [string, Quantity][], name: string): Quantity | undefined {
  for (const [n, q] of limits) if (n === name) return q;
  return undefined;
}

export function validateContainerResourceRequirements(resources: unknown, fld: Path): FieldError[] {
  const r = obj(resources);
  if (!r) return [];
  const errs: FieldError[] = [];
  const limPath = fld.child('limits');
  const reqPath = fld.child('requests');
  const limits = quantities(obj(r['limits']));
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, q] of limits) {
    append(errs, validateNameAndValue(name, q, limPath));
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, q] of quantities(obj(r['requests']))) {
    append(errs, validateNameAndValue(name, q, reqPath));
    const limit = limitOf(limits, name);
    if (limit) {
      const cmp = compareQuantities(q, limit);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(String(reqPath), formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (cmp > 0) {
        errs.push(invalid(String(reqPath), formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(required(String(limPath), 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errs.push(forbidden(String(fld), 'HugePages require cpu or memory'));
  return errs;
}

/** Resource names as pkg/apis/core/helper classifies them, for quotas and limit ranges. */
import { invalid, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isQualifiedName } from '../names';
import { quantityOf, quantitySign, quantityString, isWholeQuantity } from './quantityCheck';

const hugePages = (n: string) => n.startsWith('hugepages-');
const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims',
  'configmaps', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const standardQuotaResources = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'configmaps', 'secrets', 'persistentvolumeclaims', 'requests.cpu',
  'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'cpu',
  'memory', 'ephemeral-storage', 'services.nodeports', 'services.loadbalancers',
]);
const integerResources = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports',
  'services.loadbalancers',
]);

const isNativeResource = (n: string) => !n.includes('/') || n.includes('kubernetes.io/');
const isExtendedResourceName = (n: string) => !isNativeResource(n) && !n.startsWith('requests.') && isQualifiedName(`requests.${n}`).length === 0;

/** validateResourceName: a qualified name, and a standard one when it has no domain. */
export function validateResourceName(name: string, fld: Path): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(String(fld), name, m));
  if (!name.includes('/') && !standardResources.has(name) && !name.startsWith('requests.hugepages-') && !hugePages(name)) {
    errs.push(invalid(String(fld), name, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** validateContainerResourceName */
export function validateContainerResourceName(name: string, fld: Path): FieldError[] {
  const errs = validateResourceName(name, fld);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !hugePages(name)) errs.push(invalid(String(fld), name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(String(fld), name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuotaResourceName */
export function validateQuotaResourceName(name: string, fld: Path): FieldError[] {
  const errs = validateResourceName(name, fld);
  if (!name.includes('/') && !standardQuotaResources.has(name) && !name.startsWith('requests.hugepages-')) {
    errs.push(invalid(String(fld), name, 'must be a standard resource for quota'));
  }
  return errs;
}

/** ValidateResourceQuantityValue: never negative, whole for countable resources. */
export function validateResourceQuantityValue(resource: string, value: unknown, fld: Path): FieldError[] {
  const q = quantityOf(value);
  if (!q) return [invalid(String(fld), value, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")];
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(String(fld), quantityString(q), 'must be greater than or equal to 0'));
  const integer = integerResources.has(resource) || resource.startsWith('count/') || isExtendedResourceName(resource);
  if (integer && !isWholeQuantity(q)) errs.push(invalid(String(fld), quantityString(q), 'must be an integer'));
  return errs;
}

// Kubernetes' library cost estimator (k8s.io/apiserver pkg/cel/library
// cost.go): the static estimate (EstimateCallCost) and runtime cost
// (CallCost) of a call, chosen by function name before cel-go's own figures,
// as the API server's CostEstimator does. Every change here moves figures a
// CRD author sees, exactly as it would in the API server.

import type { CelType } from '../../common/types';
import { CelMap, CelOpaque, actualSize, isPlainObject, type CelValue } from '../../common/values';
import type { CallEstimate, EstimateNode, OverloadDecl, SizeRange } from '../../interpreter/functions';
import { REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, addR, factorR, fixed, mulR, range, UNBOUNDED } from '../costs';
import { CelFormat, MAX_FORMAT_SIZE, MAX_NAME_FORMAT_REGEX_SIZE } from './format';
import { CelCIDR, CelIP } from './net';

const F = STRING_TRAVERSAL_FACTOR;
const utf8 = new TextEncoder();
const utf8Length = (s: string): number => utf8.encode(s).length;
const LIST_CREATE = 10;
const STRUCT_CREATE = 40;
/** the shortest repeatable selector requirement that allocates a values slice is two characters: `k,` */
const SELECTOR_LENGTH_TO_REQUIREMENTS = 0.5;
/** each requirement is a struct and a values slice */
const COST_PER_REQUIREMENT = LIST_CREATE + STRUCT_CREATE;

const AUTHZ_NOMINAL = new Set(['serviceAccount', 'path', 'group', 'resource', 'subresource', 'namespace', 'name', 'allowed', 'reason', 'error', 'errored']);
const TRAVERSALS = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf']);
const STRING_OPS = new Set(['lowerAscii', 'upperAscii', 'substring', 'trim']);
const NET_ACCESSORS = new Set(['masked', 'prefixLength', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast']);
const NOMINAL = new Set(['sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub', 'major', 'minor', 'patch', 'getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery', 'format.named']);
const PARSERS = new Set(['cidr', 'isIP', 'isCIDR', 'quantity', 'isQuantity', 'semver', 'isSemver']);
/** Kubernetes types whose equality is O(1) */
const UNIT_EQUALITY = new Set([
  'net.IP', 'net.CIDR', 'kubernetes.Quantity', 'kubernetes.Semver', 'kubernetes.authorization.Authorizer', 'kubernetes.authorization.PathCheck',
  'kubernetes.authorization.GroupCheck', 'kubernetes.authorization.ResourceCheck', 'kubernetes.authorization.Decision',
]);

/** Functions the estimator prices, so callers skip the lookup for every other call. */
export function kubernetesPrices(fn: string): boolean {
  return (
    fn === 'check' || fn === 'fieldSelector' || fn === 'labelSelector' || fn === 'url' || fn === 'jsonpatch.escapeKey' || fn === 'replace' ||
    fn === 'split' || fn === 'join' || fn === 'find' || fn === 'findAll' || fn === 'ip' || fn === 'ip.isCanonical' || fn === 'containsIP' ||
    fn === 'containsCIDR' || fn === 'validate' || fn === '_==_' || AUTHZ_NOMINAL.has(fn) || TRAVERSALS.has(fn) || STRING_OPS.has(fn) ||
    NET_ACCESSORS.has(fn) || NOMINAL.has(fn) || PARSERS.has(fn)
  );
}

function selectorCost(length: SizeRange): SizeRange {
  const parse = factorR(length, F);
  const requirements = factorR(factorR(length, SELECTOR_LENGTH_TO_REQUIREMENTS), COST_PER_REQUIREMENT);
  return addR(addR(fixed(LIST_CREATE), parse), requirements);
}

function typeName(t: CelType): string {
  return t.kind === 'opaque' || t.kind === 'object' ? t.name : t.kind;
}

/**
 * The static estimate of one call, or undefined to leave it to cel-go. The
 * target is the receiver of a member call; global calls are priced from their
 * first argument as the API server does.
 */
export function estimateKubernetesCall(fn: string, overloadId: string, target: EstimateNode | undefined, args: EstimateNode[]): CallEstimate | undefined {
  if (fn === 'check') return { cost: fixed(350000) };
  if (AUTHZ_NOMINAL.has(fn) || NET_ACCESSORS.has(fn) || NOMINAL.has(fn)) return { cost: fixed(1) };
  if (fn === 'fieldSelector' || fn === 'labelSelector') return args.length === 1 ? { cost: selectorCost(args[0]!.size()) } : undefined;
  if (TRAVERSALS.has(fn)) {
    if (!target) return undefined;
    if (target.type.kind === 'list') {
      let el = fixed(1);
      const k = target.type.elem.kind;
      if (k === 'string' || k === 'bytes') el = addR(el, factorR(target.elementSize(), F));
      return { cost: mulR(target.size(), el) };
    }
    return { cost: factorR(target.size(), F) };
  }
  if (fn === 'url' || fn === 'jsonpatch.escapeKey') {
    if (args.length !== 1) return undefined;
    const sz = args[0]!.size();
    return { cost: factorR(sz, F), resultSize: sz };
  }
  if (STRING_OPS.has(fn)) {
    if (!target) return undefined;
    const sz = target.size();
    return { cost: factorR(sz, F), resultSize: sz };
  }
  if (fn === 'replace') return target && args.length >= 2 ? estimateReplace(target.size(), args[0]!.size(), args[1]!.size()) : undefined;
  if (fn === 'split') {
    if (!target) return undefined;
    const sz = target.size();
    let max = sz.max;
    const limit = args[1]?.expr;
    if (limit?.kind === 'const' && typeof limit.value === 'bigint') max = Number(limit.value);
    return { cost: factorR(sz, 2 * F), resultSize: range(0, max) };
  }
  if (fn === 'join') {
    if (!target) return undefined;
    const list = target.size();
    let sz = target.type.kind === 'list' ? mulR(list, target.elementSize()) : fixed(0);
    if (args.length > 0) {
      const separators = range(list.min > 0 ? list.min - 1 : 0, list.max > 0 && list.max < UNBOUNDED ? list.max - 1 : list.max);
      sz = addR(sz, mulR(args[0]!.size(), separators));
    }
    return { cost: factorR(sz, F), resultSize: sz };
  }
  if (fn === 'find' || fn === 'findAll') {
    if (!target || args.length < 1) return undefined;
    const sz = target.size();
    const str = factorR(addR(sz, fixed(1)), F);
    const re = factorR(args[0]!.size(), REGEX_LENGTH_FACTOR);
    return { cost: mulR(str, re), resultSize: range(0, sz.max) };
  }
  const first = args[0];
  if (PARSERS.has(fn)) return first ? { cost: factorR(first.size(), F) } : undefined;
  if (fn === 'ip') {
    if (overloadId === 'cidr_ip' || !first || target) return { cost: fixed(1) };
    return { cost: factorR(first.size(), F) };
  }
  if (fn === 'ip.isCanonical') return first ? { cost: factorR(first.size(), 2 * F) } : undefined;
  if (fn === 'containsIP' || fn === 'containsCIDR') {
    if (!target || args.length < 1) return undefined;
    // byte lists of 4 (IPv4) or 16 (IPv6) bytes are compared
    const bytes = range(4, 16);
    let cost = factorR(addR(bytes, bytes), F);
    if (fn === 'containsCIDR') cost = addR(addR(cost, factorR(bytes, F)), fixed(1));
    if (overloadId === 'cidr_contains_ip_string' || overloadId === 'cidr_contains_cidr_string') cost = addR(cost, factorR(args[0]!.size(), F));
    return { cost };
  }
  if (fn === 'validate') return target && first ? { cost: factorR(factorR(first.size(), F), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH_FACTOR) } : undefined;
  if (fn === '_==_' && args.length === 2) {
    const [l, r] = args as [EstimateNode, EstimateNode];
    const name = typeName(l.type);
    if (name !== typeName(r.type)) return undefined;
    if (UNIT_EQUALITY.has(name)) return { cost: fixed(1) };
    if (name === 'kubernetes.NamedFormat') return { cost: factorR(range(1, MAX_FORMAT_SIZE), F) };
    if (name === 'kubernetes.URL') {
      // the API server sizes both sides from the right-hand operand
      const size = r.computedSize?.() ?? fixed(1);
      return { cost: factorR(range(1, size.max), F) };
    }
  }
  return undefined;
}

function estimateReplace(sz: SizeRange, toReplace: SizeRange, replaceWith: SizeRange): CallEstimate {
  const count = { min: 0, max: 0 };
  const retained = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    // replacing "" surrounds every character with the replacement
    count.max = sz.max < UNBOUNDED ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = Math.ceil(sz.max / toReplace.min);
  }
  if (toReplace.max === 0) {
    count.min = sz.min < UNBOUNDED ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = Math.ceil(sz.min / toReplace.max);
  }
  const size = addR(mulR(range(count.min, count.max), replaceWith), range(retained.min, retained.max));
  return { cost: factorR(sz, 2 * F), resultSize: size };
}

// ---- runtime ----

const ceilF = (n: number, f: number): number => Math.ceil(n * f);

/** Size of a runtime value as the API server's types report it (an IP its bytes, a CIDR its prefix bytes). */
function sizeOf(v: CelValue): number {
  if (v instanceof CelCIDR) return Math.ceil(v.prefix / 8);
  if (v instanceof CelIP) return v.bytes.length;
  return actualSize(v);
}

/** The API server's traversalCost: strings (UTF-8 bytes, as Go's len) and bytes by length (truncated), containers by their contents, anything else 1. */
export function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.floor(utf8Length(v) * F);
  if (v instanceof Uint8Array) return Math.floor(v.length * F);
  if (Array.isArray(v)) {
    let c = 0;
    for (const x of v) c += traversalCost(x);
    return c;
  }
  if (v instanceof CelMap) {
    let c = 0;
    for (const [, [k, x]] of v.entries) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  if (isPlainObject(v)) {
    let c = 0;
    for (const k of Object.keys(v)) c += traversalCost(k) + traversalCost(v[k] as CelValue);
    return c;
  }
  return 1;
}

/**
 * The runtime cost of one call (args with the receiver first), or undefined
 * to leave it to cel-go.
 */
export function kubernetesCallCost(fn: string, overloadId: string, args: CelValue[], result: CelValue): number | undefined {
  if (fn === 'check') return 350000;
  if (AUTHZ_NOMINAL.has(fn) || NET_ACCESSORS.has(fn) || NOMINAL.has(fn)) return 1;
  const a0 = args[0];
  if (fn === 'fieldSelector' || fn === 'labelSelector') return args.length >= 2 ? selectorCost(fixed(sizeOf(args[1]!))).max : undefined;
  if (TRAVERSALS.has(fn)) return a0 === undefined ? 0 : traversalCost(a0);
  if (a0 === undefined) return undefined;
  if (fn === 'url' || fn === 'jsonpatch.escapeKey' || STRING_OPS.has(fn) || PARSERS.has(fn)) return ceilF(sizeOf(a0), F);
  if (fn === 'replace' || fn === 'split') return ceilF(sizeOf(a0), 2 * F);
  if (fn === 'join') return ceilF(sizeOf(result), 2 * F);
  if (fn === 'find' || fn === 'findAll') return args.length >= 2 ? ceilF(1 + sizeOf(a0), F) * ceilF(sizeOf(args[1]!), REGEX_LENGTH_FACTOR) : undefined;
  if (fn === 'ip') return overloadId === 'cidr_ip' ? 1 : ceilF(sizeOf(a0), F);
  if (fn === 'ip.isCanonical') return ceilF(sizeOf(a0), 2 * F);
  if (fn === 'containsIP' || fn === 'containsCIDR') {
    if (args.length < 2) return undefined;
    const c = sizeOf(a0);
    let cost = ceilF(c + c, F);
    if (fn === 'containsCIDR') cost += ceilF(c, F) + 1;
    if (overloadId === 'cidr_contains_ip_string' || overloadId === 'cidr_contains_cidr_string') cost += ceilF(sizeOf(args[1]!), F);
    return cost;
  }
  if (fn === 'validate') {
    if (!(a0 instanceof CelFormat) || args.length < 2) return undefined;
    return ceilF(1 + sizeOf(args[1]!), F) * ceilF(a0.maxRegexSize, REGEX_LENGTH_FACTOR);
  }
  if (fn === '_==_' && args.length === 2 && a0 instanceof CelOpaque) return 1;
  return undefined;
}

/**
 * Prices an overload of a function the API server's estimator knows with its
 * figures, falling back to the overload's own (cel-go's) where it has none.
 */
export function kubernetesPricing(name: string, o: OverloadDecl): OverloadDecl {
  if (!kubernetesPrices(name)) return o;
  const { cost, estimate, id } = o;
  return {
    ...o,
    // equality keeps its own cost function (it charges Kubernetes types 1 itself): the planner specializes comparisons by it
    cost: name === '_==_' ? cost : (args, r) => kubernetesCallCost(name, id, args, r) ?? (cost ? cost(args, r) : 1),
    estimate: (t, a) => estimateKubernetesCall(name, id, t, a) ?? estimate?.(t, a),
  };
}

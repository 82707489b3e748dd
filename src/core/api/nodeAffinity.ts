/**
 * Node placement predicates a pod's spec states (component-helpers'
 * nodeaffinity and v1helper.ToleratesTaint): spec.nodeSelector, the required
 * node affinity, and tolerations against a node's taints. The scheduler and
 * the DaemonSet controller both judge nodes by them.
 */
import { isObject, objectsOf, type KubeObject } from './types';

type Obj = Record<string, unknown>;
const specOf = (obj: KubeObject): Obj => (isObject(obj['spec']) ? obj['spec'] : {});

/** v1helper.ToleratesTaint. */
export function tolerates(toleration: Obj, taint: Obj): boolean {
  if (toleration['effect'] && toleration['effect'] !== taint['effect']) return false;
  if (toleration['key'] !== undefined && toleration['key'] !== '' && toleration['key'] !== taint['key']) return false;
  const op = toleration['operator'] ?? 'Equal';
  if (op === 'Exists') return true;
  return op === 'Equal' && (toleration['value'] ?? '') === (taint['value'] ?? '');
}

/** nodeaffinity's NodeSelectorRequirement on labels (or on fields: only metadata.name). */
export function requirementMatches(req: Obj, values: Record<string, string>): boolean {
  const key = String(req['key'] ?? '');
  const have = values[key];
  const list = Array.isArray(req['values']) ? req['values'].map(String) : [];
  switch (req['operator']) {
    case 'In':
      return have !== undefined && list.includes(have);
    case 'NotIn':
      return have === undefined || !list.includes(have);
    case 'Exists':
      return have !== undefined;
    case 'DoesNotExist':
      return have === undefined;
    case 'Gt':
    case 'Lt': {
      if (have === undefined || list.length !== 1 || !/^-?\d+$/.test(have) || !/^-?\d+$/.test(list[0]!)) return false;
      const a = BigInt(have);
      const b = BigInt(list[0]!);
      return req['operator'] === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** NodeSelectorTerms are ORed, a term's requirements ANDed; a term with no requirement matches nothing. */
export function nodeSelectorMatches(terms: Obj[], node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  const fields = { 'metadata.name': node.metadata.name ?? '' };
  return terms.some((term) => {
    const exprs = objectsOf(term['matchExpressions']);
    const fieldExprs = objectsOf(term['matchFields']);
    if (!exprs.length && !fieldExprs.length) return false;
    return exprs.every((r) => requirementMatches(r, labels)) && fieldExprs.every((r) => requirementMatches(r, fields));
  });
}

/** The NodeAffinity filter: spec.nodeSelector and the required node affinity. */
export function affinityFits(pod: KubeObject, node: KubeObject): boolean {
  const spec = specOf(pod);
  const selector = isObject(spec['nodeSelector']) ? (spec['nodeSelector'] as Record<string, string>) : {};
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return false;
  const affinity = isObject(spec['affinity']) && isObject(spec['affinity']['nodeAffinity']) ? spec['affinity']['nodeAffinity'] : undefined;
  const required = affinity && isObject(affinity['requiredDuringSchedulingIgnoredDuringExecution']) ? affinity['requiredDuringSchedulingIgnoredDuringExecution'] : undefined;
  return !required || nodeSelectorMatches(objectsOf(required['nodeSelectorTerms']), node);
}

/** FindMatchingUntoleratedTaint: the first taint passing the filter that no toleration tolerates. */
export function untoleratedTaint(taints: Obj[], tolerations: Obj[], filter: (taint: Obj) => boolean): Obj | undefined {
  return taints.find((t) => filter(t) && !tolerations.some((tol) => tolerates(tol, t)));
}

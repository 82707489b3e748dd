/**
 * Node selector terms as component-helpers nodeaffinity matches them, for a
 * pod's required node affinity and a PersistentVolume's node affinity alike.
 */
import { isObject, type KubeObject } from '../api/types';

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** nodeaffinity's NodeSelectorRequirement on labels (or on fields: only metadata.name). */
function requirementMatches(req: Obj, values: Record<string, string>): boolean {
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
    const exprs = objects(term['matchExpressions']);
    const fieldExprs = objects(term['matchFields']);
    if (!exprs.length && !fieldExprs.length) return false;
    return exprs.every((r) => requirementMatches(r, labels)) && fieldExprs.every((r) => requirementMatches(r, fields));
  });
}

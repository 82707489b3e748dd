/**
 * Which requests an admission policy or binding applies to
 * (k8s.io/apiserver/pkg/admission/plugin/policy/matching): resource rules
 * (operations, groups, versions, resources with subresource wildcards,
 * resource names, scope), exclusions, and namespace and object label
 * selectors.
 */
import { isObject, type KubeObject } from '../api/types';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import type { AdmissionAttributes } from './attributes';

export interface NamedRuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: 'Exact' | 'Equivalent';
}

const has = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(patterns: string[] | undefined, resource: string, subresource: string): boolean {
  for (const p of patterns ?? []) {
    if (p === '*/*') return true;
    const [pr, ps] = p.split('/', 2) as [string, string | undefined];
    if (ps === undefined) {
      if (!subresource && (pr === '*' || pr === resource)) return true;
    } else if ((pr === '*' || pr === resource) && (ps === '*' || ps === subresource)) return true;
  }
  return false;
}

/**
 * One rule against the request (RuleWithOperations plus resourceNames).
 * `versions` are the versions the request may be seen in: its own, plus the
 * other served versions of the resource under matchPolicy Equivalent.
 */
export function ruleMatches(rule: NamedRuleWithOperations, a: AdmissionAttributes, versions: readonly string[] = [a.resource.version]): boolean {
  if (!has(rule.operations, a.operation)) return false;
  if (!has(rule.apiGroups, a.resource.group)) return false;
  if (!versions.some((v) => has(rule.apiVersions, v))) return false;
  if (!resourceMatches(rule.resources, a.resource.resource, a.subresource)) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && a.namespaced) return false;
  if (scope === 'Namespaced' && !a.namespaced) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(a.name)) return false;
  return true;
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj && isObject(obj.metadata) ? obj.metadata.labels : undefined;
}

function selectorMatches(selector: LabelSelectorObject | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  const s = labelSelectorFromObject(selector);
  if (isSelectorError(s)) return false;
  return s.matches(labels ?? {});
}

/**
 * Whether the constraints select the request. A missing resourceRules list
 * matches nothing (a binding's matchResources without rules defers to the policy).
 */
export function matches(m: MatchResources, a: AdmissionAttributes, namespaceObject: KubeObject | undefined, rulesRequired: boolean, equivalentVersions: readonly string[] = []): boolean {
  // Equivalent (the default) also matches the same resource requested in another version.
  const versions = m.matchPolicy === 'Exact' ? [a.resource.version] : [a.resource.version, ...equivalentVersions];
  if (m.resourceRules?.length || rulesRequired) {
    if (!(m.resourceRules ?? []).some((r) => ruleMatches(r, a, versions))) return false;
  }
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, a, versions))) return false;
  // Namespaces are selected by their own labels; cluster-scoped resources by any namespace selector.
  if (a.resource.group === '' && a.resource.resource === 'namespaces') {
    if (!selectorMatches(m.namespaceSelector, labelsOf(a.object ?? a.oldObject))) return false;
  } else if (a.namespaced && !selectorMatches(m.namespaceSelector, labelsOf(namespaceObject))) return false;
  if (m.objectSelector) {
    const objMatch = a.object ? selectorMatches(m.objectSelector, labelsOf(a.object)) : false;
    const oldMatch = a.oldObject ? selectorMatches(m.objectSelector, labelsOf(a.oldObject)) : false;
    if (!objMatch && !oldMatch) return false;
  }
  return true;
}

/**
 * Rule and subject matching (k8s.io/component-helpers/auth/rbac, plugin/pkg/auth/authorizer/rbac):
 * `*` matches every verb, group, resource and URL; `*\/sub` every resource's
 * sub-resource; a nonResourceURL ending in `*` is a prefix; resourceNames
 * restrict only requests that name an object (so never create or deletecollection).
 */
import { goQuote } from '../../errors';
import type { Attributes } from '../authorizer/types';
import type { UserInfo } from '../user';
import type { PolicyRule, Subject } from './types';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

const serviceAccountPrefix = 'system:serviceaccount:';

/** The subject index that applies to the user, or -1. A ServiceAccount subject without namespace means the binding's. */
export function subjectIndexFor(user: UserInfo, subjects: readonly Subject[] | null | undefined, namespace: string): number {
  if (!subjects) return -1;
  for (let i = 0; i < subjects.length; i++) {
    const s = subjects[i]!;
    switch (s.kind) {
      case 'User':
        if (user.username === s.name) return i;
        break;
      case 'Group':
        if (user.groups.includes(s.name)) return i;
        break;
      case 'ServiceAccount': {
        const ns = s.namespace || namespace;
        if (ns && user.username === `${serviceAccountPrefix}${ns}:${s.name}`) return i;
        break;
      }
    }
  }
  return -1;
}

/** describeSubject: `User "alice"`, `ServiceAccount "sa/ns"`. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** CompactString as upstream prints a rule in escalation errors: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function describeRule(rule: PolicyRule): string {
  const q = (xs: string[]) => `[${xs.map(goQuote).join(' ')}]`;
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${q(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${q(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${q(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

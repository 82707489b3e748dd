/**
 * Admission policies and their bindings: the v1 defaults
 * (pkg/apis/admissionregistration/v1 SetDefaults_ValidatingAdmissionPolicySpec,
 * SetDefaults_MutatingAdmissionPolicySpec, SetDefaults_MatchResources and
 * SetDefaults_Rule, as the generated defaulters walk them), which decoding
 * runs on every write.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultRule } from './webhooks';

/** SetDefaults_MatchResources: Equivalent matching, selectors matching everything; and each rule's scope. */
function defaultMatchResources(match: unknown): void {
  if (!isObject(match)) return;
  match['matchPolicy'] ??= 'Equivalent';
  match['namespaceSelector'] ??= {};
  match['objectSelector'] ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    if (Array.isArray(match[key])) for (const rule of match[key]) if (isObject(rule)) defaultRule(rule);
  }
}

/** A policy (Validating or Mutating): its spec's failurePolicy Fail, and its matchConstraints' defaults. */
function defaultPolicy(obj: KubeObject): void {
  const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  spec['failurePolicy'] ??= 'Fail';
  defaultMatchResources(spec['matchConstraints']);
}

/** A binding: its matchResources' defaults. */
function defaultBinding(obj: KubeObject): void {
  if (isObject(obj['spec'])) defaultMatchResources(obj['spec']['matchResources']);
}

/** Validating and mutating policies default alike. */
export const admissionPolicyDefaults: Partial<ResourceStrategy> = { defaulter: defaultPolicy };
export const admissionPolicyBindingDefaults: Partial<ResourceStrategy> = { defaulter: defaultBinding };

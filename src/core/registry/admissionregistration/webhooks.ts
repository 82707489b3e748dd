/**
 * Validating and mutating webhook configurations: the v1 defaults
 * (k8s.io/api/admissionregistration/v1 SetDefaults_*), the defaulter decoding
 * runs on every write: failurePolicy Fail, matchPolicy
 * Equivalent, empty namespace and object selectors, timeoutSeconds 10, rule
 * scope "*", service port 443, and for mutating webhooks reinvocationPolicy
 * Never. (v1beta1 defaulted Ignore, Exact and 30s.)
 */
import type { KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SetDefaults_Rule: a rule without a scope matches both cluster- and namespace-scoped resources. */
export function defaultRule(rule: Obj): void {
  rule['scope'] ??= '*';
}

function defaultWebhook(w: Obj, mutating: boolean): void {
  w['failurePolicy'] ??= 'Fail';
  w['matchPolicy'] ??= 'Equivalent';
  w['namespaceSelector'] ??= {};
  w['objectSelector'] ??= {};
  w['timeoutSeconds'] ??= 10;
  if (mutating) w['reinvocationPolicy'] ??= 'Never';
  for (const rule of Array.isArray(w['rules']) ? w['rules'] : []) if (isObj(rule)) defaultRule(rule);
  const service = isObj(w['clientConfig']) ? w['clientConfig']['service'] : undefined;
  if (isObj(service)) service['port'] ??= 443;
}

function webhookDefaults(mutating: boolean): Partial<ResourceStrategy> {
  const apply = (obj: KubeObject) => {
    for (const w of Array.isArray(obj['webhooks']) ? obj['webhooks'] : []) if (isObj(w)) defaultWebhook(w, mutating);
  };
  return { defaulter: apply };
}

export const validatingWebhookConfigurationStrategy = webhookDefaults(false);
export const mutatingWebhookConfigurationStrategy = webhookDefaults(true);

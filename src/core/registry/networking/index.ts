/** networking.k8s.io (pkg/apis/networking/v1/defaults.go): the scheme's defaults for NetworkPolicies and IngressClasses. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

const rules = (spec: Record<string, unknown>, key: 'ingress' | 'egress'): unknown[] => (Array.isArray(spec[key]) ? spec[key] : []);

/**
 * SetDefaults_NetworkPolicy: no policyTypes means Ingress, and Egress too when
 * there are egress rules; SetDefaults_NetworkPolicyPort: a port without a
 * protocol is TCP.
 */
function defaultNetworkPolicy(obj: KubeObject): void {
  const spec = obj['spec'];
  if (!isObject(spec)) return;
  for (const rule of [...rules(spec, 'ingress'), ...rules(spec, 'egress')]) {
    if (!isObject(rule) || !Array.isArray(rule['ports'])) continue;
    for (const port of rule['ports']) if (isObject(port) && (port['protocol'] === undefined || port['protocol'] === null)) port['protocol'] = 'TCP';
  }
  if (!Array.isArray(spec['policyTypes']) || spec['policyTypes'].length === 0) spec['policyTypes'] = impliedPolicyTypes(spec);
}

/** The policyTypes a spec without them has: Ingress, and Egress too when there are egress rules. */
export function impliedPolicyTypes(spec: Record<string, unknown>): string[] {
  return rules(spec, 'egress').length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** SetDefaults_IngressClass: parameters without a scope refer to a cluster-scoped resource. */
function defaultIngressClass(obj: KubeObject): void {
  const parameters = isObject(obj['spec']) ? obj['spec']['parameters'] : undefined;
  if (isObject(parameters) && (parameters['scope'] === undefined || parameters['scope'] === null)) parameters['scope'] = 'Cluster';
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  networkpolicies: { defaulter: defaultNetworkPolicy },
  ingressclasses: { defaulter: defaultIngressClass },
};

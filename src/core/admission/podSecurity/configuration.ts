/**
 * PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1, as the
 * PodSecurity entry of kube-apiserver's --admission-control-config-file
 * carries it): the policy of namespaces without labels, and the exempt
 * users, namespaces and runtime classes. Unset defaults are
 * privileged:latest; an invalid configuration stops the server, as it stops
 * kube-apiserver.
 */
import { defaultPolicy, parseLevel, parseVersion, type Policy } from './api';
import type { Exemptions } from './admission';

export interface PodSecurityConfiguration {
  defaults: Policy;
  exemptions: Exemptions;
}

const groupVersions = ['pod-security.admission.config.k8s.io/v1', 'pod-security.admission.config.k8s.io/v1beta1', 'pod-security.admission.config.k8s.io/v1alpha1'];

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and validates one PodSecurityConfiguration object; throws an Error listing every invalid field. */
export function parsePodSecurityConfiguration(raw: unknown): PodSecurityConfiguration {
  if (!isRecord(raw)) throw new Error('PodSecurityConfiguration: expected an object');
  const apiVersion = raw['apiVersion'];
  if (typeof apiVersion !== 'string' || !groupVersions.includes(apiVersion) || raw['kind'] !== 'PodSecurityConfiguration') {
    throw new Error(`PodSecurity configuration: expected apiVersion ${groupVersions[0]} and kind PodSecurityConfiguration, got ${String(apiVersion)}, ${String(raw['kind'])}`);
  }
  const errors: string[] = [];
  const defaults: Policy = { enforce: { ...defaultPolicy.enforce }, audit: { ...defaultPolicy.audit }, warn: { ...defaultPolicy.warn } };
  const given = isRecord(raw['defaults']) ? raw['defaults'] : {};
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const level = given[mode];
    if (level !== undefined) {
      const parsed = typeof level === 'string' ? parseLevel(level) : undefined;
      if (parsed) defaults[mode].level = parsed;
      else errors.push(`defaults.${mode}: Invalid value: ${JSON.stringify(level)}: must be one of privileged, baseline, restricted`);
    }
    const version = given[`${mode}-version`];
    if (version !== undefined) {
      const parsed = typeof version === 'string' ? parseVersion(version) : undefined;
      if (parsed) defaults[mode].version = parsed;
      else errors.push(`defaults.${mode}-version: Invalid value: ${JSON.stringify(version)}: must be "latest" or "v1.x"`);
    }
  }
  const rawExemptions = isRecord(raw['exemptions']) ? raw['exemptions'] : {};
  const list = (field: 'usernames' | 'namespaces' | 'runtimeClasses', valid: (v: string) => string | undefined): string[] => {
    const values = rawExemptions[field] ?? [];
    if (!Array.isArray(values)) {
      errors.push(`exemptions.${field}: Invalid value: must be a list of strings`);
      return [];
    }
    const seen = new Set<string>();
    values.forEach((v, i) => {
      const problem = typeof v !== 'string' ? 'must be a string' : valid(v) ?? (seen.has(v) ? 'duplicate' : undefined);
      if (problem) errors.push(`exemptions.${field}[${i}]: Invalid value: ${JSON.stringify(v)}: ${problem}`);
      if (typeof v === 'string') seen.add(v);
    });
    return values.filter((v): v is string => typeof v === 'string');
  };
  const exemptions: Exemptions = {
    usernames: list('usernames', (v) => (v.trim() === '' ? 'must be non-empty' : undefined)),
    namespaces: list('namespaces', (v) => (dns1123Label.test(v) && v.length <= 63 ? undefined : 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character')),
    runtimeClasses: list('runtimeClasses', (v) => (dns1123Subdomain.test(v) && v.length <= 253 ? undefined : 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character')),
  };
  if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return { defaults, exemptions };
}

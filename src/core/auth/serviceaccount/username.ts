/**
 * Service account identities (k8s.io/apiserver/pkg/authentication/serviceaccount):
 * user `system:serviceaccount:<ns>:<name>`, groups `system:serviceaccounts`
 * and `system:serviceaccounts:<ns>`.
 */
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names';

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const allServiceAccountsGroup = 'system:serviceaccounts';

export function makeUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

export function makeGroupNames(namespace: string): string[] {
  return [allServiceAccountsGroup, `${allServiceAccountsGroup}:${namespace}`];
}

/** The namespace and name of a service account user name; undefined when it is not one. */
export function splitUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

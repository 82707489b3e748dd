/**
 * Bootstrap tokens (plugin/pkg/auth/authenticator/token/bootstrap):
 * `<id>.<secret>` is looked up as Secret `bootstrap-token-<id>` in
 * kube-system, of type bootstrap.kubernetes.io/token, usable for
 * authentication, unexpired; the user is `system:bootstrap:<id>` in
 * `system:bootstrappers` plus the Secret's auth-extra-groups. A token that
 * fails any check is not recognised (the bearer filter then answers 401).
 */
import type { KubeObject } from '../../api/types';
import type { Clock } from '../../util/clock';
import { constantTimeEqual } from './constantTime';
import type { AuthenticationOutcome, TokenAuthenticator } from './types';

export const bootstrapTokenType = 'bootstrap.kubernetes.io/token';
export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';
const tokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const extraGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** A data value of the Secret, decoded ('' when absent). */
export function secretData(secret: KubeObject, key: string): string {
  const data = secret['data'] as Record<string, string> | undefined;
  const v = data?.[key];
  if (typeof v !== 'string') return '';
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(v), (c) => c.charCodeAt(0)));
  } catch {
    return '';
  }
}

/** Whether the Secret's expiration has passed; an unparsable one counts as expired. */
export function bootstrapTokenExpired(secret: KubeObject, now: Date): boolean {
  const expiration = secretData(secret, 'expiration');
  if (!expiration) return false;
  // RFC 3339 as Go's time.RFC3339 parses it.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(expiration)) return true;
  const t = Date.parse(expiration);
  return Number.isNaN(t) || now.getTime() > t;
}

/** system:bootstrappers plus auth-extra-groups; undefined when one is not a system:bootstrappers: group. */
export function bootstrapGroups(secret: KubeObject): string[] | undefined {
  const groups = [bootstrapDefaultGroup];
  const extra = secretData(secret, 'auth-extra-groups');
  if (!extra) return groups;
  for (const raw of extra.split(',')) {
    const g = raw.trim();
    if (!extraGroupPattern.test(g)) return undefined;
    if (!groups.includes(g)) groups.push(g);
  }
  return groups;
}

export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = tokenPattern.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export function bootstrapTokenAuthenticator(getSecret: (namespace: string, name: string) => Promise<KubeObject | undefined>, clock: Clock): TokenAuthenticator {
  return {
    name: 'bootstrap-token',
    async authenticateToken(token): Promise<AuthenticationOutcome> {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return { kind: 'none' };
      const secret = await getSecret('kube-system', bootstrapTokenSecretPrefix + parsed.id);
      if (!secret || secret.metadata.deletionTimestamp || secret['type'] !== bootstrapTokenType || !secret['data']) return { kind: 'none' };
      if (!constantTimeEqual(secretData(secret, 'token-secret'), parsed.secret)) return { kind: 'none' };
      if (secretData(secret, 'token-id') !== parsed.id) return { kind: 'none' };
      if (bootstrapTokenExpired(secret, clock.now())) return { kind: 'none' };
      if (secretData(secret, 'usage-bootstrap-authentication') !== 'true') return { kind: 'none' };
      const groups = bootstrapGroups(secret);
      if (!groups) return { kind: 'none' };
      return { kind: 'authenticated', authenticator: 'bootstrap-token', response: { user: { username: bootstrapUserPrefix + parsed.id, groups } } };
    },
  };
}

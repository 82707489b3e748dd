/**
 * Service account token claims (pkg/serviceaccount/claims.go, legacy.go):
 * bound tokens carry audiences, expiry and a `kubernetes.io` claim naming the
 * account and the Pod or Secret they are bound to; legacy Secret tokens carry
 * flat `kubernetes.io/serviceaccount/*` claims, no audience and no expiry.
 */
import { makeUsername } from './username';

export const legacyIssuer = 'kubernetes/serviceaccount';

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface BoundClaims {
  iss: string;
  sub: string;
  aud: string[];
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: ObjectRef;
    pod?: ObjectRef;
    secret?: ObjectRef;
    node?: ObjectRef;
    warnafter?: number;
  };
}

export interface LegacyClaims {
  iss: typeof legacyIssuer;
  sub: string;
  'kubernetes.io/serviceaccount/namespace': string;
  'kubernetes.io/serviceaccount/secret.name': string;
  'kubernetes.io/serviceaccount/service-account.name': string;
  'kubernetes.io/serviceaccount/service-account.uid': string;
}

export interface BoundTokenRequest {
  issuer: string;
  namespace: string;
  serviceAccount: ObjectRef;
  audiences: string[];
  expirationSeconds: number;
  now: Date;
  jti: string;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

export function boundClaims(r: BoundTokenRequest): BoundClaims {
  const now = Math.floor(r.now.getTime() / 1000);
  const k8s: BoundClaims['kubernetes.io'] = { namespace: r.namespace, serviceaccount: r.serviceAccount };
  if (r.pod) k8s.pod = r.pod;
  else if (r.secret) k8s.secret = r.secret;
  if (r.node) k8s.node = r.node;
  return {
    aud: r.audiences, exp: now + r.expirationSeconds, iat: now, iss: r.issuer, jti: r.jti,
    'kubernetes.io': k8s, nbf: now, sub: makeUsername(r.namespace, r.serviceAccount.name),
  };
}

export function legacyClaims(namespace: string, serviceAccount: ObjectRef, secretName: string): LegacyClaims {
  return {
    iss: legacyIssuer,
    'kubernetes.io/serviceaccount/namespace': namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': serviceAccount.name,
    'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.uid,
    sub: makeUsername(namespace, serviceAccount.name),
  };
}

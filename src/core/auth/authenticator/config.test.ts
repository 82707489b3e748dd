/** AuthenticationConfiguration validation: the errors kube-apiserver reports at start. */
import { describe, expect, it } from 'vitest';
import { loadAuthenticationConfiguration, type AuthenticationConfiguration } from './config';
import type { JwtAuthenticatorConfig } from './jwt';

const jwt = (over: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig => ({
  issuer: { url: 'https://idp.example.com', audiences: ['a'] }, claimMappings: { username: { claim: 'sub', prefix: '' } }, ...over,
});
const file = (j: JwtAuthenticatorConfig[], extra: Partial<AuthenticationConfiguration> = {}) => ({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: j, ...extra });
const load = (o: unknown) => () => loadAuthenticationConfiguration(o, ['https://kubernetes.default.svc.cluster.local']);

describe('AuthenticationConfiguration validation', () => {
  it('[AC-AUTHN-070] another kind is refused', () => {
    expect(load({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration' })).toThrow('no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme');
  });

  it('[AC-AUTHN-071] [AC-LIM-002] at most 64 authenticators', () => {
    const many = Array.from({ length: 65 }, (_, i) => jwt({ issuer: { url: `https://idp${i}.example.com`, audiences: ['a'] } }));
    expect(load(file(many))).toThrow('jwt: Too many: must have at most 64 items');
    expect(load(file(many.slice(0, 64)))).not.toThrow();
  });

  it('[AC-AUTHN-072] [AC-AUTHN-073] [AC-AUTHN-053] issuer urls: unique, not the service account issuer, https', () => {
    expect(load(file([jwt(), jwt()]))).toThrow('jwt[1].issuer.url: Duplicate value: "https://idp.example.com"');
    expect(load(file([jwt({ issuer: { url: 'https://kubernetes.default.svc.cluster.local', audiences: ['a'] } })]))).toThrow(/jwt\[0\]\.issuer\.url: Invalid value: "https:\/\/kubernetes.default.svc.cluster.local": URL must not overlap with disallowed issuers/);
    expect(load(file([jwt({ issuer: { url: 'http://idp', audiences: ['a'] } })]))).toThrow('jwt[0].issuer.url: Invalid value: "http://idp": URL scheme must be https');
  });

  it('[AC-AUTHN-075] [AC-AUTHN-080] [AC-AUTHN-081] discoveryURL differs from url; several audiences need MatchAny; egressSelectorType values', () => {
    expect(load(file([jwt({ issuer: { url: 'https://idp.example.com', discoveryURL: 'https://idp.example.com', audiences: ['a'] } })]))).toThrow('discoveryURL must be different from URL');
    expect(load(file([jwt({ issuer: { url: 'https://idp.example.com', audiences: ['a', 'b'] } })]))).toThrow('jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences');
    expect(load(file([jwt({ issuer: { url: 'https://idp.example.com', audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' } })]))).not.toThrow();
    expect(load(file([jwt({ issuer: { url: 'https://idp.example.com', audiences: ['a'], egressSelectorType: 'other' } })]))).toThrow('jwt[0].issuer.egressSelectorType: Invalid value: "other": egress selector must be either controlplane or cluster');
  });

  it('[AC-AUTHN-085] [AC-AUTHN-086] [AC-AUTHN-087] [AC-AUTHN-089] username mapping rules', () => {
    expect(load(file([jwt({ claimMappings: {} as JwtAuthenticatorConfig['claimMappings'] })]))).toThrow('jwt[0].claimMappings.username: Required value: claim or expression is required');
    expect(load(file([jwt({ claimMappings: { username: { claim: 'sub', expression: 'claims.sub' } } })]))).toThrow("claim and expression can't both be set");
    expect(load(file([jwt({ claimMappings: { username: { claim: 'sub' } } })]))).toThrow('jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
    expect(load(file([jwt({ claimMappings: { username: { expression: 'claims.email' } } })]))).toThrow(/claims.email_verified must be used/);
    expect(load(file([jwt({ claimMappings: { username: { expression: 'claims.email' } }, claimValidationRules: [{ expression: 'claims.email_verified == true' }] })]))).not.toThrow();
  });

  it('[AC-AUTHN-083] [AC-AUTHN-092] [AC-AUTHN-093] [AC-AUTHN-094] [AC-AUTHN-095] claim rules and extra keys', () => {
    expect(load(file([jwt({ claimValidationRules: [{ claim: 'hd', expression: 'true' }] })]))).toThrow("claim and expression can't both be set");
    const extra = (key: string) => file([jwt({ claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key, valueExpression: 'claims.sub' }] } })]);
    expect(load(extra('noslash'))).toThrow('must be a domain-prefixed path');
    expect(load(extra('example.com/Team'))).toThrow('key must be lowercase');
    expect(load(extra('kubernetes.io/foo'))).toThrow('reserved for Kubernetes use');
    expect(load(extra('example.com/team'))).not.toThrow();
    const dup = file([jwt({ claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'example.com/a', valueExpression: 'claims.sub' }, { key: 'example.com/a', valueExpression: 'claims.sub' }] } })]);
    expect(load(dup)).toThrow('jwt[0].claimMappings.extra[1].key: Duplicate value: "example.com/a"');
  });
});

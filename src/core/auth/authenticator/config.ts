/**
 * AuthenticationConfiguration (apiserver.config.k8s.io/v1, --authentication-config)
 * and its validation (k8s.io/apiserver/pkg/apis/apiserver/validation): the
 * errors are field errors, reported at start (the server exits) as upstream.
 */
import { duplicate, fieldErrorsAggregate, invalid, required, type FieldError } from '../../errors/fieldErrors';
import { isDNS1123Subdomain } from '../../validation/names';
import { compileAuthenticationExpression, type JwtAuthenticatorConfig } from './jwt';

export interface AuthenticationConfiguration {
  apiVersion: string;
  kind: string;
  jwt?: JwtAuthenticatorConfig[];
  anonymous?: { enabled: boolean; conditions?: { path: string }[] };
}

export const maxJwtAuthenticators = 64;


function validateUrl(field: string, value: string | undefined, errs: FieldError[]): void {
  if (!value) {
    errs.push(required(field));
    return;
  }
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    errs.push(invalid(field, value, 'must be a valid URL'));
    return;
  }
  if (u.protocol !== 'https:') errs.push(invalid(field, value, 'URL scheme must be https'));
  if (u.username || u.password) errs.push(invalid(field, value, 'URL must not contain a username or password'));
  if (u.search) errs.push(invalid(field, value, 'URL must not contain a query'));
  if (u.hash) errs.push(invalid(field, value, 'URL must not contain a fragment'));
}

function compiles(field: string, expression: string, errs: FieldError[]): void {
  try {
    compileAuthenticationExpression(expression);
  } catch (e) {
    errs.push(invalid(field, expression, `compilation failed: ${e instanceof Error ? e.message : String(e)}`));
  }
}

/** Gates the file's validation depends on: StructuredAuthenticationConfigurationEgressSelector (beta, on by default). */
export interface AuthenticationConfigurationGates {
  egressSelector?: boolean;
}

export function validateAuthenticationConfiguration(c: AuthenticationConfiguration, serviceAccountIssuers: readonly string[] = [], gates: AuthenticationConfigurationGates = {}): FieldError[] {
  const errs: FieldError[] = [];
  const jwt = c.jwt ?? [];
  if (jwt.length > maxJwtAuthenticators) errs.push({ type: 'FieldValueTooMany', field: 'jwt', detail: `must have at most ${maxJwtAuthenticators} items` });
  const urls = new Set<string>();
  const discoveryUrls = new Set<string>();
  jwt.forEach((a, i) => {
    const p = `jwt[${i}]`;
    const issuer = a.issuer ?? ({} as JwtAuthenticatorConfig['issuer']);
    validateUrl(`${p}.issuer.url`, issuer.url, errs);
    if (issuer.url) {
      if (urls.has(issuer.url)) errs.push(duplicate(`${p}.issuer.url`, issuer.url));
      urls.add(issuer.url);
      if (serviceAccountIssuers.includes(issuer.url)) errs.push(invalid(`${p}.issuer.url`, issuer.url, 'URL must not overlap with disallowed issuers: ' + JSON.stringify(serviceAccountIssuers)));
    }
    if (issuer.discoveryURL !== undefined) {
      validateUrl(`${p}.issuer.discoveryURL`, issuer.discoveryURL, errs);
      if (issuer.discoveryURL === issuer.url) errs.push(invalid(`${p}.issuer.discoveryURL`, issuer.discoveryURL, 'discoveryURL must be different from URL'));
      if (discoveryUrls.has(issuer.discoveryURL)) errs.push(duplicate(`${p}.issuer.discoveryURL`, issuer.discoveryURL));
      discoveryUrls.add(issuer.discoveryURL);
    }
    const auds = issuer.audiences ?? [];
    if (!auds.length) errs.push(required(`${p}.issuer.audiences`, 'at least one issuer.audiences is required'));
    if (auds.length > 1 && issuer.audienceMatchPolicy !== 'MatchAny') errs.push(invalid(`${p}.issuer.audienceMatchPolicy`, issuer.audienceMatchPolicy ?? '', 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    if (issuer.egressSelectorType) {
      const f = `${p}.issuer.egressSelectorType`;
      if (gates.egressSelector === false) errs.push(invalid(f, issuer.egressSelectorType, 'egress selector is not supported when StructuredAuthenticationConfigurationEgressSelector feature gate is disabled'));
      if (issuer.egressSelectorType !== 'controlplane' && issuer.egressSelectorType !== 'cluster') errs.push(invalid(f, issuer.egressSelectorType, 'egress selector must be either controlplane or cluster'));
    }
    const emailChecked = JSON.stringify([a.claimValidationRules ?? [], a.claimMappings?.extra ?? []]).includes('claims.email_verified');
    (a.claimValidationRules ?? []).forEach((r, j) => {
      const f = `${p}.claimValidationRules[${j}]`;
      if (r.claim && r.expression) errs.push(invalid(`${f}`, r.claim, 'claim and expression can\'t both be set'));
      else if (!r.claim && !r.expression) errs.push(required(f, 'claim or expression is required'));
      if (r.expression) compiles(`${f}.expression`, r.expression, errs);
    });
    const m = a.claimMappings ?? ({} as JwtAuthenticatorConfig['claimMappings']);
    const u = m.username ?? {};
    const uf = `${p}.claimMappings.username`;
    if (u.claim && u.expression) errs.push(invalid(uf, '', 'claim and expression can\'t both be set'));
    else if (!u.claim && !u.expression) errs.push(required(uf, 'claim or expression is required'));
    if (u.claim && u.prefix === undefined) errs.push(required(`${uf}.prefix`, 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
    if (u.expression) {
      if (u.prefix !== undefined) errs.push(invalid(`${uf}.prefix`, u.prefix, 'prefix can\'t be set when expression is set'));
      compiles(`${uf}.expression`, u.expression, errs);
      if (u.expression.includes('claims.email') && !u.expression.includes('claims.email_verified') && !emailChecked) {
        errs.push(invalid(`${uf}.expression`, u.expression, 'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression'));
      }
    }
    if (m.groups?.claim && m.groups.expression) errs.push(invalid(`${p}.claimMappings.groups`, '', 'claim and expression can\'t both be set'));
    if (m.groups?.expression) compiles(`${p}.claimMappings.groups.expression`, m.groups.expression, errs);
    if (m.uid?.claim && m.uid.expression) errs.push(invalid(`${p}.claimMappings.uid`, '', 'claim and expression can\'t both be set'));
    if (m.uid?.expression) compiles(`${p}.claimMappings.uid.expression`, m.uid.expression, errs);
    const keys = new Set<string>();
    (m.extra ?? []).forEach((e, j) => {
      const f = `${p}.claimMappings.extra[${j}]`;
      const slash = e.key.indexOf('/');
      if (!e.key) errs.push(required(`${f}.key`));
      else if (slash < 1 || isDNS1123Subdomain(e.key.slice(0, slash)).length) errs.push(invalid(`${f}.key`, e.key, 'must be a domain-prefixed path (such as "acme.io/foo")'));
      else if (/[A-Z]/.test(e.key)) errs.push(invalid(`${f}.key`, e.key, 'key must be lowercase'));
      else {
        const domain = e.key.slice(0, slash);
        if (domain === 'kubernetes.io' || domain === 'k8s.io' || domain.endsWith('.kubernetes.io') || domain.endsWith('.k8s.io')) errs.push(invalid(`${f}.key`, e.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
      }
      if (keys.has(e.key)) errs.push(duplicate(`${f}.key`, e.key));
      keys.add(e.key);
      if (!e.valueExpression) errs.push(required(`${f}.valueExpression`, 'valueExpression is required'));
      else compiles(`${f}.valueExpression`, e.valueExpression, errs);
    });
    (a.userValidationRules ?? []).forEach((r, j) => {
      if (!r.expression) errs.push(required(`${p}.userValidationRules[${j}].expression`, 'expression is required'));
      else compiles(`${p}.userValidationRules[${j}].expression`, r.expression, errs);
    });
  });
  if (c.anonymous && !c.anonymous.enabled && c.anonymous.conditions?.length) errs.push(invalid('anonymous.conditions', c.anonymous.conditions, 'enabled should be set to true when conditions are defined'));
  return errs;
}

/** Parses and validates the file's object; throws the aggregated field errors. */
export function loadAuthenticationConfiguration(obj: unknown, serviceAccountIssuers: readonly string[] = [], gates: AuthenticationConfigurationGates = {}): AuthenticationConfiguration {
  const c = (obj ?? {}) as AuthenticationConfiguration;
  if (c.apiVersion !== 'apiserver.config.k8s.io/v1' && c.apiVersion !== 'apiserver.config.k8s.io/v1beta1' && c.apiVersion !== 'apiserver.config.k8s.io/v1alpha1') {
    throw new Error(`no kind "${c.kind}" is registered for version "${c.apiVersion}" in scheme`);
  }
  if (c.kind !== 'AuthenticationConfiguration') throw new Error(`no kind "${c.kind}" is registered for version "${c.apiVersion}" in scheme`);
  const errs = validateAuthenticationConfiguration(c, serviceAccountIssuers, gates);
  if (errs.length) throw new Error(fieldErrorsAggregate(errs));
  return c;
}

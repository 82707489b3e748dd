// Kubernetes authorizer library. The authorizer is injected; checks cost a
// fixed 350000 units (so at most two fit in one expression), builders 1.

import { CelOpaque, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { SelectorError, parseFieldSelector, parseLabelSelector, type FieldRequirement, type LabelRequirement } from '../../../selectors';

/** Attributes handed to the injected authorizer (authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** the parsed fieldSelector(); a parse error is handed to the authorizer instead, as the API server does */
  fieldSelectorRequirements?: readonly FieldRequirement[];
  fieldSelectorParsingError?: string;
  /** the parsed labelSelector() */
  labelSelectorRequirements?: readonly LabelRequirement[];
  labelSelectorParsingError?: string;
}

export interface AuthorizationDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason: string;
  error?: string;
}

/** What the environment needs from the API server's authorizer chain. */
export interface CelAuthorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
}

/** Authorizer values compare by identity, as cel-go's opaque authorizer types do. */
abstract class AuthzOpaque extends CelOpaque {
  equal(o: CelValue): boolean {
    return o === this;
  }
}

export class AuthorizerValue extends AuthzOpaque {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly user: AuthorizationAttributes['user'],
  ) {
    super();
  }
}

class PathCheck extends AuthzOpaque {
  readonly typeName = 'kubernetes.authorization.PathCheck';
  constructor(
    readonly az: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
}

class GroupCheck extends AuthzOpaque {
  readonly typeName = 'kubernetes.authorization.GroupCheck';
  constructor(
    readonly az: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
}

class ResourceCheck extends AuthzOpaque {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';
  constructor(
    readonly az: AuthorizerValue,
    readonly attrs: Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest'>,
  ) {
    super();
  }
  with(patch: Partial<AuthorizationAttributes>): ResourceCheck {
    return new ResourceCheck(this.az, { ...this.attrs, ...patch });
  }
}

/** The `authorizer.requestResource` of an admission request: a check of the request's own resource. */
export function requestResourceCheck(az: AuthorizerValue, attrs: Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest'>): CelValue {
  return new ResourceCheck(az, attrs);
}

export class DecisionValue extends AuthzOpaque {
  readonly typeName = 'kubernetes.authorization.Decision';
  constructor(readonly d: AuthorizationDecision) {
    super();
  }
}

/** Parses the selectors of a check like the API server's resource check: errors go to the authorizer, not to CEL. */
function withSelectors(attrs: Omit<AuthorizationAttributes, 'user'>): Omit<AuthorizationAttributes, 'user'> {
  const out = { ...attrs };
  if (attrs.fieldSelector) {
    const f = parseFieldSelector(attrs.fieldSelector);
    if (f instanceof SelectorError) out.fieldSelectorParsingError = f.message;
    else out.fieldSelectorRequirements = f.requirements;
  }
  if (attrs.labelSelector) {
    const l = parseLabelSelector(attrs.labelSelector);
    if (l instanceof SelectorError) out.labelSelectorParsingError = l.message;
    else out.labelSelectorRequirements = l.requirements;
  }
  return out;
}

function decide(az: AuthorizerValue, attrs: Omit<AuthorizationAttributes, 'user'>): DecisionValue {
  try {
    return new DecisionValue(az.authorizer.authorize({ ...attrs, user: az.user }));
  } catch (e) {
    return new DecisionValue({ decision: 'noOpinion', reason: '', error: String((e as Error).message ?? e) });
  }
}

export function serviceAccountUser(namespace: string, name: string): AuthorizationAttributes['user'] {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

export function k8sAuthzLibrary(opts: { selectors?: boolean } = { selectors: true }): Library {
  const A = 'kubernetes.authorization.Authorizer';
  const R = 'kubernetes.authorization.ResourceCheck';
  const D = 'kubernetes.authorization.Decision';
  const one = { cost: () => 1, estimate: () => ({ cost: { min: 1, max: 1 } }) };
  const check = { cost: () => 350000, estimate: () => ({ cost: { min: 350000, max: 350000 } }) };
  const rc = (v: CelValue): ResourceCheck => v as ResourceCheck;
  const dv = (v: CelValue): AuthorizationDecision => (v as DecisionValue).d;
  const ov = [
    def('authorizer_path', `${A}.path(string) -> kubernetes.authorization.PathCheck`, (a, p) => new PathCheck(a as AuthorizerValue, p as string), one),
    def('authorizer_group', `${A}.group(string) -> kubernetes.authorization.GroupCheck`, (a, g) => new GroupCheck(a as AuthorizerValue, g as string), one),
    def('authorizer_serviceaccount', `${A}.serviceAccount(string, string) -> ${A}`, (a, ns, n) => new AuthorizerValue((a as AuthorizerValue).authorizer, serviceAccountUser(ns as string, n as string)), one),
    def('groupcheck_resource', `kubernetes.authorization.GroupCheck.resource(string) -> ${R}`, (g, r) => new ResourceCheck((g as GroupCheck).az, { apiGroup: (g as GroupCheck).group, resource: r as string }), one),
    def('resourcecheck_subresource', `${R}.subresource(string) -> ${R}`, (c, v) => rc(c).with({ subresource: v as string }), one),
    def('resourcecheck_namespace', `${R}.namespace(string) -> ${R}`, (c, v) => rc(c).with({ namespace: v as string }), one),
    def('resourcecheck_name', `${R}.name(string) -> ${R}`, (c, v) => rc(c).with({ name: v as string }), one),
    def('pathcheck_check', `kubernetes.authorization.PathCheck.check(string) -> ${D}`, (p, verb) => decide((p as PathCheck).az, { verb: (verb as string).toLowerCase(), resourceRequest: false, path: (p as PathCheck).path }), check),
    def('resourcecheck_check', `${R}.check(string) -> ${D}`, (c, verb) => decide(rc(c).az, withSelectors({ ...rc(c).attrs, verb: verb as string, resourceRequest: true })), check),
    def('decision_allowed', `${D}.allowed() -> bool`, (d) => dv(d).decision === 'allow', one),
    def('decision_reason', `${D}.reason() -> string`, (d) => dv(d).reason, one),
    def('decision_errored', `${D}.errored() -> bool`, (d) => dv(d).error !== undefined && dv(d).error !== '', one),
    def('decision_error', `${D}.error() -> string`, (d) => dv(d).error ?? '', one),
  ];
  if (opts.selectors) {
    ov.push(
      def('resourcecheck_fieldselector', `${R}.fieldSelector(string) -> ${R}`, (c, v) => rc(c).with({ fieldSelector: v as string }), one),
      def('resourcecheck_labelselector', `${R}.labelSelector(string) -> ${R}`, (c, v) => rc(c).with({ labelSelector: v as string }), one),
    );
  }
  return {
    name: 'k8s.authz',
    overloads: ov,
    types: ['Authorizer', 'PathCheck', 'GroupCheck', 'ResourceCheck', 'Decision'].map((t) => `kubernetes.authorization.${t}`),
  };
}

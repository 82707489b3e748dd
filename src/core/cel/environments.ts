// The CEL environments of the API server: the versioned Kubernetes base
// environment (1.36 libraries and options) and the variables each API field
// declares (CRD rules, admission policies, authentication and authorization
// configuration), plus a plain environment with every cel-go extension.

import { formatIssues, visit, type CelIssue, type Expr, type IdMap } from './ast';
import { T, type CelType, type ObjectType } from './common/types';
import { parseDuration, parseTimestamp } from './common/time';
import { CelError } from './common/values';
import { CelEnv, type CompileResult } from './env';
import type { Library } from './interpreter/functions';
import { comprehensionsLibrary, extensionLibraries, listsExtLibrary, setsLibrary, stringsLibrary } from './library';
import { k8sAuthzLibrary } from './library/k8s/authz';
import { kubernetesPricing } from './library/k8s/cost';
import { k8sFormatLibrary } from './library/k8s/format';
import { k8sJSONPatchLibrary } from './library/k8s/jsonpatch';
import { k8sListsLibrary } from './library/k8s/lists';
import { k8sNetLibrary } from './library/k8s/net';
import { k8sQuantityLibrary } from './library/k8s/quantity';
import { k8sRegexLibrary } from './library/k8s/regex';
import { k8sSemverLibrary } from './library/k8s/semver';
import { k8sURLsLibrary } from './library/k8s/urls';
import { compileRegex } from './library/stdlib';
import { generateSelfTypeName, schemaToType, type CelSchema } from './schema/types';

export type EnvironmentKind = 'crd' | 'admission' | 'authentication' | 'authorization' | 'plain';

/** Per-call cost limit of the API server (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Runtime budget for all rules of one custom resource (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Estimated-cost limit for one CRD rule (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Estimated-cost limit for all rules of one CRD (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** Libraries of the Kubernetes 1.36 base environment. */
export function kubernetesLibraries(opts: { authzSelectors?: boolean } = {}): Library[] {
  return [...declaredLibraries(opts.authzSelectors ?? true)];
}

/** The base environment's libraries and the plain environment's, declared once (frozen: their registries are shared). */
const declared = new Map<string, readonly Library[]>();
function declaredLibraries(authzSelectors: boolean): readonly Library[] {
  const key = authzSelectors ? 'kubernetes' : 'kubernetes-noselectors';
  let libs = declared.get(key);
  if (libs === undefined) declared.set(key, (libs = Object.freeze(buildKubernetesLibraries(authzSelectors))));
  return libs;
}
function plainLibraries(): readonly Library[] {
  let libs = declared.get('plain');
  if (libs === undefined) declared.set('plain', (libs = Object.freeze([...extensionLibraries(), ...kubernetesLibrariesWithoutStrings()])));
  return libs;
}

function buildKubernetesLibraries(authzSelectors: boolean): Library[] {
  return [
    stringsLibrary({ version: 2 }),
    k8sListsLibrary(),
    k8sRegexLibrary(),
    k8sURLsLibrary(),
    k8sAuthzLibrary({ selectors: authzSelectors }),
    k8sQuantityLibrary(),
    setsLibrary(),
    k8sNetLibrary(),
    k8sFormatLibrary(),
    k8sJSONPatchLibrary(),
    comprehensionsLibrary(),
    k8sSemverLibrary(),
    listsExtLibrary(),
  ];
}

const obj = (name: string, fields: Record<string, CelType>): ObjectType => ({ kind: 'object', name, fields: new Map(Object.entries(fields)) });

const GVK = obj('kubernetes.GroupVersionKind', { group: T.string, version: T.string, kind: T.string });
const GVR = obj('kubernetes.GroupVersionResource', { group: T.string, version: T.string, resource: T.string });
const USER_INFO = obj('kubernetes.UserInfo', {
  username: T.string,
  uid: T.string,
  groups: T.list(T.string),
  extra: T.map(T.string, T.list(T.string)),
});

/** admission.k8s.io AdmissionRequest as the policy `request` variable sees it. */
export const ADMISSION_REQUEST_TYPE = obj('kubernetes.AdmissionRequest', {
  kind: GVK,
  resource: GVR,
  subResource: T.string,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: T.string,
  name: T.string,
  namespace: T.string,
  operation: T.string,
  userInfo: USER_INFO,
  dryRun: T.bool,
  options: T.dyn,
});

const SELECTOR_REQUIREMENT = obj('kubernetes.SelectorRequirement', { key: T.string, operator: T.string, values: T.list(T.string) });
const selectorAttributes = (name: string): ObjectType => obj(name, { rawSelector: T.string, requirements: T.list(SELECTOR_REQUIREMENT) });

/** authorization.k8s.io SubjectAccessReviewSpec as authorization webhook match conditions see `request`. */
export const SUBJECT_ACCESS_REVIEW_SPEC_TYPE = obj('kubernetes.SubjectAccessReviewSpec', {
  resourceAttributes: obj('kubernetes.ResourceAttributes', {
    namespace: T.string,
    verb: T.string,
    group: T.string,
    version: T.string,
    resource: T.string,
    subresource: T.string,
    name: T.string,
    fieldSelector: selectorAttributes('kubernetes.FieldSelectorAttributes'),
    labelSelector: selectorAttributes('kubernetes.LabelSelectorAttributes'),
  }),
  nonResourceAttributes: obj('kubernetes.NonResourceAttributes', { path: T.string, verb: T.string }),
  user: T.string,
  groups: T.list(T.string),
  extra: T.map(T.string, T.list(T.string)),
  uid: T.string,
});

export const AUTHORIZER_TYPE = T.opaque('kubernetes.authorization.Authorizer');
export const RESOURCE_CHECK_TYPE = T.opaque('kubernetes.authorization.ResourceCheck');

export interface EnvironmentOptions {
  /** OpenAPI schema typing self and oldSelf (crd) */
  schema?: CelSchema;
  /** extra variables, typed (names of the admission policy's variables, for example) */
  variables?: Record<string, CelType>;
  /** whether oldSelf is declared (transition rules) */
  oldSelf?: boolean;
  /** oldSelf is optional(self's type), set even without an old value (CRD rules with optionalOldSelf) */
  optionalOldSelf?: boolean;
  /** name of self's object type (crd); generated like the API server's `selfType<nanos>` when unset */
  selfTypeName?: string;
  /** the schema is a resource's root (crd): apiVersion, kind, metadata.name and metadata.generateName are declared */
  resourceRoot?: boolean;
  /** cel-go's OptOptimize (constant literals and conversions free at runtime); the API server's programs run with it, so true by default */
  optimize?: boolean;
}

/** Builds the environment for one kind of API field. */
export function newEnvironment(kind: EnvironmentKind, opts: EnvironmentOptions = {}): CelEnv {
  const base = { homogeneousLiterals: true, presenceTestHasCost: false, enableBind: false, optimize: opts.optimize ?? true };
  let variables: Record<string, CelType> = {};
  switch (kind) {
    case 'crd': {
      const t = opts.schema ? schemaToType(opts.schema, opts.selfTypeName ?? generateSelfTypeName(), opts.resourceRoot) : T.dyn;
      variables = { self: t };
      if (opts.oldSelf !== false) variables.oldSelf = opts.optionalOldSelf ? T.optional(t) : t;
      break;
    }
    case 'admission':
      variables = {
        object: T.dyn,
        oldObject: T.dyn,
        request: ADMISSION_REQUEST_TYPE,
        params: T.dyn,
        namespaceObject: T.dyn,
        variables: T.map(T.string, T.dyn),
        authorizer: AUTHORIZER_TYPE,
        'authorizer.requestResource': RESOURCE_CHECK_TYPE,
      };
      break;
    case 'authentication':
      variables = { claims: T.map(T.string, T.dyn), user: USER_INFO };
      break;
    case 'authorization':
      variables = { request: SUBJECT_ACCESS_REVIEW_SPEC_TYPE };
      break;
    case 'plain':
      return new CelEnv({
        libraries: plainLibraries(),
        enableBind: true,
        variables: opts.variables ?? {},
        pricing: kubernetesPricing,
      });
  }
  return new CelEnv({ ...base, libraries: declaredLibraries(true), variables: { ...variables, ...(opts.variables ?? {}) }, pricing: kubernetesPricing });
}

function kubernetesLibrariesWithoutStrings(): Library[] {
  return declaredLibraries(true).filter((l) => l.name !== 'strings' && l.name !== 'lists' && l.name !== 'sets' && l.name !== 'comprehensions');
}

/** compile results checked by the AST validators, by the (cached) result they were checked from */
const validated = new WeakMap<CompileResult, CompileResult>();

/**
 * Compiles with the API server's AST validators (1.29+): literal regexes,
 * durations and timestamps must be valid at compile time.
 */
export function compileKubernetes(env: CelEnv, text: string): CompileResult {
  const r = env.compile(text);
  if (!r.program || !r.parsed) return r;
  // a cached compile result is validated once
  let v = validated.get(r);
  if (v === undefined) {
    const issues = validateLiterals(r.parsed, r.source.positions);
    v = issues.length ? { issues, message: formatIssues(issues, r.source), source: r.source, parsed: r.parsed } : r;
    validated.set(r, v);
  }
  return v;
}

function validateLiterals(root: Expr, positions: IdMap<number>): CelIssue[] {
  const issues: CelIssue[] = [];
  visit(root, (e) => {
    if (e.kind !== 'call') return;
    // cel-go's literal validators look at the first argument after the receiver, and say only which function's argument is invalid
    const lit = e.args[0];
    if (!lit || lit.kind !== 'const' || typeof lit.value !== 'string') return;
    let message: string | undefined;
    if (e.fn === 'matches') {
      const re = compileRegex(lit.value);
      if (re instanceof CelError) message = 'invalid matches argument';
    } else if ((e.fn === 'find' || e.fn === 'findAll') && e.target) {
      // the library's regex optimization compiles a literal pattern when the program is built
      const re = compileRegex(lit.value);
      if (re instanceof CelError) message = `program instantiation failed: ${re.message}`;
    } else if (e.fn === 'duration' && !e.target && e.args.length === 1) {
      const d = parseDuration(lit.value);
      if (d instanceof CelError) message = 'invalid duration argument';
    } else if (e.fn === 'timestamp' && !e.target && e.args.length === 1) {
      const t = parseTimestamp(lit.value);
      if (t instanceof CelError) message = 'invalid timestamp argument';
    }
    if (message) issues.push({ message, exprId: lit.id, offset: positions.get(lit.id) ?? 0 });
  });
  return issues;
}

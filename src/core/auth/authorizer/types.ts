/**
 * Authorization attributes and decisions (k8s.io/apiserver/pkg/authorization/authorizer).
 * Every mode (AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook) implements Authorizer;
 * the chain asks them in order and the first Allow or Deny decides.
 */
import type { UserInfo } from '../user';

export interface Attributes {
  user: UserInfo;
  /** API verb for resource requests; lowercase HTTP method for non-resource requests. */
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  namespace: string;
  /** API group ('' = core). */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Parsed selectors, when the request carried them (AuthorizeWithSelectors). */
  fieldSelector?: string;
  labelSelector?: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, in the words kube-apiserver puts in a SubjectAccessReview's status.reason. */
  reason: string;
  /** An authorizer's evaluation error (status.evaluationError); the decision still stands. */
  error?: string;
  /** For the trace: which authorizer decided and, for RBAC, which binding/role/rule matched. */
  explanation?: Record<string, unknown>;
}

export interface Authorizer {
  /** Name shown in traces (`RBAC`, `Node`, `webhook:<name>`). */
  readonly name: string;
  authorize(attrs: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
}

/** A resource rule as SelfSubjectRulesReview reports it (authorization/v1 ResourceRule). */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A non-resource rule as SelfSubjectRulesReview reports it (authorization/v1 NonResourceRule). */
export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a user may do in a namespace (authorizer.RuleResolver); incomplete when some source could not be read. */
export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  incomplete: boolean;
  error?: string;
}

/** Authorizers that can list a user's rules (RBAC, Node, AlwaysAllow) implement this too. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> | RulesResult;
}

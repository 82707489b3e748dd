/**
 * The Pod Security Standards as checks (k8s.io/pod-security-admission/policy):
 * each module holds one group of checks with kube's ids and revisions, the
 * registry orders them and picks the revisions of a level and version.
 */
import type { Check } from './check';
import { hostChecks } from './host';
import { privilegeChecks } from './privilege';
import { profileChecks } from './profiles';
import { userChecks } from './users';
import { volumeChecks } from './volumes';

export type { Check, CheckResult, PodSpec, Container } from './check';
export { newEvaluator, aggregateCheckResults, forbiddenReason, forbiddenDetail, type Evaluator, type AggregateCheckResult } from './registry';

/** DefaultChecks: every check assigned to a policy version. */
export const defaultChecks = (): Check[] => [...hostChecks, ...privilegeChecks, ...profileChecks, ...userChecks, ...volumeChecks];

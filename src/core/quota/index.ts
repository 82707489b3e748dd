/**
 * Resource quota accounting (k8s.io/apiserver/pkg/quota/v1 and
 * pkg/quota/v1/evaluator/core), shared by the ResourceQuota admission plugin
 * and the resourcequota controller: resource-list arithmetic, the per-kind
 * evaluators and a namespace's usage.
 */
export * from './resources';
export * from './evaluators';
export { podLimits, podRequests, containerResources } from './podResources';
export { calculateUsage, type NamespaceLister } from './usage';

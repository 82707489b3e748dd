/** Strategies of the apps group's resources, keyed by resource (kube's pkg/registry/apps). */
import type { ResourceStrategy } from '../generic/strategy';
import { deploymentStrategy } from './deployments';
import { daemonSetStrategy, replicaSetStrategy, statefulSetStrategy } from './workloads';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  deployments: deploymentStrategy,
  replicasets: replicaSetStrategy,
  statefulsets: statefulSetStrategy,
  daemonsets: daemonSetStrategy,
};

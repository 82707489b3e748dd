/** Strategies of the apps group's resources, keyed by resource (kube's pkg/registry/apps). */
import type { ResourceStrategy } from '../generic/strategy';
import { templateDefaults } from '../core/podSpec';
import { deploymentStrategy } from './deployments';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  deployments: deploymentStrategy,
  replicasets: templateDefaults(['spec', 'template', 'spec']),
  statefulsets: templateDefaults(['spec', 'template', 'spec']),
  daemonsets: templateDefaults(['spec', 'template', 'spec']),
};

/** Strategies of the batch group's resources, keyed by resource (kube's pkg/registry/batch). */
import type { ResourceStrategy } from '../generic/strategy';
import { templateDefaults } from '../core/podSpec';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  jobs: templateDefaults(['spec', 'template', 'spec'], 'OnFailure'),
  cronjobs: templateDefaults(['spec', 'jobTemplate', 'spec', 'template', 'spec'], 'OnFailure'),
};

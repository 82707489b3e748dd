/** Strategies of the batch group's resources, keyed by resource (kube's pkg/registry/batch). */
import type { ResourceStrategy } from '../generic/strategy';
import { cronJobStrategy, jobStrategy } from './jobs';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  jobs: jobStrategy,
  cronjobs: cronJobStrategy,
};

/** Strategies of the core (legacy) group's resources, keyed by resource (kube's pkg/registry/core). */
import type { ResourceStrategy } from '../generic/strategy';
import { namespaceStrategy } from './namespaces';
import { templateDefaults } from './podSpec';
import { podStrategy } from './pods';
import { secretStrategy } from './secrets';
import { serviceStrategy } from './services';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  namespaces: namespaceStrategy,
  pods: podStrategy,
  replicationcontrollers: templateDefaults(['spec', 'template', 'spec']),
  secrets: secretStrategy,
  services: serviceStrategy,
};

export { defaultPodSpec } from './podSpec';

/** Strategies of the core (legacy) group's resources, keyed by resource (kube's pkg/registry/core). */
import type { ResourceStrategy } from '../generic/strategy';
import { endpointsStrategy } from './endpoints';
import { limitRangeStrategy, resourceQuotaStrategy } from './limitRanges';
import { namespaceStrategy } from './namespaces';
import { nodeStrategy } from './nodes';
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from './persistentVolumes';
import { templateDefaults } from './podSpec';
import { podStrategy } from './pods';
import { replicationControllerStrategy } from './replicationcontrollers';
import { secretStrategy } from './secrets';
import { serviceStrategy } from './services';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  endpoints: endpointsStrategy,
  limitranges: limitRangeStrategy,
  namespaces: namespaceStrategy,
  nodes: nodeStrategy,
  persistentvolumeclaims: persistentVolumeClaimStrategy,
  persistentvolumes: persistentVolumeStrategy,
  pods: podStrategy,
  podtemplates: templateDefaults(['template', 'spec']),
  replicationcontrollers: replicationControllerStrategy,
  resourcequotas: resourceQuotaStrategy,
  secrets: secretStrategy,
  services: serviceStrategy,
};

export { defaultPodSpec } from './podSpec';

/** Endpoints (pkg/registry/core/endpoint): the scheme's defaults for what clients write. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** SetDefaults_EndpointPort: a port's protocol is TCP unless it says otherwise. */
function defaultEndpoints(obj: KubeObject): void {
  const subsets = obj['subsets'];
  if (!Array.isArray(subsets)) return;
  for (const ss of subsets) {
    if (!isObject(ss) || !Array.isArray(ss['ports'])) continue;
    for (const port of ss['ports']) if (isObject(port) && (port['protocol'] === undefined || port['protocol'] === '')) port['protocol'] = 'TCP';
  }
}

export const endpointsStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultEndpoints,
};

/** discovery.k8s.io (pkg/registry/discovery): the scheme's defaults for EndpointSlices clients write. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** SetDefaults_EndpointPort (discovery/v1): a port without a name is named "", without a protocol TCP. */
function defaultEndpointSlice(obj: KubeObject): void {
  const ports = obj['ports'];
  if (!Array.isArray(ports)) return;
  for (const port of ports) {
    if (!isObject(port)) continue;
    if (port['name'] === undefined || port['name'] === null) port['name'] = '';
    if (port['protocol'] === undefined || port['protocol'] === null) port['protocol'] = 'TCP';
  }
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  endpointslices: { defaulter: defaultEndpointSlice },
};

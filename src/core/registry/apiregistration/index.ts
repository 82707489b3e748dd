/** apiregistration.k8s.io (k8s.io/kube-aggregator apis/apiregistration/v1 defaults): the scheme's defaults for APIServices. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** SetDefaults_ServiceReference: an APIService's service answers on 443 unless told. */
function defaultAPIService(obj: KubeObject): void {
  const service = isObject(obj['spec']) ? obj['spec']['service'] : undefined;
  if (isObject(service)) service['port'] ??= 443;
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  apiservices: { defaulter: defaultAPIService },
};

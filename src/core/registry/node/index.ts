/** node.k8s.io: a RuntimeClass's overhead, whose quantities are stored as they encode. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { canonicalQuantities } from '../core/resourceList';

/** overhead.podFixed is a ResourceList of Quantities: `0.5` is stored as `500m`, `1024Mi` as `1Gi`. */
function defaultRuntimeClass(obj: KubeObject): void {
  if (isObject(obj['overhead'])) canonicalQuantities(obj['overhead']['podFixed']);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  runtimeclasses: { defaulter: defaultRuntimeClass },
};

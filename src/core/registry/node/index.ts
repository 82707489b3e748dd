/** node.k8s.io: a RuntimeClass's overhead, whose quantities are stored as they encode. */
import { canonicalQuantity, isQuantityText } from '../../api/quantity';
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** overhead.podFixed is a ResourceList of Quantities: `0.5` is stored as `500m`, `1024Mi` as `1Gi`. */
function defaultRuntimeClass(obj: KubeObject): void {
  const podFixed = isObject(obj['overhead']) ? obj['overhead']['podFixed'] : undefined;
  if (!isObject(podFixed)) return;
  for (const [k, v] of Object.entries(podFixed)) if (isQuantityText(v)) podFixed[k] = canonicalQuantity(v);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  runtimeclasses: { defaulter: defaultRuntimeClass },
};

/** scheduling.k8s.io strategies: PriorityClass defaulting (pkg/apis/scheduling/v1 SetDefaults_PriorityClass). */
import type { ResourceStrategy } from '../generic/strategy';
import type { KubeObject } from '../../api/types';

/** A class without a preemptionPolicy preempts lower priorities, as the v1 default says. */
function defaultPriorityClass(obj: KubeObject): void {
  obj['preemptionPolicy'] ??= 'PreemptLowerPriority';
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  priorityclasses: { defaulter: defaultPriorityClass },
};

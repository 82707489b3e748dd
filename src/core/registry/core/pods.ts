/** Pod strategy: defaults, the deprecated serviceAccount, initial status and QoS class (pkg/registry/core/pod). */
import { isObject, objectsOf, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { qosClass } from '../../api/podQos';
import { defaultPodOnly, defaultPodSpec, readDeprecatedServiceAccount, writeDeprecatedServiceAccount } from './podSpec';
import { keepEphemeralContainerUpdates, keepResizeUpdates } from './podSubresources';

export const podStrategy: Partial<ResourceStrategy> = {
  // SetDefaults_Pod and SetDefaults_PodSpec, and the v1 conversion's round trip of the deprecated serviceAccount.
  // Priority, tolerations and the service account come later, from admission (Priority, DefaultTolerationSeconds, ServiceAccount).
  defaulter(obj) {
    defaultPodOnly(obj['spec']);
    defaultPodSpec(obj['spec']);
    readDeprecatedServiceAccount(obj['spec']);
    writeDeprecatedServiceAccount(obj['spec']);
  },
  // The initial status once mutating admission ran: LimitRanger's defaults count toward the QoS class, as kube's
  // PrepareForCreate (which sets it) runs after admission.
  beginCreate(obj) {
    writeDeprecatedServiceAccount(obj['spec']);
    applyMatchLabelKeys(obj);
    obj['status'] = { phase: 'Pending', qosClass: qosClass(obj) };
    return undefined;
  },
  // A pod no node runs (unbound, or finished) has nothing to wait for; negative periods mean 1s.
  checkGracefulDelete(pod, requested) {
    const spec = isObject(pod['spec']) ? pod['spec'] : {};
    const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
    let period = requested ?? (typeof spec['terminationGracePeriodSeconds'] === 'number' ? spec['terminationGracePeriodSeconds'] : 0);
    if (!spec['nodeName'] || phase === 'Succeeded' || phase === 'Failed') period = 0;
    return period < 0 ? 1 : period;
  },
  prepareForUpdate(obj, old, ctx) {
    if (ctx.subresource === 'ephemeralcontainers') keepEphemeralContainerUpdates(obj, old);
    else if (ctx.subresource === 'resize') keepResizeUpdates(obj, old);
  },
};

/**
 * applyMatchLabelKeysAndMismatchLabelKeys (MatchLabelKeysInPodAffinity, on by
 * default since 1.31): each pod (anti-)affinity term's matchLabelKeys and
 * mismatchLabelKeys become `key In (value)` / `key NotIn (value)` requirements
 * of its labelSelector, with the values of the pod's own labels, stored with
 * the pod; keys the pod has no label for are skipped, and a term without a
 * labelSelector (it selects nothing) is left alone.
 */
function applyMatchLabelKeys(pod: KubeObject): void {
  const labels = pod.metadata.labels ?? {};
  const affinity = isObject(pod['spec']) && isObject(pod['spec']['affinity']) ? pod['spec']['affinity'] : undefined;
  if (!affinity) return;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const rules = isObject(affinity[kind]) ? affinity[kind] : undefined;
    if (!rules) continue;
    const terms = [
      ...objectsOf(rules['requiredDuringSchedulingIgnoredDuringExecution']),
      ...objectsOf(rules['preferredDuringSchedulingIgnoredDuringExecution']).flatMap((w) => (isObject(w['podAffinityTerm']) ? [w['podAffinityTerm']] : [])),
    ];
    for (const term of terms) {
      const selector = isObject(term['labelSelector']) ? term['labelSelector'] : undefined;
      if (!selector) continue;
      const added: Record<string, unknown>[] = [];
      for (const [field, operator] of [['matchLabelKeys', 'In'], ['mismatchLabelKeys', 'NotIn']] as const) {
        for (const key of Array.isArray(term[field]) ? term[field] : []) {
          if (typeof key === 'string' && Object.hasOwn(labels, key)) added.push({ key, operator, values: [labels[key]] });
        }
      }
      if (added.length) selector['matchExpressions'] = [...(Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : []), ...added];
    }
  }
}

/** Pod strategy: defaults, the deprecated serviceAccount, initial status and QoS class (pkg/registry/core/pod). */
import { isObject } from '../../api/types';
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

/**
 * The DefaultTolerationSeconds admission plugin
 * (plugin/pkg/admission/defaulttolerationseconds): a pod written without a
 * toleration for the not-ready or unreachable NoExecute taints (by key, or
 * an empty key or effect that covers it) gets one for 300 seconds, after
 * the tolerations it has. Creates and updates of pods, not subresources.
 */
import { isObject } from '../api/types';
import type { PluginAttributes } from './attributes';

/** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
const defaultTolerationSeconds = 300;
const notReady = 'node.kubernetes.io/not-ready';
const unreachable = 'node.kubernetes.io/unreachable';

export function admitDefaultTolerationSeconds(attrs: PluginAttributes): void {
  if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return;
  if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
  const spec = attrs.object && isObject(attrs.object['spec']) ? attrs.object['spec'] : undefined;
  if (!spec) return;
  const tolerations = Array.isArray(spec['tolerations']) ? (spec['tolerations'] as unknown[]) : [];
  const tolerates = (key: string) => tolerations.some((t) => isObject(t) && (!t['key'] || t['key'] === key) && (!t['effect'] || t['effect'] === 'NoExecute'));
  const added = [notReady, unreachable]
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultTolerationSeconds }));
  if (added.length) spec['tolerations'] = [...tolerations, ...added];
}

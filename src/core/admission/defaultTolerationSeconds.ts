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
  // One pass over the tolerations, no closures: every pod create comes here.
  let notReadyTolerated = false;
  let unreachableTolerated = false;
  for (const t of tolerations) {
    if (!isObject(t) || (t['effect'] && t['effect'] !== 'NoExecute')) continue;
    const key = t['key'];
    if (!key || key === notReady) notReadyTolerated = true;
    if (!key || key === unreachable) unreachableTolerated = true;
  }
  if (notReadyTolerated && unreachableTolerated) return;
  const out = tolerations.slice();
  if (!notReadyTolerated) out.push(defaultToleration(notReady));
  if (!unreachableTolerated) out.push(defaultToleration(unreachable));
  spec['tolerations'] = out;
}

function defaultToleration(key: string) {
  return { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultTolerationSeconds };
}

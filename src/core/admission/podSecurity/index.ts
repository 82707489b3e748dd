/**
 * Pod Security admission (k8s.io/pod-security-admission, kube-apiserver's
 * PodSecurity plugin): the Pod Security Standards checks (policy/), the
 * namespace labels that choose a level per mode (api.ts), and the plugin
 * that enforces, warns and audits (admission.ts).
 */
import type { KubeObject } from '../../api/types';
import { createPodSecurityPlugin, type PodSecurityPlugin } from './admission';
import { defaultChecks, newEvaluator, type Evaluator } from './policy';
import { newPodSecurityRecorder, type PodSecuritySink } from './metrics';
import { parsePodSecurityConfiguration } from './configuration';

export { createPodSecurityPlugin, type PodSecurityPlugin, type PodSecurityDeps, type Exemptions } from './admission';
export { parsePodSecurityConfiguration, type PodSecurityConfiguration } from './configuration';
export { policyToEvaluate, type Policy, type LevelVersion } from './api';
export { defaultChecks, newEvaluator, aggregateCheckResults, forbiddenDetail } from './policy';

/**
 * The plugin as kube-apiserver builds it, with `latest` at most the server's
 * minor; `configuration` is a PodSecurityConfiguration object (kube's
 * default, privileged:latest and no exemptions, when absent). Throws when it
 * is invalid.
 */
export function defaultPodSecurityPlugin(
  kubernetesVersion: string,
  deps: { getNamespace(name: string): KubeObject | undefined | Promise<KubeObject | undefined>; listPods(namespace: string): Promise<KubeObject[]>; metrics?: PodSecuritySink; configuration?: unknown },
): PodSecurityPlugin {
  const minor = Number(/^v?1\.(\d+)/.exec(kubernetesVersion)?.[1] ?? Infinity);
  // Built for the first pod evaluated: the checks are a service-worker part that the first answers do not load.
  let built: Evaluator | undefined;
  const checks = () => (built ??= newEvaluator(defaultChecks(), Number.isFinite(minor) ? minor : undefined));
  const evaluator: Evaluator = {
    get maxVersion() {
      return checks().maxVersion;
    },
    evaluatePod: (lv, meta, spec) => checks().evaluatePod(lv, meta, spec),
  };
  const configuration = deps.configuration === undefined ? undefined : parsePodSecurityConfiguration(deps.configuration);
  return createPodSecurityPlugin({ ...deps, ...configuration, evaluator, metrics: deps.metrics && newPodSecurityRecorder(deps.metrics, minor) });
}

/** PodSpec defaults, shared by pods and every workload's pod template (SetDefaults_PodSpec and kin). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/** The image's tag decides the default pull policy: Always for :latest or no tag (SetDefaults_Container). */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const name = image.split('@')[0]!;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : '';
  return image.includes('@') ? 'IfNotPresent' : !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    if (!isObject(c)) continue;
    c['imagePullPolicy'] ??= defaultPullPolicy(c['image']);
    c['terminationMessagePath'] ??= '/dev/termination-log';
    c['terminationMessagePolicy'] ??= 'File';
    c['resources'] ??= {};
    if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isObject(p)) p['protocol'] ??= 'TCP';
  }
}

/** The defaults kube-apiserver fills into every PodSpec, in pods and in workload templates (SetDefaults_PodSpec). */
export function defaultPodSpec(spec: unknown, restartPolicy = 'Always'): void {
  if (!isObject(spec)) return;
  spec['restartPolicy'] ??= restartPolicy;
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  spec['enableServiceLinks'] ??= true;
  defaultContainers(spec['containers']);
  defaultContainers(spec['initContainers']);
}

export function defaultTemplate(obj: KubeObject, path: string[], restartPolicy?: string): void {
  let cur: unknown = obj;
  for (const k of path) cur = isObject(cur) ? cur[k] : undefined;
  defaultPodSpec(cur, restartPolicy);
}

/** Workloads whose pod templates get PodSpec defaults on create and update. */
export const templateDefaults = (path: string[], restartPolicy?: string): Partial<ResourceStrategy> => ({
  prepareForCreate: (obj) => defaultTemplate(obj, path, restartPolicy),
  prepareForUpdate: (obj) => defaultTemplate(obj, path, restartPolicy),
});

/**
 * DefaultPodSpecExtractor: the resources that embed a pod template, and
 * where their template sits. A workload without a template is not evaluated.
 */
import type { KubeObject, ObjectMeta } from '../../api/types';
import type { PodSpec } from './policy';

/** group/resource -> the path of the PodTemplateSpec in the object. */
const templatePaths: Record<string, readonly string[]> = {
  '/podtemplates': ['template'],
  '/replicationcontrollers': ['spec', 'template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

export const hasPodSpec = (group: string, resource: string): boolean => `${group}/${resource}` in templatePaths;

export function extractPodSpec(group: string, resource: string, obj: KubeObject): { metadata: ObjectMeta; spec: PodSpec } | undefined {
  const path = templatePaths[`${group}/${resource}`];
  if (!path) return undefined;
  let node: unknown = obj;
  for (const key of path) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  if (!node || typeof node !== 'object') return undefined;
  const template = node as { metadata?: ObjectMeta; spec?: PodSpec };
  return { metadata: template.metadata ?? {}, spec: template.spec ?? {} };
}

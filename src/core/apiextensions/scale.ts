/**
 * The scale subresource of custom resources: the Scale's replicas, status
 * replicas and selector come from the CRD's specReplicasPath,
 * statusReplicasPath and labelSelectorPath (simple .a.b JSON paths).
 */
import { isObject, type KubeObject } from '../api/types';
import type { CustomResourceSubresourceScale } from './types';

const segments = (path: string) => path.split('.').slice(1).filter((s) => s !== '');

function read(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const s of segments(path)) {
    if (!isObject(v)) return undefined;
    v = v[s];
  }
  return v;
}

/** The autoscaling/v1 Scale of a custom object. */
export function customScaleOf(paths: CustomResourceSubresourceScale, obj: KubeObject): KubeObject {
  const m = obj.metadata;
  const replicas = read(obj, paths.specReplicasPath);
  const statusReplicas = read(obj, paths.statusReplicasPath);
  const selector = paths.labelSelectorPath ? read(obj, paths.labelSelectorPath) : undefined;
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector) status['selector'] = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
    status,
  };
}

/** Writes replicas at specReplicasPath, creating the objects on the way. */
export function setCustomReplicas(paths: CustomResourceSubresourceScale, obj: KubeObject, replicas: number): void {
  const segs = segments(paths.specReplicasPath);
  let v: Record<string, unknown> = obj;
  for (const s of segs.slice(0, -1)) {
    if (!isObject(v[s])) v[s] = {};
    v = v[s] as Record<string, unknown>;
  }
  v[segs[segs.length - 1]!] = replicas;
}

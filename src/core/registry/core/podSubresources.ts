/**
 * The update strategies of the pods/ephemeralcontainers and pods/resize
 * subresources (podEphemeralContainersStrategy, podResizeStrategy): the
 * write starts from the stored pod and takes only what the subresource may
 * change, so any other change in the request is dropped, not refused.
 */
import { isObject, type KubeObject } from '../../api/types';

/** dropPodUpdates: the stored pod, with the request's identity and field ownership. */
function dropPodUpdates(obj: KubeObject, old: KubeObject): KubeObject {
  const pod = structuredClone(old);
  const { name, namespace, resourceVersion, uid, managedFields } = obj.metadata;
  Object.assign(pod.metadata, { name, namespace, resourceVersion, uid });
  if (managedFields) pod.metadata.managedFields = managedFields;
  else delete pod.metadata.managedFields;
  return pod;
}

/**
 * Replaces obj's content with next's: strategies mutate the object they are
 * given, and the store goes on writing into that object's metadata.
 */
function replace(obj: KubeObject, next: KubeObject): void {
  const meta = obj.metadata;
  for (const k of Object.keys(obj)) delete obj[k];
  for (const k of Object.keys(meta)) delete (meta as Record<string, unknown>)[k];
  Object.assign(obj, next, { metadata: Object.assign(meta, next.metadata) });
}

const specOf = (o: KubeObject): Record<string, unknown> => (isObject(o['spec']) ? o['spec'] : (o['spec'] = {}));

/** dropNonEphemeralContainerUpdates */
export function keepEphemeralContainerUpdates(obj: KubeObject, old: KubeObject): void {
  const pod = dropPodUpdates(obj, old);
  const ephemeral = specOf(obj)['ephemeralContainers'];
  if (ephemeral === undefined) delete specOf(pod)['ephemeralContainers'];
  else specOf(pod)['ephemeralContainers'] = ephemeral;
  replace(obj, pod);
}

/** dropNonResizeUpdates: each container's (and init container's) resources and resizePolicy, matched by name. */
export function keepResizeUpdates(obj: KubeObject, old: KubeObject): void {
  const pod = dropPodUpdates(obj, old);
  for (const list of ['containers', 'initContainers']) {
    const stored = specOf(pod)[list];
    const wanted = specOf(obj)[list];
    if (!Array.isArray(stored) || !Array.isArray(wanted)) continue;
    for (const c of wanted) {
      if (!isObject(c)) continue;
      const target = stored.find((s) => isObject(s) && s['name'] === c['name']) as Record<string, unknown> | undefined;
      if (!target) continue;
      for (const k of ['resources', 'resizePolicy']) {
        if (c[k] === undefined) delete target[k];
        else target[k] = c[k];
      }
    }
  }
  replace(obj, pod);
}

/**
 * ValidatePodResize: through pods/resize only the cpu and memory of the
 * containers' requests and limits (and their resizePolicy) change, the pod's
 * QoS class stays, and static and Windows pods are not resized.
 */
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import { forbidden, invalid, type FieldError } from '../../errors';
import { qosClass } from '../../api/podQos';
import { arr, obj, str, type Obj } from './common';
import { mirrorPodAnnotation, validatePodMetadataAndSpec } from './pod';

/** dropCPUMemoryResourcesFromContainer: the container with the old cpu and memory put back, to compare the rest. */
function withoutCpuMemoryChanges(c: Obj, old: Obj): Obj {
  const copy = structuredClone(c);
  const resources = obj(copy['resources']) ?? {};
  const oldResources = obj(old['resources']) ?? {};
  for (const kind of ['requests', 'limits']) {
    const list = { ...(obj(resources[kind]) ?? {}) };
    const oldList = obj(oldResources[kind]) ?? {};
    for (const r of ['cpu', 'memory']) {
      if (oldList[r] === undefined) delete list[r];
      else list[r] = oldList[r];
    }
    if (Object.keys(list).length) resources[kind] = list;
    else delete resources[kind];
  }
  if (Object.keys(resources).length) copy['resources'] = resources;
  else delete copy['resources'];
  copy['resizePolicy'] = old['resizePolicy'];
  if (copy['resizePolicy'] === undefined) delete copy['resizePolicy'];
  return copy;
}

export function validatePodResize(pod: KubeObject, oldPod: KubeObject): FieldError[] {
  if (oldPod.metadata.annotations?.[mirrorPodAnnotation] !== undefined) return [forbidden('', 'static pods cannot be resized')];
  const oldSpec = obj(oldPod['spec']) ?? {};
  if (str(obj(oldSpec['os'])?.['name']) === 'windows') return [forbidden('', 'windows pods cannot be resized')];
  const errs = validatePodMetadataAndSpec(pod);
  const spec = obj(pod['spec']) ?? {};
  const oldQos = str(obj(oldPod['status'])?.['qosClass']) || qosClass(oldPod);
  if (oldQos !== qosClass(pod)) errs.push(invalid('spec', str(obj(pod['status'])?.['qosClass']), 'Pod QOS Class may not change as a result of resizing'));
  for (const list of ['initContainers', 'containers']) {
    const oldList = arr(oldSpec[list]);
    arr(spec[list]).forEach((c, i) => {
      const old = obj(oldList[i]) ?? {};
      if (!jsonEqual(withoutCpuMemoryChanges(obj(c) ?? {}, old), old)) errs.push(forbidden('spec', 'only cpu and memory resources are mutable'));
    });
  }
  return errs;
}

/** Namespace strategy: finalizers, phase and the metadata.name label (pkg/registry/core/namespace). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/**
 * SetDefaults_Namespace: the kubernetes.io/metadata.name label, when the name is
 * known; the strategy's Canonicalize sets it again on create and update (a
 * generateName create is named only then, and a write may have changed the label).
 */
function defaultNamespace(obj: KubeObject): void {
  if (obj.metadata.name) obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
}

export const namespaceStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultNamespace,
  prepareForCreate(obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    spec['finalizers'] = ['kubernetes'];
    obj['spec'] = spec;
    obj['status'] = { phase: 'Active' };
    defaultNamespace(obj);
  },
  prepareForUpdate(obj, old, ctx) {
    // spec.finalizers only change through the finalize sub-resource, which changes nothing else.
    if (ctx.subresource === 'finalize') {
      const finalizers = isObject(obj['spec']) ? obj['spec']['finalizers'] : undefined;
      for (const k of Object.keys(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') delete obj[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') obj[k] = structuredClone(v);
      obj['spec'] = { ...(isObject(old['spec']) ? old['spec'] : {}), finalizers: finalizers ?? [] };
      obj.metadata.labels = old.metadata.labels;
      return;
    }
    obj['spec'] = structuredClone(old['spec']);
    defaultNamespace(obj);
  },
  deletionFinalizers(obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    return Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : [];
  },
  prepareForDelete(obj) {
    obj['status'] = { ...(isObject(obj['status']) ? obj['status'] : {}), phase: 'Terminating' };
  },
};

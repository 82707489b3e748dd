/**
 * The DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/setdefault):
 * a PersistentVolumeClaim created without a class (no spec.storageClassName,
 * not even "", and no beta class annotation) gets the default StorageClass,
 * the newest if several are marked (then by name). None marked: unchanged.
 */
import { isObject, type KubeObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { PluginAttributes } from './attributes';

const betaClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
const defaultClassAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** The default StorageClass (util.GetDefaultClass), shared with the PV controller's retroactive assignment. */
export const defaultStorageClass = (classes: KubeObject[]): KubeObject | undefined =>
  newestDefault(classes, (c) => defaultClassAnnotations.some((a) => c.metadata.annotations?.[a] === 'true'));

/** util.GetDefaultClass's order: newest first, then by name; shared with DefaultIngressClass. */
export function newestDefault(classes: KubeObject[], isDefault: (c: KubeObject) => boolean): KubeObject | undefined {
  const time = (c: KubeObject) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  return classes.filter(isDefault).sort((a, b) => time(b) - time(a) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))[0];
}

export function createDefaultStorageClassPlugin(deps: { storageClasses: Store }) {
  return {
    admit(attrs: PluginAttributes): Promise<void> | undefined {
      if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '' || attrs.resource.resource !== 'persistentvolumeclaims') return undefined;
      const pvc = attrs.object;
      if (!pvc || pvc.metadata.annotations?.[betaClassAnnotation] !== undefined) return undefined;
      const spec = isObject(pvc['spec']) ? pvc['spec'] : (pvc['spec'] = {});
      if (typeof spec['storageClassName'] === 'string') return undefined;
      return deps.storageClasses.list('').then(({ items }) => {
        const def = defaultStorageClass(items);
        if (def) spec['storageClassName'] = def.metadata.name;
      });
    },
  };
}

export type DefaultStorageClassPlugin = ReturnType<typeof createDefaultStorageClassPlugin>;

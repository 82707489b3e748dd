/**
 * The DefaultIngressClass admission plugin (plugin/pkg/admission/network/defaultingressclass):
 * an Ingress created without spec.ingressClassName and without the
 * kubernetes.io/ingress.class annotation gets the IngressClass marked
 * ingressclass.kubernetes.io/is-default-class "true", the newest if several.
 */
import { isObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { PluginAttributes } from './attributes';
import { newestDefault } from './defaultStorageClass';

const ingressClassAnnotation = 'kubernetes.io/ingress.class';
const defaultClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';

export function createDefaultIngressClassPlugin(deps: { ingressClasses: Store }) {
  return {
    admit(attrs: PluginAttributes): Promise<void> | undefined {
      if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== 'networking.k8s.io' || attrs.resource.resource !== 'ingresses') return undefined;
      const ingress = attrs.object;
      if (!ingress || ingress.metadata.annotations?.[ingressClassAnnotation] !== undefined) return undefined;
      const spec = isObject(ingress['spec']) ? ingress['spec'] : (ingress['spec'] = {});
      if (typeof spec['ingressClassName'] === 'string') return undefined;
      return deps.ingressClasses.list('').then(({ items }) => {
        const def = newestDefault(items, (c) => c.metadata.annotations?.[defaultClassAnnotation] === 'true');
        if (def) spec['ingressClassName'] = def.metadata.name;
      });
    },
  };
}

export type DefaultIngressClassPlugin = ReturnType<typeof createDefaultIngressClassPlugin>;

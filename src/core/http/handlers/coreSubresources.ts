/**
 * The core group's pod, service and node subresources beyond status and
 * eviction, and the legacy bindings collection: one dispatch for
 * apiserver.ts. Binding writes the pod directly; ephemeralcontainers and
 * resize are updates of the pod through their own strategies
 * (registry/core/podSubresources.ts); log, exec, attach, portforward and
 * the proxies are connect.ts's.
 */
import { newRouteMethodNotAllowed } from '../../errors';
import type { Store } from '../../registry/generic/store';
import type { CoreObjectGetter } from '../../registry/core/podLocation';
import { createBinding } from './binding';
import { connect, connectSubresources } from './connect';
import { getResource } from './get';
import { patchResource } from './patch';
import type { RequestScope } from './scope';
import type { SimulatedKubeletSource } from '../../simulation/podExec';
import { updateResource } from './update';

/** The server's store of a core/v1 resource (pods, nodes, services, endpoints). */
export type CoreStores = (resource: string) => Store | undefined;

export function objectGetter(stores: CoreStores): CoreObjectGetter {
  return async (resource, namespace, name) => {
    const store = stores(resource);
    const kv = store && (await store.getKv(namespace, name));
    return kv ? store.decode(kv) : undefined;
  };
}

/** The answer for the request, or undefined when it is not one of these subresources. */
export function serveCoreSubresource(scope: RequestScope, stores: CoreStores, kubelets?: SimulatedKubeletSource): Promise<Response> | undefined {
  const { info, type } = scope;
  if (type.group !== '' || type.custom) return undefined;
  if (type.resource === 'bindings') return info.verb === 'create' && !info.name ? createBinding(scope, stores('pods')!, stores('nodes')) : undefined;
  if (!info.subresource || !info.name) return undefined;
  if (connectSubresources[type.resource]?.has(info.subresource)) return connect(scope, objectGetter(stores), kubelets);
  if (type.resource !== 'pods') return undefined;
  switch (info.subresource) {
    case 'binding':
      if (info.verb !== 'create') throw newRouteMethodNotAllowed();
      return createBinding(scope, scope.store, stores('nodes'));
    case 'ephemeralcontainers':
    case 'resize':
      if (info.verb === 'get') return getResource(scope);
      if (info.verb === 'update') return updateResource(scope);
      if (info.verb === 'patch') return patchResource(scope);
      throw newRouteMethodNotAllowed();
    default:
      return undefined;
  }
}

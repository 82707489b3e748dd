/**
 * The NodeRestriction admission plugin, its basics (plugin/pkg/admission/noderestriction):
 * a node may create only mirror Pods bound to itself, delete only Pods bound
 * to itself, update status only of Pods bound to itself, and write only its
 * own Node object. It narrows what the Node authorizer allows broadly, on the
 * object about to be written, so it sits on the store a node's request uses.
 */
import { isObject, type KubeObject } from '../../api/types';
import { newForbidden } from '../../errors';
import type { Store, UpdateFunc } from '../../registry/generic/store';
import type { UserInfo } from '../user';
import { nodeIdentity } from './authorizer';

export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

const nodeNameOf = (pod: KubeObject | undefined): string | undefined => (pod && isObject(pod['spec']) && typeof pod['spec']['nodeName'] === 'string' ? pod['spec']['nodeName'] : undefined);

/** The store as a node's request sees it; unchanged for other users and resources. */
export function nodeRestrictedStore(store: Store, user: UserInfo, requestName: string, subresource: string): Store {
  const nodeName = nodeIdentity(user);
  if (!nodeName || store.type.group !== '') return store;
  const gr = store.gr;
  const forbid = (name: string, msg: string) => newForbidden(gr, name, msg);
  const guarded = Object.create(store) as Store;

  if (store.type.resource === 'nodes') {
    const ownOnly = (name: string) => {
      if (name !== nodeName) throw forbid(name, `node ${JSON.stringify(nodeName)} is not allowed to modify node ${JSON.stringify(name)}`);
    };
    guarded.createStored = async (namespace, obj, options) => {
      ownOnly(obj.metadata.name ?? '');
      return store.createStored(namespace, obj, options);
    };
    guarded.update = (namespace, name, tryUpdate, options) => {
      ownOnly(name);
      return store.update(namespace, name, tryUpdate, options);
    };
    guarded.delete = (namespace, name, options) => {
      ownOnly(name);
      return store.delete(namespace, name, options);
    };
    return guarded;
  }

  if (store.type.resource === 'pods') {
    guarded.createStored = async (namespace, obj, options) => {
      const name = obj.metadata.name ?? '';
      if (!(options?.subresource ?? subresource)) {
        if (obj.metadata.annotations?.[mirrorPodAnnotation] === undefined) {
          throw forbid(name, `pod does not have ${JSON.stringify(mirrorPodAnnotation)} annotation, node ${JSON.stringify(nodeName)} can only create mirror pods`);
        }
        if (nodeNameOf(obj) !== nodeName) throw forbid(name, `node ${JSON.stringify(nodeName)} can only create pods with spec.nodeName set to itself`);
      }
      return store.createStored(namespace, obj, options);
    };
    guarded.update = (namespace, name, tryUpdate: UpdateFunc, options) => {
      if ((options?.subresource ?? subresource) !== 'status') {
        throw forbid(requestName || name, `unexpected operation "UPDATE", node ${JSON.stringify(nodeName)} can only create and delete mirror pods`);
      }
      return store.update(namespace, name, async (current) => {
        if (nodeNameOf(current) !== nodeName) throw forbid(name, `node ${JSON.stringify(nodeName)} can only update pod status for pods with spec.nodeName set to itself`);
        return tryUpdate(current);
      }, options);
    };
    guarded.delete = async (namespace, name, options) => {
      const kv = await store.getKv(namespace, name);
      if (kv && nodeNameOf(store.decode(kv)) !== nodeName) throw forbid(name, `node ${JSON.stringify(nodeName)} can only delete pods with spec.nodeName set to itself`);
      return store.delete(namespace, name, options);
    };
    return guarded;
  }
  return store;
}

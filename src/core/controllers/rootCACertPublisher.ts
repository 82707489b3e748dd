/**
 * The root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher):
 * every active namespace holds the ConfigMap `kube-root-ca.crt` whose `ca.crt`
 * is the cluster CA; it is re-created when deleted and put back when edited.
 * Without a CA (a host serving plain HTTP) `ca.crt` is empty, as upstream
 * publishes whatever CA data it was given.
 */
import { jsonEqual } from '../api/equality';
import { objectGone } from './controllerUtils';
import type { KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

export const rootCAConfigMapName = 'kube-root-ca.crt';
const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export function startRootCACertPublisher(deps: NamespaceControllerDeps & { rootCA(): string | undefined }): RunningController {
  const namespaces = deps.storeFor(deps.registry.resourceFor('', 'v1', 'namespaces')!);
  const configMaps = deps.storeFor(deps.registry.resourceFor('', 'v1', 'configmaps')!);

  async function sync(key: string): Promise<void> {
    const namespace = key.slice(1);
    const ns = await namespaces.getKv('', namespace);
    if (!ns || namespaces.decode(ns).metadata.deletionTimestamp) return;
    const data = { 'ca.crt': deps.rootCA() ?? '' };
    const annotations = { 'kubernetes.io/description': description };
    try {
      const kv = await configMaps.getKv(namespace, rootCAConfigMapName);
      if (!kv) {
        await configMaps.create(namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: rootCAConfigMapName, annotations }, data });
        return;
      }
      const cm = configMaps.decode(kv);
      if (jsonEqual(cm['data'], data) && cm.metadata.annotations?.['kubernetes.io/description'] === description) return;
      await configMaps.update(namespace, rootCAConfigMapName, (cur) => {
        if (!cur) throw objectGone();
        return { ...cur, data, metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, ...annotations } } } as KubeObject;
      });
    } catch (e) {
      // Created or deleted meanwhile, or the namespace is terminating: the next event brings it back.
      if (!(e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404))) throw e;
    }
  }

  const queue = newWorkQueue('root-ca-certificate-publisher-controller', sync);
  // Namespaces are cluster-scoped: their queue key is `/name`, the same as the ConfigMap's namespace.
  return watchInto(deps, queue, namespaces, [{
    store: configMaps,
    keysFor: (e) => (e.kv.key.endsWith(`/${rootCAConfigMapName}`) ? [`/${e.kv.key.slice(configMaps.prefix.length).split('/')[0]}`] : []),
  }]);
}

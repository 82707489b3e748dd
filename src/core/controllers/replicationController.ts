/**
 * The ReplicationController manager (pkg/controller/replication): kube runs
 * the ReplicaSet controller's logic on ReplicationControllers through a
 * conversion, and so does kubesim, through the shared replica manager. What
 * differs: core/v1 objects, a selector that is a plain label map
 * (labels.SelectorFromSet: an empty one selects everything), and events from
 * `replication-controller`.
 */
import { isObject, type KubeObject } from '../api/types';
import { labelSelectorFromObject } from '../selectors';
import { specOf } from './controllerUtils';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { startReplicaManager, type ReplicaKind } from './replicaset';

const replicationControllerKind: ReplicaKind = {
  kind: 'ReplicationController',
  queueName: 'replicationmanager',
  eventComponent: 'replication-controller',
  store: (deps) => {
    const type = deps.registry.resourceFor('', 'v1', 'replicationcontrollers');
    return type && deps.storeFor(type);
  },
  selectorOf: (rc: KubeObject) => {
    const selector = specOf(rc)['selector'];
    return labelSelectorFromObject({ matchLabels: isObject(selector) ? (selector as Record<string, string>) : {} });
  },
};

export const startReplicationManager = (deps: NamespaceControllerDeps): RunningController => startReplicaManager(deps, replicationControllerKind);

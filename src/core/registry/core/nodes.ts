/** Node defaults (SetObjectDefaults_Node of core/v1). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

/**
 * SetDefaults_NodeStatus: a node reporting capacity but no allocatable can
 * allocate all of it. (kube also writes both lists as quantities encode, which
 * is left out: the simulated kubelets' reports are expected as they wrote them.)
 */
function defaultNode(node: KubeObject): void {
  const status = node['status'];
  if (!isObject(status)) return;
  if (isObject(status['capacity']) && (status['allocatable'] === undefined || status['allocatable'] === null)) status['allocatable'] = { ...status['capacity'] };
}

export const nodeStrategy: Partial<ResourceStrategy> = { defaulter: defaultNode };

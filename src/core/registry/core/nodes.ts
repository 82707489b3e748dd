/** Node defaults (SetObjectDefaults_Node of core/v1). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultResourceList } from './resourceList';

/**
 * SetDefaults_NodeStatus: a node reporting capacity but no allocatable can
 * allocate all of it; then both lists are written as quantities encode
 * (SetDefaults_ResourceList: a kubelet's `16777216Ki` is stored as `16Gi`).
 */
function defaultNode(node: KubeObject): void {
  const status = node['status'];
  if (!isObject(status)) return;
  if (isObject(status['capacity']) && (status['allocatable'] === undefined || status['allocatable'] === null)) status['allocatable'] = { ...status['capacity'] };
  defaultResourceList(status['capacity']);
  defaultResourceList(status['allocatable']);
}

export const nodeStrategy: Partial<ResourceStrategy> = { defaulter: defaultNode };

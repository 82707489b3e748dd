/**
 * Defaults of the apps workloads other than Deployment (SetDefaults_ReplicaSet,
 * SetDefaults_StatefulSet, SetDefaults_DaemonSet of apps/v1): the defaulters
 * decoding runs on every write, so validation sees what kube's sees.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultTemplate } from '../core/podSpec';

type Obj = Record<string, unknown>;
const specOf = (obj: KubeObject): Obj => (isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {}));
const child = (o: Obj, k: string): Obj => (isObject(o[k]) ? o[k] : (o[k] = {}));

function defaultReplicaSet(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  specOf(obj)['replicas'] ??= 1;
}

function defaultStatefulSet(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  const spec = specOf(obj);
  spec['podManagementPolicy'] ??= 'OrderedReady';
  const us = child(spec, 'updateStrategy');
  // Only a defaulted type brings a rollingUpdate with it; an explicit RollingUpdate may leave it out.
  if (us['type'] === undefined) {
    us['type'] = 'RollingUpdate';
    child(us, 'rollingUpdate');
  }
  if (us['type'] === 'RollingUpdate' && isObject(us['rollingUpdate'])) us['rollingUpdate']['partition'] ??= 0;
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  retention['whenDeleted'] ??= 'Retain';
  retention['whenScaled'] ??= 'Retain';
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
}

function defaultDaemonSet(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  const spec = specOf(obj);
  const us = child(spec, 'updateStrategy');
  us['type'] ??= 'RollingUpdate';
  if (us['type'] === 'RollingUpdate') {
    const ru = child(us, 'rollingUpdate');
    ru['maxUnavailable'] ??= 1;
    ru['maxSurge'] ??= 0;
  }
  spec['revisionHistoryLimit'] ??= 10;
}

export const replicaSetStrategy: Partial<ResourceStrategy> = { defaulter: defaultReplicaSet };
export const statefulSetStrategy: Partial<ResourceStrategy> = { defaulter: defaultStatefulSet };
export const daemonSetStrategy: Partial<ResourceStrategy> = { defaulter: defaultDaemonSet };

/**
 * Defaults of the apps workloads other than Deployment (SetDefaults_ReplicaSet,
 * SetDefaults_StatefulSet, SetDefaults_DaemonSet of apps/v1): the defaulters
 * decoding runs on every write, so validation sees what kube's sees.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultTemplate } from '../core/podSpec';
import { defaultClaim } from '../core/persistentVolumes';
import { jsonEqual } from '../../api/equality';

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
  // SetObjectDefaults_StatefulSet walks each claim template as a PersistentVolumeClaim.
  if (Array.isArray(spec['volumeClaimTemplates'])) for (const claim of spec['volumeClaimTemplates']) if (isObject(claim)) defaultClaim(claim);
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

/** PrepareForCreate: an empty status; its counts that are not omitempty encode as 0 (ReplicaSet: replicas; StatefulSet: replicas and availableReplicas). */
export const replicaSetStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultReplicaSet,
  prepareForCreate(obj) {
    obj['status'] = { replicas: 0 };
  },
};
export const statefulSetStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultStatefulSet,
  prepareForCreate(obj) {
    obj['status'] = { replicas: 0, availableReplicas: 0 };
  },
};
/** apps/v1 carries the internal spec.templateGeneration in this annotation (the DaemonSet controller's pod-template-generation). */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

const templateGenerationOf = (obj: KubeObject): number => {
  const n = Number(obj.metadata.annotations?.[templateGenerationAnnotation] ?? 0);
  return Number.isInteger(n) ? n : 0;
};

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  if (generation) obj.metadata.annotations = { ...obj.metadata.annotations, [templateGenerationAnnotation]: String(generation) };
  else if (obj.metadata.annotations) delete obj.metadata.annotations[templateGenerationAnnotation];
}

export const daemonSetStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultDaemonSet,
  // PrepareForCreate: an empty status (its four counts are not omitempty); templateGeneration starts at 1 unless the writer gave a later one.
  prepareForCreate(obj) {
    obj['status'] = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    setTemplateGeneration(obj, Math.max(1, templateGenerationOf(obj)));
  },
  // PrepareForUpdate: a writer may not set templateGeneration; a changed template raises it by one.
  prepareForUpdate(obj, old, ctx) {
    if (ctx.subresource !== '') return;
    const changed = !jsonEqual(specOf(obj)['template'], isObject(old['spec']) ? old['spec']['template'] : undefined);
    setTemplateGeneration(obj, templateGenerationOf(old) + (changed ? 1 : 0));
  },
};

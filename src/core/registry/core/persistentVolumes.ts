/**
 * PersistentVolume and PersistentVolumeClaim defaults and strategies
 * (SetDefaults_PersistentVolume / _PersistentVolumeClaim, pkg/registry/core
 * persistentvolume and persistentvolumeclaim): a volume is Retain and
 * Filesystem unless told, a claim Filesystem; both start Pending, and a
 * volume records when its phase last changed (lastPhaseTransitionTime, GA in
 * 1.31) on create and on each phase change through status.
 */
import { formatTime, isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy, StrategyContext } from '../generic/strategy';
import { defaultResourceList, defaultResourceRequirements } from './resourceList';
import { defaultPersistentVolumeSource } from './volumeSources';

const specOf = (obj: KubeObject): Record<string, unknown> => (isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {}));
const statusOf = (obj: KubeObject): Record<string, unknown> => (isObject(obj['status']) ? obj['status'] : (obj['status'] = {}));

/** SetObjectDefaults_PersistentVolume: SetDefaults_PersistentVolume and its source's and capacity's defaults. */
function defaultVolume(pv: KubeObject): void {
  const spec = specOf(pv);
  spec['persistentVolumeReclaimPolicy'] ||= 'Retain';
  spec['volumeMode'] ??= 'Filesystem';
  defaultPersistentVolumeSource(spec);
  if (isObject(pv['status']) && !pv['status']['phase']) pv['status']['phase'] = 'Pending';
}

/** SetDefaults_PersistentVolumeClaimSpec, with its resources' lists: what a claim and a claim template share. */
export function defaultClaimSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  spec['volumeMode'] ??= 'Filesystem';
  defaultResourceRequirements(spec['resources']);
}

/**
 * SetObjectDefaults_PersistentVolumeClaim: the spec's defaults, and a Pending
 * phase (SetDefaults_PersistentVolumeClaim), which a StatefulSet's claim
 * templates carry too as their status is not dropped there.
 */
export function defaultClaim(pvc: Record<string, unknown>): void {
  if (!isObject(pvc['spec'])) pvc['spec'] = {};
  defaultClaimSpec(pvc['spec']);
  const status = isObject(pvc['status']) ? pvc['status'] : (pvc['status'] = {});
  if (!status['phase']) status['phase'] = 'Pending';
  defaultResourceList(status['capacity']);
  defaultResourceList(status['allocatedResources']);
}

export const persistentVolumeStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultVolume,
  prepareForCreate(pv: KubeObject, ctx: StrategyContext) {
    pv['status'] = { phase: 'Pending', lastPhaseTransitionTime: formatTime(ctx.now) };
  },
  prepareForUpdate(pv: KubeObject, old: KubeObject, ctx: StrategyContext) {
    if (ctx.subresource !== 'status') return;
    const next = statusOf(pv);
    const prev = isObject(old['status']) ? old['status'] : {};
    if (next['phase'] !== prev['phase'] && (next['lastPhaseTransitionTime'] === undefined || next['lastPhaseTransitionTime'] === prev['lastPhaseTransitionTime'])) next['lastPhaseTransitionTime'] = formatTime(ctx.now);
  },
};

export const persistentVolumeClaimStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultClaim,
  prepareForCreate(pvc: KubeObject) {
    pvc['status'] = { phase: 'Pending' };
  },
};

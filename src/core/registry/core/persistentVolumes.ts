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

const specOf = (obj: KubeObject): Record<string, unknown> => (isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {}));
const statusOf = (obj: KubeObject): Record<string, unknown> => (isObject(obj['status']) ? obj['status'] : (obj['status'] = {}));

function defaultVolume(pv: KubeObject): void {
  const spec = specOf(pv);
  spec['persistentVolumeReclaimPolicy'] ??= 'Retain';
  spec['volumeMode'] ??= 'Filesystem';
  // SetDefaults_HostPathVolumeSource: an unset type is "".
  if (isObject(spec['hostPath'])) spec['hostPath']['type'] ??= '';
  if (isObject(pv['status']) && !pv['status']['phase']) pv['status']['phase'] = 'Pending';
}

function defaultClaim(pvc: KubeObject): void {
  specOf(pvc)['volumeMode'] ??= 'Filesystem';
  if (isObject(pvc['status']) && !pvc['status']['phase']) pvc['status']['phase'] = 'Pending';
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

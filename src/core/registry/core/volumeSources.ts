/**
 * Defaults of the volume sources pods, PersistentVolumes and VolumeAttachments'
 * inline volume specs share (core/v1 SetDefaults_*VolumeSource and the
 * declarative +default markers of k8s.io/api/core/v1).
 */
import { isObject } from '../../api/types';
import { defaultResourceList } from './resourceList';

type Obj = Record<string, unknown>;

/** A Go string field is unset when empty; a pointer only when nil. */
const unsetString = (v: unknown): boolean => v === undefined || v === null || v === '';

function defaultStrings(src: unknown, defaults: Record<string, string>): void {
  if (!isObject(src)) return;
  for (const [k, v] of Object.entries(defaults)) if (unsetString(src[k])) src[k] = v;
}

/** SetDefaults_HostPathVolumeSource: an unset type is "" (no check before mounting). */
export function defaultHostPath(src: unknown): void {
  if (isObject(src)) src['type'] ??= '';
}

/** RBDVolumeSource / RBDPersistentVolumeSource: pool rbd, user admin, keyring /etc/ceph/keyring. */
export const defaultRBD = (src: unknown): void => defaultStrings(src, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });

/** ISCSIVolumeSource / ISCSIPersistentVolumeSource: the "default" (tcp) iSCSI interface. */
export const defaultISCSI = (src: unknown): void => defaultStrings(src, { iscsiInterface: 'default' });

/** ScaleIOVolumeSource / ScaleIOPersistentVolumeSource: thin provisioned, xfs. */
export const defaultScaleIO = (src: unknown): void => defaultStrings(src, { storageMode: 'ThinProvisioned', fsType: 'xfs' });

/** SetDefaults_AzureDiskVolumeSource: ReadWrite caching, ext4, read-write, a shared blob disk. */
export function defaultAzureDisk(src: unknown): void {
  if (!isObject(src)) return;
  src['cachingMode'] ??= 'ReadWrite';
  src['fsType'] ??= 'ext4';
  src['readOnly'] ??= false;
  src['kind'] ??= 'Shared';
}

/**
 * The PersistentVolumeSpec parts every holder of one defaults
 * (SetObjectDefaults_PersistentVolume, and a VolumeAttachment's inline spec):
 * capacity and the sources above; reclaim policy and volume mode are the
 * PersistentVolume's own (SetDefaults_PersistentVolume).
 */
export function defaultPersistentVolumeSource(spec: Obj): void {
  defaultResourceList(spec['capacity']);
  defaultHostPath(spec['hostPath']);
  defaultRBD(spec['rbd']);
  defaultISCSI(spec['iscsi']);
  defaultAzureDisk(spec['azureDisk']);
  defaultScaleIO(spec['scaleIO']);
}

/**
 * The restricted volume check: only configMap, csi, downwardAPI, emptyDir,
 * ephemeral, persistentVolumeClaim, projected and secret volumes; it
 * supersedes the baseline hostPath check (check_restrictedVolumes.go).
 */
import { allowed, forbid, joinQuote, pluralize, sortedSet, type Check, type CheckPodFn } from './check';
import { checkHostPathVolumesID } from './host';

const allowedSources = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** The restricted sources in the order upstream tests for them; a source none of these names is "unknown". */
const restrictedSources = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder',
  'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'portworxVolume', 'photonPersistentDisk', 'scaleIO', 'storageos',
];

const restrictedVolumes: CheckPodFn = (_meta, spec) => {
  const badVolumes: string[] = [];
  const badTypes: string[] = [];
  for (const volume of spec.volumes ?? []) {
    if (allowedSources.some((s) => volume[s] != null)) continue;
    badVolumes.push(volume.name);
    badTypes.push(restrictedSources.find((s) => volume[s] != null) ?? 'unknown');
  }
  if (!badVolumes.length) return allowed;
  const types = sortedSet(badTypes);
  return forbid(
    'restricted volume types',
    `${pluralize('volume', 'volumes', badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize('uses', 'use', badVolumes.length)} ${pluralize('restricted volume type', 'restricted volume types', types.length)} ${joinQuote(types)}`,
  );
};

export const volumeChecks: Check[] = [{ id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: restrictedVolumes, overrideCheckIDs: [checkHostPathVolumesID] }] }];

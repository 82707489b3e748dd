/**
 * The CustomResourceDefinition strategy (pkg/registry/customresourcedefinition):
 * v1 defaults (singular, listKind, conversion None), a create starts with no
 * accepted names and the storage version stored, later storage versions are
 * added to status.storedVersions, and a delete marks the CRD Terminating and
 * holds it with the customresourcecleanup finalizer until its objects are gone.
 */
import { isObject, type KubeObject } from '../../api/types';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER } from '../../apiextensions/types';
import type { ResourceStrategy } from '../generic/strategy';

/** SetDefaults_CustomResourceDefinition and its spec's: the defaulter decoding runs. */
function setDefaults(obj: KubeObject): void {
  const spec = obj['spec'];
  if (!isObject(spec)) return;
  const names = spec['names'];
  if (isObject(names) && typeof names['kind'] === 'string') {
    if (!names['singular']) names['singular'] = names['kind'].toLowerCase();
    if (!names['listKind']) names['listKind'] = `${names['kind']}List`;
  }
  if (spec['conversion'] === undefined || spec['conversion'] === null) spec['conversion'] = { strategy: 'None' };
}

function storageVersion(obj: KubeObject): string | undefined {
  const spec = obj['spec'];
  const versions = isObject(spec) && Array.isArray(spec['versions']) ? spec['versions'] : [];
  const v = versions.find((x): x is Record<string, unknown> => isObject(x) && x['storage'] === true);
  return typeof v?.['name'] === 'string' ? v['name'] : undefined;
}

function statusOf(obj: KubeObject): Record<string, unknown> {
  if (!isObject(obj['status'])) obj['status'] = {};
  return obj['status'] as Record<string, unknown>;
}

export const customResourceDefinitionStrategy: Partial<ResourceStrategy> = {
  defaulter: setDefaults,
  prepareForCreate(obj) {
    const stored = storageVersion(obj);
    obj['status'] = { acceptedNames: { plural: '', kind: '' }, storedVersions: stored ? [stored] : [] };
  },
  prepareForUpdate(obj) {
    // The storage version is recorded as soon as objects may be written in it.
    const stored = storageVersion(obj);
    const status = statusOf(obj);
    const versions = Array.isArray(status['storedVersions']) ? (status['storedVersions'] as string[]) : [];
    if (stored && !versions.includes(stored)) status['storedVersions'] = [...versions, stored];
  },
  // The first DELETE is held (the cleanup finalizer is added then); later ones follow metadata.finalizers.
  deletionFinalizers(obj) {
    return obj.metadata.deletionTimestamp ? [] : [CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  },
  prepareForDelete(obj) {
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
    const status = statusOf(obj);
    const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter((c) => !(isObject(c) && c['type'] === 'Terminating'));
    conditions.push({
      type: 'Terminating',
      status: 'True',
      lastTransitionTime: obj.metadata.deletionTimestamp,
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    status['conditions'] = conditions;
  },
};

/**
 * The custom resource strategy (apiextensions-apiserver's
 * pkg/registry/customresource): the structural schema's defaults are the
 * defaulter (the custom resource codec's, run when a body is decoded); with a
 * status subresource, a create drops status, the main resource keeps the
 * stored status and the status endpoint keeps everything else; then the
 * version's schema validates the object.
 */
import type { KubeObject } from '../api/types';
import type { ResourceStrategy } from '../registry/generic/strategy';
import type { ResourceType } from '../registry/types';
import { customResourceInfo } from './resources';
import { applyDefaults, schemaHasDefaults } from './schemaValidation';
import { validateCustomResource, validateCustomResourceUpdate } from './validation';

export function customResourceStrategy(type: ResourceType): ResourceStrategy {
  const info = customResourceInfo(type);
  const hasStatus = !!info?.hasStatus;
  const schema = info?.schema;
  const defaults = schema && schemaHasDefaults(schema) ? schema : undefined;
  return {
    hasGeneration: true,
    ...(defaults ? { defaulter: (obj: KubeObject) => applyDefaults(defaults, obj) } : {}),
    prepareForCreate(obj) {
      if (!hasStatus) return;
      delete obj['status'];
      // Reading the object back from storage defaults it again: a status with defaults comes back.
      if (defaults) applyDefaults(defaults, obj);
    },
    prepareForUpdate(obj, old, ctx) {
      if (!hasStatus) return;
      if (ctx.subresource === 'status') {
        // Only status changes; managedFields keep what the status write tracked.
        const status = obj['status'];
        const managedFields = obj.metadata.managedFields;
        for (const k of Object.keys(obj)) delete obj[k];
        Object.assign(obj, structuredClone(old));
        if (managedFields) obj.metadata.managedFields = managedFields;
        else delete obj.metadata.managedFields;
        if (status !== undefined) obj['status'] = status;
        else delete obj['status'];
      } else if (old['status'] !== undefined) {
        obj['status'] = structuredClone(old['status']);
      } else {
        delete obj['status'];
      }
    },
    validate(obj) {
      return info ? validateCustomResource(info, obj) : [];
    },
    validateUpdate(obj, old) {
      return info ? validateCustomResourceUpdate(info, obj, old) : [];
    },
  };
}

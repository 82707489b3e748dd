import type { SchemaObject } from '../../registry/types';

/**
 * ObjectMeta as the server types it for every object, including custom
 * resources and schemaless ones: the merge markers are what matter here.
 */
const stringMap: SchemaObject = { type: 'object', additionalProperties: { type: 'string' } };

export const OBJECT_META_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    annotations: stringMap,
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    generateName: { type: 'string' },
    generation: { type: 'integer', format: 'int64' },
    labels: stringMap,
    managedFields: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          blockOwnerDeletion: { type: 'boolean' },
          controller: { type: 'boolean' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
        },
      },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: { type: 'string' },
    selfLink: { type: 'string' },
    uid: { type: 'string' },
  },
};

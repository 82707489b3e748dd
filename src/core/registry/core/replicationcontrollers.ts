/** ReplicationController strategy: SetDefaults_ReplicationController and template defaults (pkg/registry/core/replicationcontroller). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultTemplate } from './podSpec';

/** Selector and object labels default to the template's labels; replicas to 1. The template is a pointer: never created. */
function defaultReplicationController(obj: KubeObject): void {
  const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  const template = isObject(spec['template']) ? spec['template'] : undefined;
  const labels = template && isObject(template['metadata']) && isObject(template['metadata']['labels']) ? template['metadata']['labels'] : undefined;
  if (labels) {
    if (!isObject(spec['selector']) || Object.keys(spec['selector']).length === 0) spec['selector'] = { ...labels };
    if (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0) obj.metadata.labels = { ...(labels as Record<string, string>) };
  }
  spec['replicas'] ??= 1;
  defaultTemplate(obj, ['spec', 'template', 'spec'], undefined, false);
}

export const replicationControllerStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultReplicationController,
  // PrepareForCreate: an empty status, whose replicas is not omitempty.
  prepareForCreate(obj) {
    obj['status'] = { replicas: 0 };
  },
};

/** Deployment strategy (pkg/registry/apps/deployment). */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultTemplate } from '../core/podSpec';

/** Deployment defaults (SetDefaults_Deployment), the defaulter decoding runs on every write. */
function defaultDeployment(obj: KubeObject): void {
  defaultTemplate(obj, ['spec', 'template', 'spec']);
  const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  const strategy = isObject(spec['strategy']) ? spec['strategy'] : (spec['strategy'] = {});
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const ru = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : (strategy['rollingUpdate'] = {});
    ru['maxUnavailable'] ??= '25%';
    ru['maxSurge'] ??= '25%';
  }
}

export const deploymentStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultDeployment,
};

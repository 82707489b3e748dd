/** Built-in schemas for tests, from the bundled registry. */
import { registryBundle } from '../../registry';
import type { SchemaObject } from '../../registry/types';

export const definitions: Record<string, SchemaObject> = registryBundle.definitions;

export function definition(name: string): SchemaObject {
  const d = definitions[name];
  if (!d) throw new Error(`no definition ${name}`);
  return d;
}

export const CONFIGMAP = 'io.k8s.api.core.v1.ConfigMap';
export const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';
export const POD = 'io.k8s.api.core.v1.Pod';
export const SERVICE = 'io.k8s.api.core.v1.Service';

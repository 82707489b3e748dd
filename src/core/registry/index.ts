/**
 * The resource registry: which group/version/resources exist (every built-in
 * kind of Kubernetes 1.36, bundled from the upstream OpenAPI document, plus
 * custom resources added at runtime), which of them this server serves, their
 * scope, verbs, subresources, short names, categories and schemas.
 */
import { registryBundle } from './generated';
import { ResourceRegistry, type RegistryOptions } from './registry';

export { registryBundle } from './generated';
export {
  CUSTOM_GROUP_PRIORITY,
  ResourceRegistry,
  RuntimeConfigError,
  parseRuntimeConfig,
  type RegistryOptions,
  type ServedGroup,
} from './registry';
export { compareVersionPriority, versionLevel } from './versionPriority';
export type * from './types';

/** A registry of the built-in Kubernetes 1.36 API, as a default (or --runtime-config'd) kube-apiserver serves it. */
export function builtinRegistry(options: RegistryOptions = {}): ResourceRegistry {
  return new ResourceRegistry(registryBundle, options);
}

/** Strategies of the apiextensions group's resources, keyed by resource (apiextensions-apiserver's pkg/registry). */
import type { ResourceStrategy } from '../generic/strategy';
import { customResourceDefinitionStrategy } from './customResourceDefinitions';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  customresourcedefinitions: customResourceDefinitionStrategy,
};

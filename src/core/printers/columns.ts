/**
 * Building blocks for column definitions. Descriptions come from the API
 * field documentation (./descriptions.ts), as kube's printers take them from
 * the generated SwaggerDoc of the field each column shows.
 */

import { FIELD_DESCRIPTIONS } from './descriptions';
import type { TableColumnDefinition } from './types';

/** Documentation of `<group>.<version>.<Type>.<field>`, e.g. `core.v1.PodStatus.podIP`; empty when the field has none. */
export function doc(key: string): string {
  return FIELD_DESCRIPTIONS[key] ?? '';
}

export function column(
  name: string,
  type: string,
  description: string,
  options: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** Priority-1 column: shown by `kubectl get -o wide`. */
export function wide(name: string, type: string, description: string): TableColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

export const nameColumn = (): TableColumnDefinition =>
  column('Name', 'string', doc('meta.v1.ObjectMeta.name'), { format: 'name' });

export const ageColumn = (): TableColumnDefinition => column('Age', 'string', doc('meta.v1.ObjectMeta.creationTimestamp'));

export const CONTAINERS_DESCRIPTION = 'Names of each container in the template.';
export const IMAGES_DESCRIPTION = 'Images referenced by each container in the template.';

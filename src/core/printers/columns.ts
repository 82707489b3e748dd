/**
 * Building blocks for column definitions. Descriptions come from the API
 * field documentation, as kube's printers take them from the generated
 * SwaggerDoc of the field each column shows.
 *
 * descriptions.json holds that documentation, keyed by
 * <group>.<version>.<Type>.<field>, extracted from the Kubernetes OpenAPI
 * definitions (swagger 1.36, /work/shared/data/openapi). Add the field's
 * comment there when a printer starts using another field's documentation.
 * It is deferred data (util/deferredData.ts): the service worker loads it
 * before the first Table it prints, so a column reads it when printed.
 */

import { DeferredData, type DeferredRef } from '../util/deferredData';
import descriptions from './descriptions.json';
import type { TableColumnDefinition } from './types';

export const fieldDescriptions = new DeferredData<Readonly<Record<string, string>>>("the printers' column descriptions", descriptions as Record<string, string> | DeferredRef);

/** A column description that is the documentation of an API field. */
export class FieldDoc {
  constructor(readonly key: string) {}
}

/** Documentation of `<group>.<version>.<Type>.<field>`, e.g. `core.v1.PodStatus.podIP`; empty when the field has none. */
export function doc(key: string): FieldDoc {
  return new FieldDoc(key);
}

/** A description's text; a field's documentation is read when a Table is printed. */
export function describe(description: string | FieldDoc): string {
  return typeof description === 'string' ? description : (fieldDescriptions.loaded[description.key] ?? '');
}

export function column(
  name: string,
  type: string,
  description: string | FieldDoc,
  options: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  const def = { name, type, format: options.format ?? '', description: '', priority: options.priority ?? 0 };
  if (typeof description === 'string') def.description = description;
  // Read when the column is copied into a Table (or its JSON), not when the printer is built.
  else Object.defineProperty(def, 'description', { enumerable: true, get: () => describe(description) });
  return def;
}

/** Priority-1 column: shown by `kubectl get -o wide`. */
export function wide(name: string, type: string, description: string | FieldDoc): TableColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

export const nameColumn = (): TableColumnDefinition =>
  column('Name', 'string', doc('meta.v1.ObjectMeta.name'), { format: 'name' });

export const ageColumn = (): TableColumnDefinition => column('Age', 'string', doc('meta.v1.ObjectMeta.creationTimestamp'));

export const CONTAINERS_DESCRIPTION = 'Names of each container in the template.';
export const IMAGES_DESCRIPTION = 'Images referenced by each container in the template.';

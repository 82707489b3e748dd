/** Turns labelSelector/fieldSelector query parameters into an object predicate (400 on bad syntax or unsupported fields). */
import type { KubeObject } from '../../api/types';
import { newBadRequest } from '../../errors';
import { fieldsForObject, isSelectorError, parseLabelSelector, validateFieldSelector } from '../../selectors';
import type { ResourceType } from '../../registry/types';

export interface Selection {
  /** undefined when neither selector is given. */
  predicate?: (obj: KubeObject) => boolean;
}

export function selectionFrom(url: URL, type: ResourceType): Selection {
  const ls = url.searchParams.get('labelSelector') ?? '';
  const fs = url.searchParams.get('fieldSelector') ?? '';
  if (!ls && !fs) return {};
  const labels = parseLabelSelector(ls);
  if (isSelectorError(labels)) throw newBadRequest(labels.message);
  // Parses and rejects fields the resource cannot select on (`field label not supported: ...`).
  const fields = validateFieldSelector(type.group, type.resource, fs);
  if (isSelectorError(fields)) throw newBadRequest(fields.message);
  const labelsEmpty = labels.empty();
  const fieldsEmpty = fields.empty();
  if (labelsEmpty && fieldsEmpty) return {};
  return {
    predicate: (obj) =>
      (labelsEmpty || labels.matches(obj.metadata.labels ?? {})) &&
      (fieldsEmpty || fields.matches(fieldsForObject(type.group, type.resource, obj))),
  };
}

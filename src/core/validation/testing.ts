/** Test support for validation tables: run a kind's validation and read the errors as kube-apiserver prints them. */
import type { KubeObject } from '../api/types';
import { fieldErrorString } from '../errors';
import { seededRandom } from '../util/clock';
import { validationFor } from '.';

/** Every error of a create (or, with old, an update) of obj, as `field: Type: value: detail`. */
export function errorsOf(group: string, resource: string, obj: Record<string, unknown>, old?: Record<string, unknown>, subresource = ''): string[] {
  const v = validationFor(group, resource);
  const ctx = { now: new Date('2026-01-01T00:00:00Z'), subresource, random: seededRandom(1) };
  const withMeta = (o: Record<string, unknown>) => ({ metadata: { name: 'x', namespace: 'default' }, ...o }) as KubeObject;
  const errs = old ? (v.validateUpdate?.(withMeta(obj), withMeta(old), ctx) ?? []) : (v.validate?.(withMeta(obj), ctx) ?? []);
  return errs.map(fieldErrorString);
}

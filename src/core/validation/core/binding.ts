/**
 * ValidatePodBinding and ValidatePodLogOptions: the option and request kinds
 * of the pod subresources, which are never stored.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { isNegativeErrorMsg, obj, str } from './common';

/** ValidatePodBinding: the target is a Node (or unnamed kind) and has a name. */
export function validatePodBinding(binding: Record<string, unknown>): FieldError[] {
  const target = obj(binding['target']) ?? {};
  const errs: FieldError[] = [];
  const kind = str(target['kind']);
  if (kind && kind !== 'Node') errs.push(notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!str(target['name'])) errs.push(required('target.name'));
  return errs;
}

/** PodLogOptions as decoded from the query. */
export interface PodLogOptions {
  container?: string;
  follow?: boolean;
  previous?: boolean;
  timestamps?: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend?: boolean;
  stream?: string;
}

/** ValidatePodLogOptions with PodLogsQuerySplitStreams off (alpha): `stream` may not be set. */
export function validatePodLogOptions(opts: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) errs.push(invalid('tailLines', opts.tailLines, isNegativeErrorMsg));
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errs.push(invalid('limitBytes', opts.limitBytes, 'must be greater than 0'));
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) {
    errs.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) {
    errs.push(invalid('sinceSeconds', opts.sinceSeconds, 'must be greater than 0'));
  }
  if (opts.stream !== undefined) errs.push(forbidden('stream', 'may not be specified'));
  return errs;
}

/**
 * Kubernetes Status errors (k8s.io/apimachinery/pkg/api/errors): one class
 * that knows its HTTP code and body, constructors named after the reason, and
 * predicates. Anything thrown that is not a StatusError becomes a 500.
 */
import { fieldErrorBody, fieldErrorsAggregate, type FieldError } from './fieldErrors';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | '';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A group plus resource, as errors name what they are about (`deployments.apps`). */
export interface GroupResource {
  group: string;
  resource: string;
}

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
    this.name = 'StatusError';
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

/** `deployments.apps` or `pods`. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = { name };
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, resourceDetails(gr, name));
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, resourceDetails(gr, name));
}

export const optimisticLockErrorMsg = 'the object has been modified; please apply your changes to the latest version and try again';

export function newConflict(gr: GroupResource, name: string, message: string, causes?: StatusCause[]): StatusError {
  const details = resourceDetails(gr, name);
  if (causes) details.causes = causes;
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${message}`, details);
}

/** 422 Invalid: `Kind.group "name" is invalid: field: Invalid value: ...`. */
export function newInvalid(qualifiedKind: { group: string; kind: string }, name: string, errs: FieldError[]): StatusError {
  const causes = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const kindStr = qualifiedKind.group ? `${qualifiedKind.kind}.${qualifiedKind.group}` : qualifiedKind.kind;
  let message = `${kindStr} "${name}" is invalid`;
  if (errs.length) message += `: ${fieldErrorsAggregate(errs)}`;
  // Go's omitempty: an empty name is left out of details.
  const details: StatusDetails = name ? { name } : {};
  if (qualifiedKind.group) details.group = qualifiedKind.group;
  details.kind = qualifiedKind.kind;
  details.causes = causes;
  return failure(422, 'Invalid', message, details);
}

export function newBadRequest(message: string, causes?: StatusCause[]): StatusError {
  return failure(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return failure(401, 'Unauthorized', message);
}

export function newForbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return failure(403, 'Forbidden', `${subject} is forbidden: ${reason}`, resourceDetails(gr, name));
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, { group: gr.group || undefined, kind: gr.resource });
}

export function newNotAcceptable(accepted: string[]): StatusError {
  return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function newUnsupportedMediaType(accepted: string[]): StatusError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** 410 for expired continue tokens and resource versions that are too old. */
export function newResourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function newGone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function newTooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

export function newInternalError(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  return failure(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

export function newServiceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

export function newGenericNotFound(): StatusError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** A path the API serves, with a method it has no route for (go-restful's 405 as kube-apiserver writes it). */
export function newRouteMethodNotAllowed(): StatusError {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export const isStatusError = (e: unknown): e is StatusError => e instanceof StatusError;
export const isNotFound = (e: unknown): boolean => isStatusError(e) && e.reason === 'NotFound';
export const isAlreadyExists = (e: unknown): boolean => isStatusError(e) && e.reason === 'AlreadyExists';
export const isConflict = (e: unknown): boolean => isStatusError(e) && e.reason === 'Conflict';
export const isInvalid = (e: unknown): boolean => isStatusError(e) && e.reason === 'Invalid';

/** Turns anything thrown into a Status; non-Status errors are programmer mistakes (500) and are logged. */
export function errorToStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  console.error('kubesim: unexpected error', err);
  return newInternalError(err).status;
}

export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

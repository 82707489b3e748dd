/**
 * The AdmissionReview a webhook receives and the checks on what it answers
 * (admission/plugin/webhook/request/admissionreview.go): admission.k8s.io/v1,
 * or v1beta1 when it is the only version the webhook accepts; the response
 * must carry the request's uid, and only mutating webhooks may patch, with
 * patchType JSONPatch.
 */
import { isObject } from '../../api/types';
import type { AdmissionAttributes } from '../attributes';

export interface AdmissionResult {
  allowed: boolean;
  status?: Record<string, unknown>;
  /** The decoded JSON Patch, when the webhook returned one. */
  patch?: unknown;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** The review version to send: the first of admissionReviewVersions kubesim speaks. */
export function reviewVersion(versions: readonly string[] | undefined): 'v1' | 'v1beta1' | undefined {
  return (versions ?? []).find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
}

export function admissionReview(a: AdmissionAttributes, uid: string, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  const userInfo: Record<string, unknown> = { username: a.user.username };
  if (a.user.uid) userInfo['uid'] = a.user.uid;
  if (a.user.groups?.length) userInfo['groups'] = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) userInfo['extra'] = a.user.extra;
  const kind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  const resource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  const request: Record<string, unknown> = { uid, kind, resource };
  if (a.subresource) request['subResource'] = a.subresource;
  request['requestKind'] = kind;
  request['requestResource'] = resource;
  if (a.subresource) request['requestSubResource'] = a.subresource;
  if (a.name) request['name'] = a.name;
  if (a.namespace) request['namespace'] = a.namespace;
  Object.assign(request, { operation: a.operation, userInfo, object: a.object ?? null, oldObject: a.oldObject ?? null, dryRun: a.dryRun, options: a.options ?? null });
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** base64 (std encoding) to text; undefined when it is not base64. */
function decodeBase64(s: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

/** VerifyAdmissionResponse: the answer, or the reason it is not one (wrapped as "received invalid webhook response"). */
export function verifyAdmissionResponse(uid: string, version: 'v1' | 'v1beta1', mutating: boolean, review: unknown): AdmissionResult | string {
  if (!isObject(review)) return 'webhook response was absent';
  const expectedAPIVersion = `admission.k8s.io/${version}`;
  if (version === 'v1' && (review['apiVersion'] !== expectedAPIVersion || review['kind'] !== 'AdmissionReview')) {
    return `expected webhook response of ${expectedAPIVersion}, Kind=AdmissionReview, got ${String(review['apiVersion'] ?? '')}, Kind=${String(review['kind'] ?? '')}`;
  }
  const r = review['response'];
  if (!isObject(r)) return 'webhook response was absent';
  if (r['uid'] !== uid) return `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r['uid'] ?? '')}`;
  const patchType = typeof r['patchType'] === 'string' ? r['patchType'] : '';
  const patchText = typeof r['patch'] === 'string' ? r['patch'] : '';
  if (!mutating && (patchType || patchText)) return 'validating webhooks may not return patches or patch types';
  let patch: unknown;
  if (patchText) {
    if (version === 'v1' && !patchType) return 'webhook returned response.patch but not response.patchType';
    if (patchType && patchType !== 'JSONPatch') return `webhook returned invalid response.patchType of "${patchType}"`;
    const text = decodeBase64(patchText);
    if (text === undefined) return 'illegal base64 data in response.patch';
    try {
      patch = JSON.parse(text);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  } else if (version === 'v1' && patchType) return 'webhook returned response.patchType but not response.patch';
  const warnings = Array.isArray(r['warnings']) ? r['warnings'].filter((w): w is string => typeof w === 'string') : [];
  const audit: Record<string, string> = {};
  if (isObject(r['auditAnnotations'])) for (const [k, v] of Object.entries(r['auditAnnotations'])) if (typeof v === 'string') audit[k] = v;
  return { allowed: r['allowed'] === true, status: isObject(r['status']) ? r['status'] : undefined, patch, warnings, auditAnnotations: audit };
}

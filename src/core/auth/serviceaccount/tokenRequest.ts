/**
 * POST serviceaccounts/<name>/token (pkg/registry/core/serviceaccount/storage/token.go):
 * mints a bound token for the account, for spec.audiences (the API server's
 * by default), spec.expirationSeconds (1h by default, at least 10 minutes,
 * capped by --service-account-max-token-expiration) and optionally bound to a
 * Pod, Secret or Node that must exist (and match boundObjectRef.uid).
 */
import { isObject, type KubeObject } from '../../api/types';
import { newBadRequest, newConflict, newInvalid, newNotFound, type FieldError } from '../../errors';
import { decodeObject, protobufFor, readBody } from '../../http/handlers/common';
import type { RequestScope } from '../../http/handlers/scope';
import { negotiateInput, negotiateOutput } from '../../http/negotiation';
import { writeObject } from '../../http/responseWriter';
import { newUUID } from '../../util/uuid';
import { boundClaims, type ObjectRef } from './claims';
import type { ServiceAccountTokens } from './tokens';

const tokenRequestKind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const minExpirationSeconds = 10 * 60;
const maxExpirationSeconds = 2 ** 32;

function validateTokenRequest(expirationSeconds: number): FieldError[] {
  const field = 'spec.expirationSeconds';
  if (expirationSeconds < minExpirationSeconds) return [{ type: 'FieldValueInvalid', field, value: expirationSeconds, detail: 'may not specify a duration less than 10 minutes' }];
  if (expirationSeconds > maxExpirationSeconds) return [{ type: 'FieldValueInvalid', field, value: expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' }];
  return [];
}

/** Go's schema.GroupVersionKind.String(): `group/version, Kind=kind`. */
function gvkString(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

export async function createToken(
  scope: RequestScope,
  tokens: ServiceAccountTokens,
  getObject: (resource: 'pods' | 'secrets' | 'nodes', namespace: string, name: string) => Promise<KubeObject | undefined>,
  /** Admission of the request (NodeRestriction), after validation and before anything is bound or signed. */
  admit?: (spec: Record<string, unknown>) => Promise<void>,
): Promise<Response> {
  const { request, url, info, clock, random } = scope;
  const protobuf = protobufFor(scope);
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf, url, userAgent: request.headers.get('user-agent') });
  const decoder = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf });
  const req = decodeObject(decoder, await readBody(request), tokenRequestKind);
  const spec = isObject(req['spec']) ? { ...req['spec'] } : {};
  const namespace = info.namespace;
  const name = info.name;

  const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : 3600;
  const errs = validateTokenRequest(expirationSeconds);
  if (errs.length) throw newInvalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, name, errs);

  const sa = await scope.store.getKv(namespace, name);
  if (!sa) throw newNotFound({ group: '', resource: 'serviceaccounts' }, name);
  const account = scope.store.decode(sa);
  await admit?.(spec);

  let pod: ObjectRef | undefined;
  let secret: ObjectRef | undefined;
  let node: ObjectRef | undefined;
  const ref = isObject(spec['boundObjectRef']) ? (spec['boundObjectRef'] as Record<string, string>) : undefined;
  if (ref) {
    const apiVersion = ref['apiVersion'] ?? '';
    const kind = ref['kind'] ?? '';
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    const resource = group === '' ? ({ Pod: 'pods', Secret: 'secrets', Node: 'nodes' } as const)[kind] : undefined;
    if (!resource) throw newBadRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
    const objName = ref['name'] ?? '';
    const obj = await getObject(resource, resource === 'nodes' ? '' : namespace, objName);
    if (!obj) throw newNotFound({ group: '', resource }, objName);
    if (resource === 'pods') {
      const podSpec = isObject(obj['spec']) ? obj['spec'] : {};
      const podAccount = typeof podSpec['serviceAccountName'] === 'string' && podSpec['serviceAccountName'] ? podSpec['serviceAccountName'] : 'default';
      if (podAccount !== name) throw newBadRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
    }
    const uid = obj.metadata.uid ?? '';
    if (ref['uid'] && ref['uid'] !== uid) {
      throw newConflict({ group: '', resource: kind }, objName, `the UID in the bound object reference (${ref['uid']}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    const objRef = { name: objName, uid };
    if (resource === 'pods') pod = objRef;
    else if (resource === 'secrets') secret = objRef;
    else node = objRef;
  }

  const max = tokens.options.maxTokenExpirationSeconds;
  const granted = max && expirationSeconds > max ? max : expirationSeconds;
  const audiences = Array.isArray(spec['audiences']) && spec['audiences'].length ? (spec['audiences'] as string[]) : [...tokens.apiAudiences];
  const now = clock.now();
  const claims = boundClaims({
    issuer: tokens.issuer, namespace, serviceAccount: { name, uid: account.metadata.uid ?? '' },
    audiences, expirationSeconds: granted, now, jti: newUUID(random), pod, secret, node,
  });
  const token = await tokens.sign(claims);
  const out = {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds: granted, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: new Date(claims.exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
  return writeObject(choice.serializer, 201, out, { pretty: choice.pretty });
}

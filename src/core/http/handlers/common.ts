/** Request-body and query-parameter helpers shared by the verb handlers. */
import { apiVersionOf, isObject, type KubeObject } from '../../api/types';
import {
  newBadRequest,
  newInvalid,
  newRequestEntityTooLarge,
  notSupported,
  goStringSlice,
  type FieldError,
} from '../../errors';
import { isPrintable, isPrintableAscii, managerOrUserAgent, utf8Width } from '../../fieldmanager';
import { supportsProtobufKind } from '../serializers/protobufSerializer';
import { jsonSerializer, jsonText, parseJson } from '../serializers/json';
import type { Serializer } from '../serializers/types';
import type { RequestScope } from './scope';
import type { ResourceType } from '../../registry/types';
import { queryOf } from '../queryParams';
import { concatBytes } from '../../util/bytes';

/** kube-apiserver's default --max-request-body-bytes (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export async function readBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxRequestBodyBytes) throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
  if (declared > 0) {
    // A body of declared length (HTTP hosts hold it to that length) is read whole: a host's
    // lightweight Request (the Node host's) then reads the socket without a web stream.
    const whole = new Uint8Array(await request.arrayBuffer());
    if (whole.byteLength > maxRequestBodyBytes) throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
    return whole;
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxRequestBodyBytes) {
      await reader.cancel();
      throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
    }
    chunks.push(value);
  }
  // A body that came in one chunk (an in-process Request's) is that chunk: no copy.
  if (chunks.length === 1) return chunks[0]!;
  return concatBytes(chunks, total);
}

export function protobufFor(scope: RequestScope): boolean {
  let known = protobufByType.get(scope.type);
  if (known === undefined) protobufByType.set(scope.type, (known = supportsProtobufKind(apiVersionOf(scope.type.group, scope.type.version), scope.type.kind)));
  return known;
}

/** Whether a kind has a protobuf message depends on the type alone; every request asks. */
const protobufByType = new WeakMap<ResourceType, boolean>();

/**
 * Decodes a request body into an object of the URL's kind: apiVersion and
 * kind default from the URL (typed clients may omit them) and must match it.
 */
export function decodeObject(serializer: Serializer, body: Uint8Array, expected: { group: string; version: string; kind: string }): KubeObject {
  return decodeBody(serializer, body, expected).object;
}

export interface DecodedBody {
  object: KubeObject;
  /** The value the serializer decoded, before apiVersion, kind and metadata were defaulted into `object`. */
  parsed: unknown;
  /** A JSON body's text, decoded once for both the parse and field validation. */
  text?: string;
}

/** decodeObject, also keeping the value as decoded (field validation reads the body's own keys off it). */
export function decodeBody(serializer: Serializer, body: Uint8Array, expected: { group: string; version: string; kind: string }): DecodedBody {
  if (body.byteLength === 0) throw newBadRequest('the body of the request was empty');
  const text = serializer === jsonSerializer ? jsonText(body) : undefined;
  const value = text !== undefined ? parseJson(text) : serializer.decode(body);
  const expectedApiVersion = apiVersionOf(expected.group, expected.version);
  if (!isObject(value)) {
    throw newBadRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const apiVersion = value['apiVersion'] ?? expectedApiVersion;
  const kind = value['kind'] ?? expected.kind;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') throw newBadRequest("Object 'Kind' is missing or not a string");
  if (apiVersion !== expectedApiVersion) {
    throw newBadRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (kind !== expected.kind) {
    throw newBadRequest(`${kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: no kind "${kind}" is registered for version "${expectedApiVersion}"`);
  }
  const metadata = value['metadata'] ?? {};
  if (!isObject(metadata)) throw newBadRequest(`${expected.kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: json: cannot unmarshal ${typeof metadata} into Go struct field ${expected.kind}.metadata of type v1.ObjectMeta`);
  return { object: { ...value, apiVersion, kind, metadata } as KubeObject, parsed: value, text };
}

/** `dryRun`: absent or bare means a normal request; `All` means dry run; anything else is 422. */
export function parseDryRun(url: URL, optionsKind: string): boolean {
  if (url.search === '') return false;
  const set = queryOf(url).getAll('dryRun').filter((v) => v !== '');
  const errs = validateDryRun(set);
  if (errs.length) throw newInvalidOptions(optionsKind, errs);
  return set.length > 0;
}

/** ValidateDryRun: only `All` is a dry-run directive. */
export function validateDryRun(values: string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [{ ...notSupported('dryRun', values, ['All']), valueText: goStringSlice(values) }];
}

export function newInvalidOptions(optionsKind: string, errs: FieldError[]) {
  return newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
}

/**
 * The field manager of a write: `fieldManager` (validated as the apiserver
 * does) or, for non-apply writes, the User-Agent's product name.
 */
export function fieldManagerName(scope: RequestScope, optionsKind: string): string {
  const name = queryOf(scope.url).get('fieldManager');
  if (name !== null) {
    const errs: FieldError[] = [];
    if (name.length > 128) errs.push({ type: 'FieldValueTooLong', field: 'fieldManager', value: name, detail: 'may not be more than 128 bytes', showValue: false });
    // One error per character Go's unicode.IsPrint rejects, named as %#U prints it (printable ASCII has none).
    let position = 0;
    if (!isPrintableAscii(name)) for (const ch of name) {
      if (!isPrintable(ch)) {
        const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
        errs.push({ type: 'FieldValueInvalid', field: 'fieldManager', value: name, detail: `invalid character ${code} (at position ${position})` });
      }
      position += utf8Width(ch);
    }
    if (errs.length) throw newInvalidOptions(optionsKind, errs);
  }
  return managerOrUserAgent(name, scope.request.headers.get('user-agent'));
}

/** Name and namespace in the body must agree with the URL. */
export function checkNameAndNamespace(obj: KubeObject, scope: RequestScope, requireName: boolean): void {
  const { info } = scope;
  const ns = scope.store.namespaced ? info.namespace : '';
  if (scope.store.namespaced) {
    if (obj.metadata.namespace && obj.metadata.namespace !== ns) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }
  if (requireName) {
    const name = obj.metadata.name;
    if (name && name !== info.name) throw newBadRequest(`the name of the object (${name}) does not match the name on the URL (${info.name})`);
  }
}

/**
 * PATCH: JSON patch (RFC 6902), merge patch (RFC 7386), strategic merge
 * patch (built-in kinds only) and server-side apply (YAML, or CBOR with
 * CBORServingAndStorage). Each runs against the
 * current object inside the store's compare-and-swap update, followed by the
 * field manager (Update for patches, Apply for apply), as the apiserver's patcher does.
 * A patched object is defaulted before the field manager records it (the
 * patchers decode it, or call the defaulter); an apply's result after, so the
 * applier owns only what it applied (structuredmerge.go's Apply).
 */
import { isObject, type KubeObject } from '../../api/types';
import type { FieldManager } from '../../fieldmanager';
import { fieldValidationDirective, type PatchKind } from '../../schema';
import { traceSink } from '../request/context';
import { trackApply, trackUpdate, type TraceSink } from './fieldManagement';
import { validatePatchedFields } from './fieldValidation';
import { applyJSONPatch, applyMergePatch, applyStrategicMergePatch, type JsonObject, type PatchResult } from '../../patch';
import { forbidden, newBadRequest, newNotFound, newUnsupportedMediaType, required, StatusError, type Status } from '../../errors';
import { allowedPatchTypes, negotiateOutput, negotiatePatchType, type PatchType } from '../negotiation';
import { cborSerializer } from '../serializers/cborSerializer';
import { parseJson } from '../serializers/json';
import { parseYaml } from '../serializers/yaml';
import { writeObject } from '../responseWriter';
import { fieldManagerName, newInvalidOptions, parseDryRun, protobufFor, readBody } from './common';
import type { RequestScope } from './scope';
import { servesStoredJson, writeStoredObject } from './storedObject';
import { optionalBoolParam } from '../queryParams';

/** RFC 7386, for callers that patch a derived object (the scale sub-resource). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function failure(code: number, reason: Status['reason'], message: string, details?: Status['details']): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) });
}

function patchResultOrThrow(r: PatchResult): KubeObject {
  if (r.ok) return r.object as unknown as KubeObject;
  // A JSON patch that does not apply is errors.NewGenericServerResponse(422): empty details.
  throw failure(r.error.code, r.error.reason, r.error.message, r.error.code === 422 ? {} : undefined);
}

const patchKinds: Record<PatchType, PatchKind> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/** The decoded patch, with the body's text (decoded once, for field validation too) and whether JSON.parse read it. */
function decodePatchBody(patchType: PatchType, body: Uint8Array): { patch: unknown; text?: string; json: boolean } {
  if (body.byteLength === 0) throw newBadRequest('the body of the request was empty');
  if (patchType === 'application/apply-patch+cbor') return { patch: cborSerializer.decode(body), json: false };
  const text = new TextDecoder().decode(body);
  if (patchType !== 'application/apply-patch+yaml') return { patch: parseJson(text), text, json: false };
  // Clients send apply bodies as JSON, which is YAML too: parse it as JSON when it is, YAML otherwise.
  if (text.trimStart()[0] === '{') {
    try {
      return { patch: JSON.parse(text) as unknown, text, json: true };
    } catch {
      // YAML flow style ({a: 1}) is not JSON.
    }
  }
  return { patch: parseYaml(text), text, json: false };
}

export async function patchResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), url, userAgent: request.headers.get('user-agent') });
  const allowed = allowedPatchTypes({ custom: !!type.custom, cbor: scope.gates.CBORServingAndStorage });
  const patchType = negotiatePatchType(request.headers.get('content-type'), allowed);
  if (type.custom && patchType === 'application/strategic-merge-patch+json') throw newUnsupportedMediaType([...allowed]);
  const dryRun = parseDryRun(url, 'PatchOptions');
  const directive = fieldValidationDirective(url, 'PatchOptions');
  const isApply = patchType === 'application/apply-patch+yaml' || patchType === 'application/apply-patch+cbor';
  const force = optionalBoolParam(url.searchParams, 'force');
  if (!isApply && force !== undefined) throw newInvalidOptions('PatchOptions', [forbidden('force', 'may not be specified for non-apply patch')]);
  if (isApply && !url.searchParams.get('fieldManager')) throw newInvalidOptions('PatchOptions', [required('fieldManager', 'is required for apply patch')]);
  const manager = fieldManagerName(scope, 'PatchOptions');
  const body = await readBody(request);
  const { patch, text, json } = decodePatchBody(patchType, body);
  const patchKind = patchKinds[patchType];
  if (isApply && !isObject(patch) && patch !== null) {
    // sigs.k8s.io/yaml decoding into map[string]interface{}, as the apply patcher does.
    const what = Array.isArray(patch) ? 'array' : typeof patch;
    throw newBadRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  // A YAML `null` body decodes to an empty map upstream.
  const appliedBody: JsonObject = isApply && isObject(patch) ? (patch as JsonObject) : {};
  const fm = store.fieldManager(info.subresource);
  // what the field manager did is worked out only for a request that asks for its trace (it decodes both managedFields lists)
  const trace = traceSink(request);

  const result = await store.update(
    info.namespace,
    info.name,
    (current) => {
      if (isApply) {
        // The field manager speaks first (typed-object errors), then duplicate YAML keys, as the apiserver's patcher orders them.
        const applied = applyWith(fm, current, appliedBody, manager, force === true, scope, trace);
        // A CBOR body has no duplicate keys to report: its decoder rejects them.
        // (the field manager leaves the applied body as parsed: with JSON, duplicate keys are counted, not parsed for)
        if (patchType !== 'application/apply-patch+cbor') validatePatchedFields(scope, directive, patchKind, text ?? body, appliedBody as unknown as KubeObject, json);
        return applied;
      }
      if (!current) throw newNotFound(store.gr, info.name);
      const live = current as unknown as JsonObject;
      let next: KubeObject;
      switch (patchType) {
        case 'application/json-patch+json':
          next = patchResultOrThrow(applyJSONPatch(live, patch));
          break;
        case 'application/merge-patch+json':
          next = patchResultOrThrow(applyMergePatch(live, patch));
          break;
        default:
          next = patchResultOrThrow(applyStrategicMergePatch(live, patch, { root: store.schema.root, definitions: store.schema.definitions }));
      }
      next = validatePatchedFields(scope, directive, patchKind, text ?? body, next);
      if (!isObject(next.metadata)) next.metadata = {};
      if (next.metadata.name !== undefined && next.metadata.name !== info.name) {
        throw newBadRequest(`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${info.name})`);
      }
      store.strategy.defaulter?.(next);
      return trackUpdate(fm, current, next, manager, trace);
    },
    // Apply creates a missing object, but never through a subresource (StatusREST passes forceAllowCreate=false).
    // the field manager's apply leaves the live object as it is and returns one sharing nothing with it
    // (but FieldsV1 values, never changed in place): the store decodes once
    { dryRun, subresource: info.subresource, forceAllowCreate: isApply && !info.subresource, currentIntact: isApply },
  );
  // The object as stored, in compact JSON: its stored text, with no decode and encode.
  if (result.kv && servesStoredJson(choice)) return writeStoredObject(scope, choice, result.created ? 201 : 200, result.kv);
  return writeObject(choice.serializer, result.created ? 201 : 200, result.object, { pretty: choice.pretty, warnings: scope.warnings });
}

/** Server-side apply: merge the applied configuration into the live object (or create it), tracking ownership. */
function applyWith(fm: FieldManager, current: KubeObject | undefined, applied: JsonObject, manager: string, force: boolean, scope: RequestScope, trace: TraceSink | undefined): KubeObject {
  const { info } = scope;
  const meta = isObject(applied['metadata']) ? applied['metadata'] : undefined;
  if (meta?.['name'] !== undefined && meta['name'] !== info.name) {
    throw newBadRequest(`the name of the object (${String(meta['name'])}) does not match the name on the URL (${info.name})`);
  }
  const obj = trackApply(fm, current, applied, manager, force, trace);
  if (!isObject(obj.metadata)) obj.metadata = {};
  obj.metadata.name ??= info.name;
  scope.store.strategy.defaulter?.(obj);
  return obj;
}

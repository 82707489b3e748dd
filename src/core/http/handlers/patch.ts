/**
 * PATCH: JSON patch (RFC 6902), merge patch (RFC 7386), strategic merge
 * patch (built-in kinds only) and server-side apply, each applied to the
 * current object inside the store's compare-and-swap update.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { isObject, type KubeObject } from '../../api/types';
import { forbidden, newBadRequest, newInvalid, newNotFound, newUnsupportedMediaType, required, StatusError } from '../../errors';
import { negotiateOutput, negotiatePatchType, patchTypes, type PatchType } from '../negotiation';
import { parseJson } from '../serializers/json';
import { parseYaml } from '../serializers/yaml';
import { writeObject } from '../responseWriter';
import { newInvalidOptions, parseDryRun, protobufFor, readBody } from './common';
import type { RequestScope } from './scope';

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function applyJsonPatch(current: KubeObject, ops: unknown): KubeObject {
  if (!Array.isArray(ops)) throw newBadRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    const result = fastJsonPatch.applyPatch(structuredClone(current), ops as Operation[], true, false);
    return result.newDocument as KubeObject;
  } catch (e) {
    const err = e as { name?: string; message?: string };
    if (err.name === 'TEST_OPERATION_FAILED' || /Test operation failed/.test(err.message ?? '')) {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', code: 422, details: { causes: [{ message: 'testing value failed' }] } });
    }
    throw newBadRequest(`the server rejected our request due to an error in our request: ${(err.message ?? String(e)).split('\n')[0]}`);
  }
}

function decodePatchBody(patchType: PatchType, body: Uint8Array): unknown {
  const text = new TextDecoder().decode(body);
  return patchType === 'application/apply-patch+yaml' ? parseYaml(text) : parseJson(text);
}

export async function patchResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: protobufFor(scope), url, userAgent: request.headers.get('user-agent') });
  const isCustom = !!type.custom;
  const allowed = isCustom ? patchTypes.filter((t) => t !== 'application/strategic-merge-patch+json') : patchTypes;
  const contentType = request.headers.get('content-type');
  if (isCustom && contentType?.startsWith('application/strategic-merge-patch+json')) throw newUnsupportedMediaType([...allowed]);
  const patchType = negotiatePatchType(contentType, allowed);
  const dryRun = parseDryRun(url, 'PatchOptions');
  const force = url.searchParams.get('force');
  const fieldManager = url.searchParams.get('fieldManager') ?? '';
  const isApply = patchType === 'application/apply-patch+yaml';
  if (!isApply && force !== null) throw newInvalidOptions('PatchOptions', [forbidden('force', 'may not be specified for non-apply patch')]);
  if (isApply && !fieldManager) throw newInvalidOptions('PatchOptions', [required('fieldManager', 'is required for apply patch')]);
  const body = await readBody(request);
  const patch = decodePatchBody(patchType, body);

  const result = await store.update(
    info.namespace,
    info.name,
    (current) => {
      if (!current) {
        if (!isApply) throw newNotFound(store.gr, info.name);
        if (!isObject(patch)) throw newBadRequest('the body of an apply patch must be an object');
        const created = structuredClone(patch) as KubeObject;
        created.metadata = isObject(created.metadata) ? created.metadata : {};
        created.metadata.name ??= info.name;
        return created;
      }
      let next: KubeObject;
      switch (patchType) {
        case 'application/json-patch+json':
          next = applyJsonPatch(current, patch);
          break;
        default:
          if (!isObject(patch)) throw newBadRequest('the body of the patch must be a JSON object');
          next = mergePatch(current, patch) as KubeObject;
      }
      if (!isObject(next) || !isObject(next.metadata)) throw newInvalid({ group: type.group, kind: type.kind }, info.name, [required('metadata')]);
      if (next.metadata.name !== undefined && next.metadata.name !== info.name) {
        throw newBadRequest(`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${info.name})`);
      }
      return next;
    },
    { dryRun, subresource: info.subresource, forceAllowCreate: isApply },
  );
  return writeObject(choice.serializer, result.created ? 201 : 200, result.object, { request, pretty: choice.pretty, warnings: scope.warnings });
}

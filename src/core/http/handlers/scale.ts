/**
 * The scale subresource (autoscaling/v1 Scale) of deployments, replicasets,
 * statefulsets and replicationcontrollers: reads and writes spec.replicas of
 * the parent object, with field ownership kept through the Scale as the
 * apiserver's ScaleHandler keeps it (Update for PUT and patches, Apply for apply).
 */
import { isObject, type KubeObject } from '../../api/types';
import { forbidden, newBadRequest, newConflict, newMethodNotSupported, newNotFound, optimisticLockErrorMsg, required, StatusError } from '../../errors';
import { applyJSONPatch, applyMergePatch, applyStrategicMergePatch, type JsonObject } from '../../patch';
import { checkPatchFields, checkRequestFields, fieldValidationDirective } from '../../schema';
import type { SchemaObject } from '../../registry/types';
import { negotiateInput, negotiateOutput, negotiatePatchType } from '../negotiation';
import { parseJson } from '../serializers/json';
import { parseYaml } from '../serializers/yaml';
import { writeObject } from '../responseWriter';
import { decodeBody, fieldManagerName, newInvalidOptions, parseDryRun, readBody } from './common';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../../selectors';
import { traceSink } from '../request/context';
import { scaleFieldManagement } from './fieldManagement';
import type { RequestScope } from './scope';
import { optionalBoolParam } from '../queryParams';
import { customResourceInfo } from '../../apiextensions/resources';
import { customScaleOf, setCustomReplicas } from '../../apiextensions/scale';

/** status.selector of a Scale: the parent's selector as a string (LabelSelectorAsSelector(...).String()). */
function selectorString(selector: unknown): string {
  const parsed = labelSelectorFromObject(isObject(selector) ? (selector as LabelSelectorObject) : null);
  return isSelectorError(parsed) ? '' : parsed.toString();
}

/** autoscaling/v1 Scale, the kind every scale subresource serves. */
const scaleSchema: SchemaObject = { $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' };

export function scaleOf(obj: KubeObject): KubeObject {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const status = isObject(obj['status']) ? obj['status'] : {};
  const m = obj.metadata;
  const selector = obj.kind === 'ReplicationController' ? { matchLabels: spec['selector'] } : spec['selector'];
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: (spec['replicas'] as number | undefined) ?? 0 },
    status: { replicas: (status['replicas'] as number | undefined) ?? 0, selector: selectorString(selector) },
  };
}

export async function scaleHandler(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  // autoscaling/v1 Scale is a built-in kind, with a protobuf message even under a custom resource.
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true, url, userAgent: request.headers.get('user-agent') });
  const sfm = scaleFieldManagement(store, scope.clock);
  // Custom resources name their replica fields in the CRD.
  const custom = customResourceInfo(scope.type)?.scale;
  const scaleOfParent = (obj: KubeObject) => (custom ? customScaleOf(custom, obj) : scaleOf(obj));
  const reply = (status: number, obj: KubeObject) => writeObject(choice.serializer, status, sfm.toScale(obj, scaleOfParent(obj)), { pretty: choice.pretty, warnings: scope.warnings });
  if (info.verb === 'get') return reply(200, await store.get(info.namespace, info.name));
  if (info.verb !== 'update' && info.verb !== 'patch') throw newMethodNotSupported(store.gr, info.verb);

  const optionsKind = info.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
  const dryRun = parseDryRun(url, optionsKind);
  const directive = fieldValidationDirective(url, optionsKind);
  const body = await readBody(request);
  const patchType = info.verb === 'patch' ? negotiatePatchType(request.headers.get('content-type')) : undefined;
  const isApply = patchType === 'application/apply-patch+yaml';
  const force = optionalBoolParam(url.searchParams, 'force');
  if (patchType && !isApply && force !== undefined) throw newInvalidOptions('PatchOptions', [forbidden('force', 'may not be specified for non-apply patch')]);
  if (isApply && !url.searchParams.get('fieldManager')) throw newInvalidOptions('PatchOptions', [required('fieldManager', 'is required for apply patch')]);
  const manager = fieldManagerName(scope, optionsKind);

  // The Scale the caller wants, given the live one.
  let desired: (live: KubeObject) => KubeObject;
  if (!patchType) {
    const serializer = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage });
    const decoded = decodeBody(serializer, body, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const format = serializer.mediaType === 'application/json' ? 'json' : serializer.mediaType === 'application/yaml' ? 'yaml' : serializer.mediaType === 'application/cbor' ? 'cbor' : 'protobuf';
    const checked = checkRequestFields<KubeObject>({ body, mediaType: format, decoded: decoded.object, parsed: format === 'json' ? decoded.parsed : undefined, schema: scaleSchema, resolve: store.resolveSchema, directive });
    scope.warnings.push(...checked.warnings);
    const scale = checked.object;
    desired = () => scale;
  } else if (isApply) {
    const applied = parseYaml(new TextDecoder().decode(body));
    if (!isObject(applied)) throw newBadRequest('the body of an apply patch must be a single object');
    desired = (live) => sfm.apply(live, applied as JsonObject, manager, force === true, traceSink(request));
  } else {
    // The Scale is patched as any built-in object is: strategic merge against the autoscaling/v1 Scale schema, then field validation.
    const patch = parseJson(new TextDecoder().decode(body));
    const patchKind = patchType === 'application/json-patch+json' ? 'json' : patchType === 'application/merge-patch+json' ? 'merge' : 'strategic';
    desired = (live) => {
      const base = live as unknown as JsonObject;
      const r =
        patchKind === 'json' ? applyJSONPatch(base, patch)
        : patchKind === 'merge' ? applyMergePatch(base, patch)
        : applyStrategicMergePatch(base, patch, { root: scaleSchema, definitions: store.schema.definitions });
      if (!r.ok) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: r.error.message, reason: r.error.reason, code: r.error.code, ...(r.error.code === 422 ? { details: {} } : {}) });
      const patched = r.object as unknown as KubeObject;
      const checked = checkPatchFields<KubeObject>({ patchType: patchKind, patchBody: body, patched, schema: scaleSchema, resolve: store.resolveSchema, directive });
      for (const w of checked.warnings) if (!scope.warnings.includes(w)) scope.warnings.push(w);
      return checked.object;
    };
  }

  const result = await store.update(info.namespace, info.name, (current) => {
    if (!current) throw newNotFound(store.gr, info.name);
    const live = sfm.toScale(current, scaleOfParent(current));
    const wanted = desired(live);
    const rv = wanted.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw newConflict(store.gr, info.name, optimisticLockErrorMsg);
    const tracked = isApply ? wanted : sfm.update(live, wanted, manager, traceSink(request));
    const spec = isObject(tracked['spec']) ? tracked['spec'] : {};
    const next = structuredClone(current);
    const replicas = (spec['replicas'] as number | undefined) ?? 0;
    if (custom) setCustomReplicas(custom, next, replicas);
    else (isObject(next['spec']) ? next['spec'] : (next['spec'] = {}))['replicas'] = replicas;
    const managed = sfm.parentManagedFields(current, tracked);
    if (managed) next.metadata.managedFields = managed as KubeObject["metadata"]["managedFields"];
    else delete next.metadata.managedFields;
    return next;
  }, { dryRun, subresource: 'scale' });
  return writeObject(choice.serializer, 200, sfm.toScale(result.object, scaleOf(result.object)), { pretty: choice.pretty, warnings: scope.warnings });
}

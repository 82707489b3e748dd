/**
 * The scale subresource (autoscaling/v1 Scale) of deployments, replicasets,
 * statefulsets and replicationcontrollers: reads and writes spec.replicas of
 * the parent object.
 */
import { isObject, type KubeObject } from '../../api/types';
import { newBadRequest, newConflict, newMethodNotSupported, newNotFound, optimisticLockErrorMsg } from '../../errors';
import type { Store } from '../../registry/generic/store';
import type { ResourceType } from '../../registry/types';
import { negotiateInput, negotiateOutput, negotiatePatchType } from '../negotiation';
import { parseJson } from '../serializers/json';
import { writeObject } from '../responseWriter';
import { decodeObject, parseDryRun, readBody } from './common';
import { mergePatch } from './patch';
import type { RequestScope } from './scope';

function selectorString(selector: unknown): string {
  if (!isObject(selector)) return '';
  const parts: string[] = [];
  const ml = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const k of Object.keys(ml).sort()) parts.push(`${k}=${String(ml[k])}`);
  const exprs = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const e of exprs) {
    if (!isObject(e)) continue;
    const vals = Array.isArray(e['values']) ? (e['values'] as string[]).slice().sort() : [];
    const op = String(e['operator']);
    if (op === 'In') parts.push(`${String(e['key'])} in (${vals.join(',')})`);
    else if (op === 'NotIn') parts.push(`${String(e['key'])} notin (${vals.join(',')})`);
    else if (op === 'Exists') parts.push(String(e['key']));
    else if (op === 'DoesNotExist') parts.push(`!${String(e['key'])}`);
  }
  return parts.join(',');
}

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

export async function scaleHandler(scope: RequestScope, _storeFor: (t: ResourceType) => Store): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: false, url, userAgent: request.headers.get('user-agent') });
  const reply = (status: number, obj: KubeObject) => writeObject(choice.serializer, status, scaleOf(obj), { request, pretty: choice.pretty });
  if (info.verb === 'get') return reply(200, await store.get(info.namespace, info.name));
  if (info.verb !== 'update' && info.verb !== 'patch') throw newMethodNotSupported(store.gr, info.verb);
  const dryRun = parseDryRun(url, info.verb === 'patch' ? 'PatchOptions' : 'UpdateOptions');
  const body = await readBody(request);
  let desired: (current: KubeObject) => KubeObject;
  if (info.verb === 'update') {
    const scale = decodeObject(negotiateInput(request.headers.get('content-type')), body, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    desired = () => scale;
  } else {
    const patchType = negotiatePatchType(request.headers.get('content-type'));
    if (patchType === 'application/json-patch+json') throw newBadRequest('json patches are not supported on the scale subresource');
    const patch = parseJson(new TextDecoder().decode(body));
    desired = (current) => mergePatch(scaleOf(current), patch) as KubeObject;
  }
  const result = await store.update(info.namespace, info.name, (current) => {
    if (!current) throw newNotFound(store.gr, info.name);
    const scale = desired(current);
    const rv = scale.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw newConflict(store.gr, info.name, optimisticLockErrorMsg);
    const spec = isObject(scale['spec']) ? scale['spec'] : {};
    const next = structuredClone(current);
    const nextSpec = isObject(next['spec']) ? next['spec'] : (next['spec'] = {});
    nextSpec['replicas'] = (spec['replicas'] as number | undefined) ?? 0;
    return next;
  }, { dryRun });
  return reply(200, result.object);
}

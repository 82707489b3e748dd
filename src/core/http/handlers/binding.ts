/**
 * The pods/binding subresource and the legacy bindings collection
 * (BindingREST and LegacyBindingREST): a create of a Binding that assigns
 * the pod to a node and answers a Success Status with code 201.
 */
import { admitPodTopologyLabels } from '../../admission/podTopologyLabels';
import type { KubeObject } from '../../api/types';
import { newBadRequest, successStatus } from '../../errors';
import { assignPod, checkPodBinding, type PodBinding } from '../../registry/core/podBinding';
import type { Store } from '../../registry/generic/store';
import type { SchemaObject } from '../../registry/types';
import { checkRequestFields, fieldValidationDirective } from '../../schema';
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { decodeBody, parseDryRun, readBody } from './common';
import { bodyFormat } from './fieldValidation';
import type { RequestScope } from './scope';

const bindingSchema: SchemaObject = { $ref: '#/definitions/io.k8s.api.core.v1.Binding' };

/**
 * `pods` is the pods store (the request's own store is the bindings
 * collection's on the legacy path); `nodes` reads the target Node for the
 * PodTopologyLabels plugin.
 */
export async function createBinding(scope: RequestScope, pods: Store, nodes: Store | undefined): Promise<Response> {
  const { request, url, info } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true, url, userAgent: request.headers.get('user-agent') });
  const decoder = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true });
  const dryRun = parseDryRun(url, 'CreateOptions');
  const directive = fieldValidationDirective(url, 'CreateOptions');
  const body = await readBody(request);
  const decoded = decodeBody(decoder, body, { group: '', version: 'v1', kind: 'Binding' });
  const format = bodyFormat(decoder);
  // Field validation against the Binding's schema, not the pod's.
  const checked = checkRequestFields<KubeObject>({ body, mediaType: format, decoded: decoded.object, parsed: format === 'json' ? decoded.parsed : undefined, schema: bindingSchema, resolve: scope.store.resolveSchema, directive });
  scope.warnings.push(...checked.warnings);
  const object = checked.object;
  // EnsureObjectNamespaceMatchesRequestNamespace: an unset namespace takes the request's.
  if (object.metadata.namespace && object.metadata.namespace !== info.namespace) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  object.metadata.namespace = info.namespace;
  // Mutating admission: PodTopologyLabels, on the subresource.
  const topology = scope.gates.PodTopologyLabelsAdmission && info.subresource === 'binding';
  const targetName = (object['target'] as { name?: unknown } | undefined)?.name;
  if (topology && nodes && typeof targetName === 'string' && targetName) {
    const kv = await nodes.getKv('', targetName);
    admitPodTopologyLabels(object, kv && nodes.decode(kv));
  }
  const binding = object as unknown as PodBinding;
  // The legacy collection names the pod in the Binding; the subresource's URL must agree with it.
  const legacy = info.resource === 'bindings';
  if (!legacy && (binding.metadata.name ?? '') !== info.name) throw newBadRequest('name in URL does not match name in Binding object');
  checkPodBinding(binding);
  await scope.store.admit({ operation: 'CREATE', kind: 'Binding', object, dryRun, subresource: info.subresource });
  // NamespaceKeyFunc refuses an empty name before storage is read.
  if (!binding.metadata.name) throw newBadRequest('Name parameter required.');
  await assignPod(pods, info.namespace, binding, scope.clock.now(), { dryRun, copyLabels: scope.gates.PodTopologyLabelsAdmission });
  return writeObject(choice.serializer, 201, { ...successStatus(), code: 201 }, { pretty: choice.pretty, warnings: scope.warnings });
}

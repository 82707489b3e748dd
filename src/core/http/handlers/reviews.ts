/**
 * Virtual resources that only accept create (access reviews, self reviews,
 * token reviews): the request object comes back with its status filled in.
 * Until authentication and authorization are configured, every caller is the
 * cluster admin and every request is allowed (kube-apiserver's AlwaysAllow).
 */
import { isObject } from '../../api/types';
import { evaluateCel, type EvaluationSpec } from '../../cel';
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { registryBundle } from '../../registry/generated';
import { checkManifests } from '../../upgrade/removedApis';
import { fieldValidationDirective } from '../../schema';
import type { KubeObject } from '../../api/types';
import type { OutputChoice } from '../negotiation';
import { decodeBody, protobufFor, readBody } from './common';
import { validateBodyFields } from './fieldValidation';
import type { RequestScope } from './scope';

export const defaultUser = {
  username: 'kubernetes-admin',
  groups: ['kubeadm:cluster-admins', 'system:authenticated'],
};

function statusFor(resource: string, spec: Record<string, unknown>): Record<string, unknown> {
  switch (resource) {
    case 'evaluations':
      return evaluateCel({ environment: 'plain', ...spec } as unknown as EvaluationSpec) as unknown as Record<string, unknown>;
    case 'removedapichecks':
      return checkManifests(typeof spec['manifests'] === 'string' ? spec['manifests'] : '', typeof spec['targetVersion'] === 'string' ? spec['targetVersion'] : registryBundle.kubernetesVersion) as unknown as Record<string, unknown>;
    case 'selfsubjectaccessreviews':
    case 'subjectaccessreviews':
    case 'localsubjectaccessreviews':
      return { allowed: true };
    case 'selfsubjectrulesreviews':
      return {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      };
    case 'selfsubjectreviews':
      return { userInfo: defaultUser };
    case 'tokenreviews':
      return { authenticated: false, user: {}, error: 'token authentication is not configured' };
    default:
      return {};
  }
}

/**
 * Reads a review's body as the create handler reads any object: negotiated,
 * decoded as the kind, unknown fields checked by `fieldValidation` and dropped,
 * so the answer carries only the kind's own fields.
 */
export async function readReview(scope: RequestScope): Promise<{ choice: OutputChoice; obj: KubeObject }> {
  const { request, url, type } = scope;
  const protobuf = protobufFor(scope);
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf, url, userAgent: request.headers.get('user-agent') });
  const decoder = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf });
  const body = await readBody(request);
  const obj = validateBodyFields(scope, fieldValidationDirective(url, 'CreateOptions'), decoder, body, decodeBody(decoder, body, type));
  return { choice, obj };
}

export async function createReview(scope: RequestScope): Promise<Response> {
  const { type } = scope;
  const { choice, obj } = await readReview(scope);
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const out = { ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, spec, status: statusFor(type.resource, spec) };
  return writeObject(choice.serializer, 201, out, { pretty: choice.pretty });
}

/** Cordon and kubelet actions as the panel sends them, against the core's handle() under RBAC. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../../core';
import { authorizerFromModes } from '../../../core/auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../../../core/auth/authorizer/testing';
import { ApiError, COMMON_KINDS, createApiClient, type ApiClient, type KubeObject, type ResourceKind } from '../../api';
import { nodePatch, patchNode } from './actions';
import { summarizeNode } from './summary';

const NODES: ResourceKind = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, verbs: COMMON_KINDS[0]!.verbs };
let server: ApiServer;
const clientAs = (user: string, ...groups: string[]): ApiClient =>
  createApiClient((request) => {
    for (const [k, v] of Object.entries(asUser(user, ...groups))) request.headers.set(k, v);
    return server.handle(request);
  }, 'http://kubesim.test');
let admin: ApiClient;

beforeAll(async () => {
  server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(7), authorizer: authorizerFromModes(['RBAC'], {}), rbacBootstrap: true, authenticators: [headerAuthenticator] });
  await server.ready;
  admin = clientAs('admin', 'system:masters');
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
});

describe('node actions', () => {
  it('[API-PATCH-006] [API-PATH-033] cordon sends a strategic merge patch of spec.unschedulable; uncordon clears it; each write moves resourceVersion', async () => {
    const before = (await admin.get<KubeObject>('/api/v1/nodes/node-1')).metadata?.resourceVersion;
    const cordoned = await patchNode(admin, NODES, 'node-1', 'cordon');
    expect(cordoned['spec']).toMatchObject({ unschedulable: true });
    expect(summarizeNode(cordoned).cordoned).toBe(true);
    expect(cordoned.metadata?.resourceVersion).not.toBe(before);
    const uncordoned = await patchNode(admin, NODES, 'node-1', 'uncordon');
    expect(uncordoned['spec']).not.toHaveProperty('unschedulable');
    expect(Number(uncordoned.metadata?.resourceVersion)).toBeGreaterThan(Number(cordoned.metadata?.resourceVersion));
    expect(nodePatch('cordon', 'node-1').command).toBe('kubectl cordon node-1');
  });

  it('[API-PATCH-005] stop and start kubelet annotate with a JSON merge patch (null removes the key), as kubectl annotate does', async () => {
    const stopped = await patchNode(admin, NODES, 'node-1', 'stop-kubelet');
    expect(stopped.metadata?.annotations).toEqual({ 'kubesim.io/kubelet': 'stopped' });
    expect(summarizeNode(stopped).kubeletStopped).toBe(true);
    expect(stopped.metadata?.managedFields?.map((f) => f.manager)).toContain('kubectl-annotate');
    const started = await patchNode(admin, NODES, 'node-1', 'start-kubelet');
    expect(started.metadata?.annotations ?? {}).toEqual({});
    expect(nodePatch('start-kubelet', 'node-1').command).toBe('kubectl annotate node node-1 kubesim.io/kubelet-');
  });

  it('[AC-AUTHZ-002] a user with no bindings is denied by default: the patch gets the 403 Forbidden Status whole', async () => {
    const error = await patchNode(clientAs('alice'), NODES, 'node-1', 'cordon').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const { status } = error as ApiError;
    expect(status).toMatchObject({ code: 403, reason: 'Forbidden', details: { name: 'node-1', kind: 'nodes' } });
    expect(status.message).toBe('nodes "node-1" is forbidden: User "alice" cannot patch resource "nodes" in API group "" at the cluster scope');
    expect(summarizeNode(await admin.get<KubeObject>('/api/v1/nodes/node-1')).cordoned).toBe(false);
  });
});

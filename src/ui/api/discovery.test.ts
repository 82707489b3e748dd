import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../core';
import { createApiClient } from './client';
import { discoverResourceKinds, preferredGroupVersions, resourceKindsFrom } from './discovery';
import { collectionPath, objectPath, parseApiVersion, resourceKey } from './resources';

describe('resourceKindsFrom', () => {
  it('keeps listable top-level resources, drops subresources, sorts by kind', () => {
    const kinds = resourceKindsFrom([
      {
        kind: 'APIResourceList',
        groupVersion: 'apps/v1',
        resources: [
          { name: 'deployments', namespaced: true, kind: 'Deployment', verbs: ['get', 'list'] },
          { name: 'deployments/scale', namespaced: true, kind: 'Scale', verbs: ['get'] },
        ],
      },
      {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list'] },
          { name: 'bindings', namespaced: true, kind: 'Binding', verbs: ['create'] },
        ],
      },
    ]);
    expect(kinds.map(resourceKey)).toEqual(['/v1/configmaps', 'apps/v1/deployments']);
  });

  it('reads each group at its preferred version', () => {
    expect(
      preferredGroupVersions({
        kind: 'APIGroupList',
        groups: [
          { name: 'a', versions: [{ groupVersion: 'a/v2', version: 'v2' }, { groupVersion: 'a/v1', version: 'v1' }], preferredVersion: { groupVersion: 'a/v1', version: 'v1' } },
          { name: 'b', versions: [{ groupVersion: 'b/v1beta1', version: 'v1beta1' }] },
        ],
      }),
    ).toEqual(['a/v1', 'b/v1beta1']);
  });
});

describe('paths', () => {
  const configmaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: [] };
  const clusterRoles = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, verbs: [] };
  it.each([
    ['namespaced, in a namespace', collectionPath(configmaps, 'dev'), '/api/v1/namespaces/dev/configmaps'],
    ['namespaced, all namespaces', collectionPath(configmaps), '/api/v1/configmaps'],
    ['cluster-scoped ignores the namespace', collectionPath(clusterRoles, 'dev'), '/apis/rbac.authorization.k8s.io/v1/clusterroles'],
    ['object', objectPath(configmaps, 'dev', 'a b'), '/api/v1/namespaces/dev/configmaps/a%20b'],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('splits apiVersions', () => {
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
  });
});

describe('discoverResourceKinds against the core', () => {
  it('[API-PATH-001] finds core and grouped kinds through GET /api/v1, /apis and each group', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(3) });
    await server.ready;
    const client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
    const kinds = await discoverResourceKinds(client);
    expect(kinds).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }),
        expect.objectContaining({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }),
        expect.objectContaining({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true }),
      ]),
    );
    expect(kinds.some((k) => k.resource.includes('/'))).toBe(false);
    await server.close();
  });
});

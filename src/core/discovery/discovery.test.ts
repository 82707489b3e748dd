import { describe, expect, it } from 'vitest';
import { builtinRegistry, ResourceRegistry, registryBundle } from '../registry';
import type { ResourceType } from '../registry/types';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  discoveryDocument,
  type APIResource,
} from './index';

const registry = builtinRegistry();
const options = { serverAddress: '10.0.0.1:6443' };

describe('legacy discovery', () => {
  it('GET /api lists v1 with serverAddressByClientCIDRs', () => {
    expect(apiVersions(registry, '10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('[API-PATH-001] GET /apis is an APIGroupList of served groups only', () => {
    const list = apiGroupList(registry);
    expect(list.kind).toBe('APIGroupList');
    expect(list.apiVersion).toBe('v1');
    const apps = list.groups.find((g) => g.name === 'apps');
    expect(apps).toEqual({
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    expect(list.groups.find((g) => g.name === 'autoscaling')!.versions.map((v) => v.version)).toEqual(['v2', 'v1']);
    expect(list.groups.some((g) => g.name === '')).toBe(false);
    expect(list.groups.some((g) => g.name === 'storagemigration.k8s.io')).toBe(false);
  });

  it('[API-VER-004] [API-VER-007] no group version in /apis is alpha or beta', () => {
    const versions = apiGroupList(registry).groups.flatMap((g) => g.versions.map((v) => v.version));
    expect(versions.filter((v) => /alpha|beta/.test(v))).toEqual([]);
  });

  it('GET /apis/{group} is an APIGroup; unserved groups are undefined', () => {
    expect(apiGroup(registry, 'batch')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'batch',
      versions: [{ groupVersion: 'batch/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'batch/v1', version: 'v1' },
    });
    expect(apiGroup(registry, 'storagemigration.k8s.io')).toBeUndefined();
    expect(apiGroup(registry, 'nope')).toBeUndefined();
  });

  it('[API-PATH-001] [API-OTHER-004] [API-OTHER-005] [API-OTHER-008] [API-PATH-010] GET /api/v1 lists resources and subresources', () => {
    const list = apiResourceList(registry, '', 'v1')!;
    expect(list.kind).toBe('APIResourceList');
    expect(list.groupVersion).toBe('v1');
    expect('apiVersion' in list).toBe(false);
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    expect(byName.get('pods')).toEqual({
      name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'], categories: ['all'], storageVersionHash: 'xPOwRZ+Yhw8=',
    } satisfies APIResource);
    expect(byName.get('pods/status')).toEqual({ name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('pods/eviction')).toEqual({
      name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'],
    });
    expect(byName.get('serviceaccounts/token')).toMatchObject({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    expect(byName.get('nodes')!.namespaced).toBe(false);
    expect(byName.get('namespaces')!.namespaced).toBe(false);
    expect(byName.get('bindings')).toEqual({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
    // Each resource is followed by its subresources, all in name order.
    const names = list.resources.map((r) => r.name);
    expect(names).toEqual([...names].sort());
    for (const r of list.resources) expect(r.name).toMatch(/^[a-z]+(\/[a-z]+)?$/);
  });

  it('[API-PATH-008] GET /apis/apps/v1 reports deployments/scale as autoscaling/v1 Scale', () => {
    const list = apiResourceList(registry, 'apps', 'v1')!;
    expect(list.apiVersion).toBe('v1');
    expect(list.groupVersion).toBe('apps/v1');
    expect(list.resources.find((r) => r.name === 'deployments/scale')).toEqual({
      name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'],
    });
  });

  it('[API-VER-061] [API-VER-065] removed or disabled versions have no resource list', () => {
    expect(apiResourceList(registry, 'storage.k8s.io', 'v1beta1')).toBeUndefined();
    expect(apiResourceList(registry, 'batch', 'v1beta1')).toBeUndefined();
  });
});

describe('aggregated discovery', () => {
  it('GET /apis item for apps has the shape kubectl reads', () => {
    const doc = aggregatedDiscovery(registry, 'apis');
    expect(doc.kind).toBe('APIGroupDiscoveryList');
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2');
    expect(doc.metadata).toEqual({});
    const apps = doc.items.find((i) => i.metadata.name === 'apps')!;
    expect(apps.versions.map((v) => [v.version, v.freshness])).toEqual([['v1', 'Current']]);
    const deployments = apps.versions[0].resources.find((r) => r.resource === 'deployments');
    expect(deployments).toEqual({
      resource: 'deployments',
      // Like kube-apiserver: an empty group and version mean "this group version".
      responseKind: { group: '', version: '', kind: 'Deployment' },
      scope: 'Namespaced',
      singularResource: 'deployment',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: [
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    expect(doc.items.map((i) => i.metadata.name)).toEqual(apiGroupList(registry).groups.map((g) => g.name));
  });

  it('GET /api holds only the core group, without a name', () => {
    const doc = aggregatedDiscovery(registry, 'api', 'v2beta1');
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0].metadata).toEqual({});
    const namespaces = doc.items[0].versions[0].resources.find((r) => r.resource === 'namespaces')!;
    expect(namespaces.scope).toBe('Cluster');
    expect(namespaces.shortNames).toEqual(['ns']);
    const ssar = aggregatedDiscovery(registry, 'apis').items.find((i) => i.metadata.name === 'authorization.k8s.io')!;
    expect(ssar.versions[0].resources.find((r) => r.resource === 'selfsubjectaccessreviews')).toEqual({
      resource: 'selfsubjectaccessreviews', responseKind: { group: '', version: '', kind: 'SelfSubjectAccessReview' },
      scope: 'Cluster', singularResource: 'selfsubjectaccessreview', verbs: ['create'],
    });
  });

  it('lists a custom resource group after the built-in ones', () => {
    const r = new ResourceRegistry(registryBundle);
    const widget: ResourceType = {
      group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', singular: 'widget', scope: 'Cluster', custom: true,
      verbs: ['get', 'list'], subresources: [{ name: 'status', kind: { group: 'example.com', version: 'v1', kind: 'Widget' }, verbs: ['get'] }],
      definition: 'com.example.v1.Widget',
    };
    r.addResource(widget);
    const items = aggregatedDiscovery(r, 'apis').items;
    expect(items.at(-1)!.metadata.name).toBe('example.com');
    expect(items.at(-1)!.versions[0].resources[0].subresources).toEqual([
      { subresource: 'status', responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' }, verbs: ['get'] },
    ]);
    expect(apiResourceList(r, 'example.com', 'v1')!.resources.map((x) => x.name)).toEqual(['widgets', 'widgets/status']);
  });
});

describe('discoveryDocument', () => {
  it('/api and /apis offer both shapes', () => {
    const api = discoveryDocument(registry, '/api/', options)!;
    expect(api.endpoint).toBe('root');
    expect(api.legacy()).toEqual(apiVersions(registry, options.serverAddress));
    expect(api.aggregated!('v2').apiVersion).toBe('apidiscovery.k8s.io/v2');
    expect(discoveryDocument(registry, '/apis', options)!.aggregated!('v2beta1').kind).toBe('APIGroupDiscoveryList');
  });

  it.each([
    ['/api/v1', 'APIResourceList'],
    ['/apis/apps', 'APIGroup'],
    ['/apis/apps/v1/', 'APIResourceList'],
  ])('[API-PATH-001] %s is a %s, only in the legacy shape', (path, kind) => {
    const doc = discoveryDocument(registry, path, options)!;
    expect(doc.aggregated).toBeUndefined();
    expect((doc.legacy() as { kind: string }).kind).toBe(kind);
  });

  it.each(['/apis/core/v1', '/apis/batch/v1beta1', '/apis/nope', '/api/v2', '/apis/apps/v1/deployments', '/apis//v1', '/apiz'])(
    '[API-PATH-011] %s is not a discovery document',
    (path) => {
      expect(discoveryDocument(registry, path, options)).toBeUndefined();
    },
  );

  it('[API-VER-017] follows --runtime-config', () => {
    const r = builtinRegistry({ runtimeConfig: 'batch/v1=false' });
    expect(discoveryDocument(r, '/apis/batch/v1', options)).toBeUndefined();
    expect(apiGroupList(r).groups.some((g) => g.name === 'batch')).toBe(false);
  });
});

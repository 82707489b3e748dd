import { describe, expect, it } from 'vitest';
import { builtinRegistry, registryBundle } from './index';
import { ResourceRegistry } from './registry';
import { RuntimeConfigError } from './runtimeConfig';
import type { ResourceType } from './types';
import { compareVersionPriority, versionLevel } from './versionPriority';

const registry = builtinRegistry();

describe('built-in resources', () => {
  const cases: {
    name: string;
    gvr: [string, string, string];
    kind: string;
    scope: 'Namespaced' | 'Cluster';
    verbs?: string[];
    shortNames?: string[];
    categories?: string[];
    createOnly?: boolean;
    listKind?: string;
  }[] = [
    { name: 'pods', gvr: ['', 'v1', 'pods'], kind: 'Pod', scope: 'Namespaced', shortNames: ['po'], categories: ['all'], listKind: 'PodList',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
    { name: 'namespaces', gvr: ['', 'v1', 'namespaces'], kind: 'Namespace', scope: 'Cluster', shortNames: ['ns'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { name: 'nodes', gvr: ['', 'v1', 'nodes'], kind: 'Node', scope: 'Cluster', shortNames: ['no'] },
    { name: 'services', gvr: ['', 'v1', 'services'], kind: 'Service', scope: 'Namespaced', shortNames: ['svc'], categories: ['all'] },
    { name: 'configmaps', gvr: ['', 'v1', 'configmaps'], kind: 'ConfigMap', scope: 'Namespaced', shortNames: ['cm'] },
    { name: 'componentstatuses', gvr: ['', 'v1', 'componentstatuses'], kind: 'ComponentStatus', scope: 'Cluster', shortNames: ['cs'], verbs: ['get', 'list'] },
    { name: 'bindings', gvr: ['', 'v1', 'bindings'], kind: 'Binding', scope: 'Namespaced', verbs: ['create'], createOnly: true },
    { name: 'deployments', gvr: ['apps', 'v1', 'deployments'], kind: 'Deployment', scope: 'Namespaced', shortNames: ['deploy'], categories: ['all'] },
    { name: 'statefulsets', gvr: ['apps', 'v1', 'statefulsets'], kind: 'StatefulSet', scope: 'Namespaced', shortNames: ['sts'], categories: ['all'] },
    { name: 'cronjobs', gvr: ['batch', 'v1', 'cronjobs'], kind: 'CronJob', scope: 'Namespaced', shortNames: ['cj'], categories: ['all'] },
    { name: 'jobs', gvr: ['batch', 'v1', 'jobs'], kind: 'Job', scope: 'Namespaced', categories: ['all'] },
    { name: 'hpa v2', gvr: ['autoscaling', 'v2', 'horizontalpodautoscalers'], kind: 'HorizontalPodAutoscaler', scope: 'Namespaced', shortNames: ['hpa'], categories: ['all'] },
    { name: 'selfsubjectaccessreviews', gvr: ['authorization.k8s.io', 'v1', 'selfsubjectaccessreviews'], kind: 'SelfSubjectAccessReview', scope: 'Cluster', verbs: ['create'], createOnly: true },
    { name: 'localsubjectaccessreviews', gvr: ['authorization.k8s.io', 'v1', 'localsubjectaccessreviews'], kind: 'LocalSubjectAccessReview', scope: 'Namespaced', verbs: ['create'], createOnly: true },
    { name: 'tokenreviews', gvr: ['authentication.k8s.io', 'v1', 'tokenreviews'], kind: 'TokenReview', scope: 'Cluster', verbs: ['create'], createOnly: true },
    { name: 'crds', gvr: ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions'], kind: 'CustomResourceDefinition', scope: 'Cluster', shortNames: ['crd', 'crds'], categories: ['api-extensions'] },
    { name: 'clusterroles', gvr: ['rbac.authorization.k8s.io', 'v1', 'clusterroles'], kind: 'ClusterRole', scope: 'Cluster' },
    { name: 'validatingadmissionpolicies', gvr: ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies'], kind: 'ValidatingAdmissionPolicy', scope: 'Cluster', categories: ['api-extensions'] },
    { name: 'poddisruptionbudgets', gvr: ['policy', 'v1', 'poddisruptionbudgets'], kind: 'PodDisruptionBudget', scope: 'Namespaced', shortNames: ['pdb'] },
  ];
  it.each(cases)('[API-OTHER-004] [API-OTHER-005] [API-PATH-010] $name', (c) => {
    const r = registry.resourceFor(...c.gvr);
    expect(r).toBeDefined();
    expect(r!.kind).toBe(c.kind);
    expect(r!.scope).toBe(c.scope);
    expect(r!.singular).toBe(c.kind.toLowerCase());
    if (c.verbs) expect(r!.verbs).toEqual(c.verbs);
    expect(r!.shortNames).toEqual(c.shortNames);
    expect(r!.categories).toEqual(c.categories);
    expect(r!.createOnly).toBe(c.createOnly);
    if (c.listKind) expect(r!.listKind).toBe(c.listKind);
    expect(registry.kindFor(c.gvr[0], c.gvr[1], c.kind)).toBe(r);
  });

  it('lists verbs in discovery order', () => {
    for (const r of registry.allResources()) expect(r.verbs).toEqual([...r.verbs].sort());
  });

  const subresources: [string, [string, string, string], string, string, string[]][] = [
    ['deployments/scale is autoscaling/v1 Scale', ['apps', 'v1', 'deployments'], 'scale', 'autoscaling/v1/Scale', ['get', 'patch', 'update']],
    ['statefulsets/scale', ['apps', 'v1', 'statefulsets'], 'scale', 'autoscaling/v1/Scale', ['get', 'patch', 'update']],
    ['replicationcontrollers/scale', ['', 'v1', 'replicationcontrollers'], 'scale', 'autoscaling/v1/Scale', ['get', 'patch', 'update']],
    ['deployments/status', ['apps', 'v1', 'deployments'], 'status', 'apps/v1/Deployment', ['get', 'patch', 'update']],
    ['pods/eviction is policy/v1 Eviction', ['', 'v1', 'pods'], 'eviction', 'policy/v1/Eviction', ['create']],
    ['pods/binding', ['', 'v1', 'pods'], 'binding', '/v1/Binding', ['create']],
    ['pods/log', ['', 'v1', 'pods'], 'log', '/v1/Pod', ['get']],
    ['pods/exec', ['', 'v1', 'pods'], 'exec', '/v1/PodExecOptions', ['create', 'get']],
    ['pods/proxy', ['', 'v1', 'pods'], 'proxy', '/v1/PodProxyOptions', ['create', 'delete', 'get', 'patch', 'update']],
    ['pods/ephemeralcontainers', ['', 'v1', 'pods'], 'ephemeralcontainers', '/v1/Pod', ['get', 'patch', 'update']],
    ['pods/resize', ['', 'v1', 'pods'], 'resize', '/v1/Pod', ['get', 'patch', 'update']],
    ['serviceaccounts/token', ['', 'v1', 'serviceaccounts'], 'token', 'authentication.k8s.io/v1/TokenRequest', ['create']],
    ['namespaces/finalize', ['', 'v1', 'namespaces'], 'finalize', '/v1/Namespace', ['update']],
    ['nodes/proxy', ['', 'v1', 'nodes'], 'proxy', '/v1/NodeProxyOptions', ['create', 'delete', 'get', 'patch', 'update']],
    ['csr/approval', ['certificates.k8s.io', 'v1', 'certificatesigningrequests'], 'approval', 'certificates.k8s.io/v1/CertificateSigningRequest', ['get', 'patch', 'update']],
  ];
  it.each(subresources)('[API-PATH-008] %s', (_name, gvr, sub, kind, verbs) => {
    const s = registry.subresourceFor(...gvr, sub);
    expect(s).toBeDefined();
    expect(`${s!.kind.group}/${s!.kind.version}/${s!.kind.kind}`).toBe(kind);
    expect(s!.verbs).toEqual(verbs);
  });

  it('carries the options of log and exec as query parameters', () => {
    const names = (sub: string) => registry.subresourceFor('', 'v1', 'pods', sub)!.options!.map((p) => p.name);
    expect(names('log')).toEqual(expect.arrayContaining(['container', 'follow', 'previous', 'tailLines', 'timestamps']));
    expect(names('exec')).toEqual(['command', 'container', 'stderr', 'stdin', 'stdout', 'tty']);
  });

  it('marks which deletes answer with the object', () => {
    expect(registry.resourceFor('', 'v1', 'pods')!.deleteReturnsObject).toBe(true);
    expect(registry.resourceFor('', 'v1', 'configmaps')!.deleteReturnsObject).toBeUndefined();
  });

  it('hashes the storage version like kube-apiserver', () => {
    expect(registry.resourceFor('', 'v1', 'pods')!.storageVersionHash).toBe('xPOwRZ+Yhw8=');
    expect(registry.resourceFor('', 'v1', 'bindings')!.storageVersionHash).toBeUndefined();
    expect(registry.resourceFor('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews')!.storageVersionHash).toBeUndefined();
  });
});

describe('served versions of a default server', () => {
  it('[API-VER-004] [API-VER-007] serves only GA versions, matching kubectl api-versions of 1.36', () => {
    const served = registry.groups().flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v}` : v))).sort();
    expect(served).toEqual([
      'admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1', 'apiregistration.k8s.io/v1', 'apps/v1',
      'authentication.k8s.io/v1', 'authorization.k8s.io/v1', 'autoscaling/v1', 'autoscaling/v2', 'batch/v1',
      'certificates.k8s.io/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1',
      'flowcontrol.apiserver.k8s.io/v1', 'networking.k8s.io/v1', 'node.k8s.io/v1', 'policy/v1',
      'rbac.authorization.k8s.io/v1', 'resource.k8s.io/v1', 'scheduling.k8s.io/v1', 'storage.k8s.io/v1', 'v1',
    ]);
  });

  it('knows disabled versions without serving them', () => {
    expect(registry.resourceFor('networking.k8s.io', 'v1beta1', 'ipaddresses')).toBeUndefined();
    expect(registry.knownResource('networking.k8s.io', 'v1beta1', 'ipaddresses')?.enabledByDefault).toBe(false);
    expect(registry.isServed('internal.apiserver.k8s.io', 'v1alpha1')).toBe(false);
  });

  const removed: [string, string, string, string][] = [
    ['API-VER-057', 'flowcontrol.apiserver.k8s.io', 'v1beta3', 'flowschemas'],
    ['API-VER-058', 'flowcontrol.apiserver.k8s.io', 'v1beta3', 'prioritylevelconfigurations'],
    ['API-VER-064', 'autoscaling', 'v2beta2', 'horizontalpodautoscalers'],
    ['API-VER-065', 'batch', 'v1beta1', 'cronjobs'],
    ['API-VER-069', 'policy', 'v1beta1', 'poddisruptionbudgets'],
    ['API-VER-083', 'extensions', 'v1beta1', 'ingresses'],
    ['API-VER-097', 'apps', 'v1beta2', 'daemonsets'],
  ];
  it.each(removed)('[%s] %s/%s %s is gone', (_id, group, version, resource) => {
    expect(registry.resourceFor(group, version, resource)).toBeUndefined();
    expect(registry.knownResource(group, version, resource)).toBeUndefined();
  });

  it('prefers autoscaling/v2 and orders groups by aggregator priority', () => {
    expect(registry.preferredVersion('autoscaling')).toBe('v2');
    expect(registry.group('autoscaling')!.versions).toEqual(['v2', 'v1']);
    expect(registry.groups().map((g) => g.name).slice(0, 5)).toEqual(['', 'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io']);
  });

  it('lists a group version sorted by resource name', () => {
    expect(registry.resourcesIn('apps', 'v1').map((r) => r.resource)).toEqual([
      'controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets',
    ]);
  });
});

describe('--runtime-config', () => {
  it('[API-VER-017] [API-VER-019] batch/v1=false,apps/v1=true drops batch and keeps apps', () => {
    const r = builtinRegistry({ runtimeConfig: 'batch/v1=false,apps/v1=true' });
    expect(r.isServed('batch', 'v1')).toBe(false);
    expect(r.group('batch')).toBeUndefined();
    expect(r.isServed('apps', 'v1')).toBe(true);
  });

  it('[API-VER-018] a key without value enables an alpha version', () => {
    const r = builtinRegistry({ runtimeConfig: 'admissionregistration.k8s.io/v1alpha1' });
    expect(r.resourceFor('admissionregistration.k8s.io', 'v1alpha1', 'mutatingadmissionpolicies')).toBeDefined();
    expect(r.group('admissionregistration.k8s.io')!.versions).toEqual(['v1', 'v1alpha1']);
    expect(r.preferredVersion('admissionregistration.k8s.io')).toBe('v1');
  });

  it('[API-VER-020] a group/version/resource key serves only that resource', () => {
    const r = builtinRegistry({ runtimeConfig: 'networking.k8s.io/v1beta1/ipaddresses=true' });
    expect(r.resourcesIn('networking.k8s.io', 'v1beta1').map((x) => x.resource)).toEqual(['ipaddresses']);
  });

  it('api/beta enables every beta version; api/all=false with v1=true keeps only core', () => {
    const beta = builtinRegistry({ runtimeConfig: 'api/beta=true' });
    expect(beta.group('resource.k8s.io')!.versions).toEqual(['v1', 'v1beta2', 'v1beta1']);
    const core = builtinRegistry({ runtimeConfig: 'api/all=false,v1=true' });
    expect(core.groups().map((g) => g.name)).toEqual(['']);
  });

  it.each(['nosuch.k8s.io/v1=true', 'batch/v9', 'apps/v1/nosuchresource=true', 'batch/v1=maybe'])(
    'rejects %s like kube-apiserver refuses to start',
    (value) => {
      expect(() => builtinRegistry({ runtimeConfig: value })).toThrow(RuntimeConfigError);
    },
  );
});

describe('schemas', () => {
  it('finds the schema of a kind and of subresource kinds', () => {
    const pod = registry.schemaFor({ group: '', version: 'v1', kind: 'Pod' })!;
    expect(pod.properties!.spec.$ref).toBe('#/definitions/io.k8s.api.core.v1.PodSpec');
    expect(registry.definitionNameFor({ group: 'autoscaling', version: 'v1', kind: 'Scale' })).toBe('io.k8s.api.autoscaling.v1.Scale');
    expect(registry.definitionNameFor({ group: '', version: 'v1', kind: 'DeleteOptions' })).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    const containers = registry.definition('io.k8s.api.core.v1.PodSpec')!.properties!.containers;
    expect(containers['x-kubernetes-list-type']).toBe('map');
    expect(containers['x-kubernetes-patch-merge-key']).toBe('name');
  });

  it('has every referenced definition in the bundle', () => {
    const missing: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string' && !registryBundle.definitions[x.replace('#/definitions/', '')]) missing.push(x);
          else walk(x);
        }
      }
    };
    walk(registryBundle.definitions);
    expect(missing).toEqual([]);
    for (const r of registryBundle.resources) expect(registryBundle.definitions[r.definition]).toBeDefined();
  });
});

describe('custom resources at runtime', () => {
  const widget: ResourceType = {
    group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', singular: 'widget',
    scope: 'Namespaced', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['wd'], categories: ['all'], subresources: [], definition: 'com.example.v1.Widget', listKind: 'WidgetList',
  };
  const schema = { type: 'object', properties: { spec: { type: 'object' } } };

  it('adds and removes a resource, its group and its schema', () => {
    const r = new ResourceRegistry(registryBundle);
    const before = r.generation;
    r.addResource(widget, { 'com.example.v1.Widget': schema });
    expect(r.resourceFor('example.com', 'v1', 'widgets')).toBe(widget);
    expect(r.kindFor('example.com', 'v1', 'Widget')).toBe(widget);
    expect(r.schemaFor({ group: 'example.com', version: 'v1', kind: 'Widget' })).toBe(schema);
    expect(r.groups().at(-1)).toEqual({ name: 'example.com', versions: ['v1'], preferredVersion: 'v1' });
    expect(r.generation).toBeGreaterThan(before);
    const revision = r.groupVersionRevision('example.com', 'v1');

    expect(r.removeResource('example.com', 'v1', 'widgets')).toBe(true);
    expect(r.resourceFor('example.com', 'v1', 'widgets')).toBeUndefined();
    expect(r.group('example.com')).toBeUndefined();
    expect(r.definition('com.example.v1.Widget')).toBeUndefined();
    expect(r.groupVersionRevision('example.com', 'v1')).toBeGreaterThan(revision);
    expect(r.removeResource('example.com', 'v1', 'widgets')).toBe(false);
  });

  it('orders custom versions by version priority and skips unserved ones', () => {
    const r = new ResourceRegistry(registryBundle);
    r.addResource({ ...widget, version: 'v1beta1' });
    r.addResource({ ...widget, version: 'v2alpha1' });
    r.addResource({ ...widget, version: 'v1' });
    r.addResource({ ...widget, version: 'v3', enabledByDefault: false });
    expect(r.group('example.com')!.versions).toEqual(['v1', 'v1beta1', 'v2alpha1']);
  });
});

describe('version priority', () => {
  it('sorts like CompareKubeAwareVersionStrings', () => {
    const versions = ['v1alpha1', 'foo10', 'v11alpha2', 'v1', 'v12alpha1', 'v2', 'v10beta3', 'v1beta1', 'v10', 'v3beta1', 'foo1', 'v11beta2'];
    expect(versions.sort(compareVersionPriority)).toEqual([
      'v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v1beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10',
    ]);
  });

  it.each([
    ['API-VER-003', 'v1alpha1', 'alpha'],
    ['API-VER-006', 'v2beta3', 'beta'],
    ['API-VER-012', 'v1', 'ga'],
  ])('[%s] %s is %s', (_id, version, level) => {
    expect(versionLevel(version)).toBe(level);
  });
});

import { describe, expect, it } from 'vitest';
import { builtinRegistry, ResourceRegistry, registryBundle } from '../registry';
import type { GroupVersionKind, ResourceType, SchemaObject } from '../registry/types';
import { openApiV3Document, openApiV3Hash, openApiV3Root, type OpenAPIV3Document } from './index';
import type { OperationObject } from './paths';

const registry = builtinRegistry();

/** kubectl's check (contract §4): a PATCH carrying the GVK and its own fieldValidation parameter. */
function supportsFieldValidation(doc: OpenAPIV3Document, gvk: GroupVersionKind): boolean {
  return Object.values(doc.paths).some((item) => {
    const op = item.patch;
    const g = op?.['x-kubernetes-group-version-kind'];
    return (
      g?.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind &&
      (op!.parameters ?? []).some((p) => p.name === 'fieldValidation' && p.in === 'query')
    );
  });
}

/** Follows a dotted field path through components.schemas the way kubectl explain does. */
function explain(doc: OpenAPIV3Document, gvk: GroupVersionKind, fieldPath: string[]): SchemaObject | undefined {
  const schemas = doc.components.schemas;
  const deref = (s: SchemaObject): SchemaObject => {
    const target = s.$ref ?? s.allOf?.[0]?.$ref;
    return target ? schemas[target.replace('#/components/schemas/', '')] : s;
  };
  let current: SchemaObject | undefined = Object.values(schemas).find((s) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind),
  );
  for (const field of fieldPath) {
    if (!current) return undefined;
    let next = deref(current).properties?.[field];
    if (next?.items) next = next.items;
    current = next && deref(next);
  }
  return current;
}

describe('/openapi/v3 root', () => {
  const root = openApiV3Root(registry);

  it('lists every served group version with a hashed URL', () => {
    expect(root.paths['api/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{32}$/);
    expect(root.paths['apis/apps/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{32}$/);
    expect(Object.keys(root.paths)).toContain('apis/autoscaling/v2');
    expect(Object.keys(root.paths).filter((p) => /alpha|beta/.test(p))).toEqual([]);
    expect(Object.keys(root.paths)).toEqual(Object.keys(root.paths).sort());
  });

  it('hashes deterministically and only changes the group version that changed', () => {
    const other = new ResourceRegistry(registryBundle);
    expect(openApiV3Root(other)).toEqual(root);
    const widget: ResourceType = {
      group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', singular: 'widget', scope: 'Namespaced',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], subresources: [], definition: 'com.example.v1.Widget',
    };
    other.addResource(widget, { 'com.example.v1.Widget': { type: 'object', properties: { spec: { type: 'object' } } } });
    const first = openApiV3Root(other);
    expect(first.paths['apis/example.com/v1']).toBeDefined();
    other.addResource({ ...widget, shortNames: ['wd'] }, {
      'com.example.v1.Widget': { type: 'object', properties: { spec: { type: 'object', description: 'changed' } } },
    });
    const second = openApiV3Root(other);
    expect(second.paths['apis/example.com/v1']).not.toEqual(first.paths['apis/example.com/v1']);
    expect(second.paths['apis/apps/v1']).toEqual(root.paths['apis/apps/v1']);
    expect(openApiV3Hash(other, 'apis/example.com/v1')).toBe(second.paths['apis/example.com/v1'].serverRelativeURL.split('hash=')[1]);
  });
});

describe('/openapi/v3 group version documents', () => {
  const apps = openApiV3Document(registry, 'apis/apps/v1')!;
  const core = openApiV3Document(registry, 'api/v1')!;

  it('is an OpenAPI 3.0 document', () => {
    expect(apps.openapi).toBe('3.0.0');
    expect(apps.info.title).toBe('Kubernetes');
    expect(apps.components.securitySchemes.BearerToken).toBeDefined();
  });

  it('patches deployments with the GVK, the action and an operation-level fieldValidation parameter', () => {
    const item = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    const patch = item.patch!;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch.operationId).toBe('patchAppsV1NamespacedDeployment');
    expect(patch.parameters!.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(Object.keys(patch.requestBody!.content)).toEqual(expect.arrayContaining([
      'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
    ]));
    expect(item.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:namespace', 'query:pretty']);
    for (const m of ['put'] as const) {
      expect(item[m]!.parameters!.map((p) => p.name)).toContain('fieldValidation');
    }
    const collection = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
    expect(collection.post!.parameters!.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(collection.get!['x-kubernetes-action']).toBe('list');
    expect(collection.delete!['x-kubernetes-action']).toBe('deletecollection');
  });

  it('lets kubectl enable server-side field validation for every patchable served kind', () => {
    const missing: string[] = [];
    for (const g of registry.groups()) {
      for (const v of g.versions) {
        const doc = openApiV3Document(registry, g.name === '' ? `api/${v}` : `apis/${g.name}/${v}`)!;
        for (const r of registry.resourcesIn(g.name, v)) {
          if (r.verbs.includes('patch') && !supportsFieldValidation(doc, r)) missing.push(`${g.name}/${v} ${r.kind}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('[API-PATH-008] serves the scale subresource as autoscaling/v1 Scale', () => {
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(scale.patch!['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(scale.get!.responses['200'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' });
    expect(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
  });

  it('tags kind schemas with their GVK and wraps described refs in allOf', () => {
    const deployment = apps.components.schemas['io.k8s.api.apps.v1.Deployment'];
    expect(deployment['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(deployment.properties!.spec.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }]);
    expect(deployment.properties!.spec.description).toMatch(/desired behavior/);
    expect(apps.components.schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].oneOf).toEqual([{ type: 'integer' }, { type: 'string' }]);
    expect(apps.components.schemas['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf).toEqual([{ type: 'string' }, { type: 'number' }]);
  });

  it('resolves every $ref inside the document', () => {
    for (const doc of [apps, core]) {
      const unresolved = new Set<string>();
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          for (const [k, x] of Object.entries(v)) {
            if (k === '$ref' && typeof x === 'string' && !doc.components.schemas[x.replace('#/components/schemas/', '')]) unresolved.add(x);
            else walk(x);
          }
        }
      };
      walk(doc);
      expect([...unresolved]).toEqual([]);
    }
  });

  it('supports kubectl explain pods.spec.containers', () => {
    const containers = explain(core, { group: '', version: 'v1', kind: 'Pod' }, ['spec', 'containers'])!;
    expect(containers.description).toMatch(/A single application container/);
    expect(Object.keys(containers.properties!)).toEqual(expect.arrayContaining(['image', 'name', 'ports', 'resources']));
    const podSpec = explain(core, { group: '', version: 'v1', kind: 'Pod' }, ['spec'])!;
    expect(podSpec.properties!.containers['x-kubernetes-list-map-keys']).toEqual(['name']);
  });

  it('describes pod subresources like kube-apiserver', () => {
    const exec = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'];
    expect(Object.keys(exec).sort()).toEqual(['get', 'parameters', 'post']);
    expect((exec.post as OperationObject).operationId).toBe('connectCoreV1PostNamespacedPodExec');
    expect(exec.parameters!.map((p) => p.name)).toEqual(['command', 'container', 'name', 'namespace', 'stderr', 'stdin', 'stdout', 'tty']);
    const eviction = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'];
    expect(eviction.post!['x-kubernetes-group-version-kind']).toEqual({ group: 'policy', version: 'v1', kind: 'Eviction' });
    const log = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/log'];
    expect(log.get!.responses['200'].content!['text/plain'].schema).toEqual({ type: 'string' });
    expect(core.paths['/api/v1/pods'].get!.operationId).toBe('listCoreV1PodForAllNamespaces');
    expect(core.paths['/api/v1/namespaces/{namespace}/pods'].delete!.operationId).toBe('deleteCoreV1CollectionNamespacedPod');
    expect(core.paths['/api/v1/watch/namespaces/{namespace}/pods/{name}'].get!['x-kubernetes-action']).toBe('watch');
  });

  it('answers undefined for unknown or unserved group versions', () => {
    for (const path of ['apis/batch/v1beta1', 'apis/resource.k8s.io/v1beta1', 'apis/nope/v1', 'api', 'apis/apps', 'version']) {
      expect(openApiV3Document(registry, path)).toBeUndefined();
    }
    expect(openApiV3Document(builtinRegistry({ runtimeConfig: 'api/beta=true' }), 'apis/resource.k8s.io/v1beta1')).toBeDefined();
  });

  it('serves custom resources without protobuf', () => {
    const r = new ResourceRegistry(registryBundle);
    r.addResource(
      {
        group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets', singular: 'widget', scope: 'Namespaced',
        verbs: ['create', 'get', 'patch'], subresources: [], definition: 'com.example.v1.Widget',
      },
      {
        'com.example.v1.Widget': {
          type: 'object',
          'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
          properties: { metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } },
        },
      },
    );
    const doc = openApiV3Document(r, 'apis/example.com/v1')!;
    const patch = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch!;
    expect(Object.keys(patch.responses['200'].content!)).toEqual(['application/cbor', 'application/json', 'application/yaml']);
    expect(supportsFieldValidation(doc, { group: 'example.com', version: 'v1', kind: 'Widget' })).toBe(true);
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });
});

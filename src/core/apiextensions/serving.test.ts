/**
 * CustomResourceDefinition serving through HTTP: conditions, discovery,
 * OpenAPI, custom object CRUD, versions, deletion and persistence.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../storage/memory';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

export function widgetCrd(overrides: Record<string, unknown> = {}, versions?: unknown[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      scope: 'Namespaced',
      versions: versions ?? [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
      ...overrides,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown> = { size: 1 }) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

describe('CustomResourceDefinition serving', () => {
  it('a created CRD is Established and NamesAccepted by the time the create answers', async () => {
    const created = await t.json('POST', CRDS, { body: widgetCrd() });
    expect(created.status).toBe(201);
    expect(created.body.status).toEqual({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(created.body.spec.names.listKind).toBe('WidgetList');
    expect(created.body.spec.conversion).toEqual({ strategy: 'None' });
    const got = await t.json('GET', `${CRDS}/widgets.example.com`);
    expect(got.body.status.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] });
    expect(got.body.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
    ]);
    expect(got.body.metadata.finalizers).toBeUndefined();
  });

  it('serves the resource in legacy and aggregated discovery and in /openapi/v3', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    const list = await t.json('GET', '/apis/example.com/v1');
    expect(list.status).toBe(200);
    expect(list.body.resources).toEqual([
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'], shortNames: ['wd'], categories: ['all'], storageVersionHash: expect.any(String) },
    ]);
    const groups = await t.json('GET', '/apis');
    expect(groups.body.groups.find((g: { name: string }) => g.name === 'example.com')).toMatchObject({ name: 'example.com', preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' } });
    const aggregated = await t.json('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const group = aggregated.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'example.com');
    expect(group.versions[0].resources[0]).toMatchObject({ resource: 'widgets', scope: 'Namespaced', responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' } });
    const root = await t.json('GET', '/openapi/v3');
    expect(root.body.paths['apis/example.com/v1']).toBeDefined();
    const doc = await t.json('GET', '/openapi/v3/apis/example.com/v1');
    expect(doc.body.components.schemas['com.example.v1.Widget'].properties.spec.properties.size).toEqual({ type: 'integer' });
    expect(doc.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']).toBeDefined();
  });

  it('custom objects: create, get, list, update, merge and JSON patch, apply, delete', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    const created = await t.json('POST', WIDGETS, { body: widget('w1') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default', generation: 1 }, spec: { size: 1 } });
    const list = await t.json('GET', WIDGETS);
    expect(list.body).toMatchObject({ apiVersion: 'example.com/v1', kind: 'WidgetList', items: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } }] });
    const all = await t.json('GET', '/apis/example.com/v1/widgets');
    expect(all.body.items).toHaveLength(1);
    const put = await t.json('PUT', `${WIDGETS}/w1`, { body: { ...created.body, spec: { size: 2 } } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.generation).toBe(2);
    const merge = await t.json('PATCH', `${WIDGETS}/w1`, { body: { spec: { color: 'red' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(merge.body.spec).toEqual({ size: 2, color: 'red' });
    const jsonPatch = await t.json('PATCH', `${WIDGETS}/w1`, { body: [{ op: 'replace', path: '/spec/size', value: 3 }], headers: { 'content-type': 'application/json-patch+json' } });
    expect(jsonPatch.body.spec.size).toBe(3);
    const smp = await t.json('PATCH', `${WIDGETS}/w1`, { body: { spec: { size: 4 } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
    const apply = await t.json('PATCH', `${WIDGETS}/w2?fieldManager=me`, {
      body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 7 } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(201);
    expect(apply.body.metadata.managedFields[0]).toMatchObject({ manager: 'me', operation: 'Apply', apiVersion: 'example.com/v1' });
    const del = await t.json('DELETE', `${WIDGETS}/w1`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'w1', group: 'example.com', kind: 'widgets' } });
    expect((await t.json('GET', `${WIDGETS}/w1`)).status).toBe(404);
  });

  it('answers protobuf requests with 406 offering JSON', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    await t.json('POST', WIDGETS, { body: widget('w1') });
    const r = await t.json('GET', `${WIDGETS}/w1`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(r.status).toBe(406);
    const ok = await t.json('GET', `${WIDGETS}/w1`, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
  });

  it('serves cluster-scoped custom resources', async () => {
    await t.json('POST', CRDS, { body: widgetCrd({ scope: 'Cluster' }) });
    const r = await t.json('POST', '/apis/example.com/v1/widgets', { body: widget('c1') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.namespace).toBeUndefined();
    expect((await t.json('GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
  });

  it('watches custom objects', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    const w = await t.watch(`${WIDGETS}?watch=true`);
    await t.json('POST', WIDGETS, { body: widget('w1') });
    const e = await w.next();
    expect(e?.type).toBe('ADDED');
    expect(e?.object).toMatchObject({ kind: 'Widget', metadata: { name: 'w1' } });
    w.close();
  });

  it('reports name conflicts in NamesAccepted and does not serve the loser', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    const other = widgetCrd();
    other.metadata.name = 'gadgets.example.com';
    other.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Widget', shortNames: [], categories: [] };
    expect((await t.json('POST', CRDS, { body: other })).status).toBe(201);
    const got = await t.json('GET', `${CRDS}/gadgets.example.com`);
    expect(got.body.status.acceptedNames).toEqual({ plural: '', kind: '' });
    expect(got.body.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'False', 'KindConflict', '"Widget" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    expect((await t.json('GET', '/apis/example.com/v1/namespaces/default/gadgets')).status).toBe(404);
  });

  it('deleting a CRD deletes its objects and its endpoints', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    await t.json('POST', WIDGETS, { body: widget('w1') });
    const del = await t.json('DELETE', `${CRDS}/widgets.example.com`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(del.body.status.conditions.find((c: { type: string }) => c.type === 'Terminating')).toMatchObject({
      status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    expect((await t.json('GET', `${CRDS}/widgets.example.com`)).status).toBe(404);
    expect((await t.json('GET', WIDGETS)).status).toBe(404);
    expect((await t.json('GET', '/apis/example.com/v1')).status).toBe(404);
    // Recreated, it starts empty.
    await t.json('POST', CRDS, { body: widgetCrd() });
    expect((await t.json('GET', WIDGETS)).body.items).toEqual([]);
  });

  it('serves several versions from one storage, rewriting apiVersion, with deprecation warnings', async () => {
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
    await t.json('POST', CRDS, {
      body: widgetCrd({}, [
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1alpha1', served: false, storage: false, schema },
      ]),
    });
    const groups = await t.json('GET', '/apis/example.com');
    expect(groups.body.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    const created = await t.json('POST', '/apis/example.com/v1beta1/namespaces/default/widgets', { body: { ...widget('w1'), apiVersion: 'example.com/v1beta1' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe('299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"');
    expect(created.body.apiVersion).toBe('example.com/v1beta1');
    const v1 = await t.json('GET', `${WIDGETS}/w1`);
    expect(v1.body.apiVersion).toBe('example.com/v1');
    expect(v1.headers.get('warning')).toBeNull();
    expect((await t.json('GET', '/apis/example.com/v1alpha1/namespaces/default/widgets')).status).toBe(404);
  });

  it('serves stored CRDs again after a restart', async () => {
    const storage = createMemoryStorage();
    const first = await newTestServer({ storage });
    await first.json('POST', CRDS, { body: widgetCrd() });
    await first.json('POST', WIDGETS, { body: widget('w1') });
    const second = await newTestServer({ storage });
    const got = await second.json('GET', `${WIDGETS}/w1`);
    expect(got.status).toBe(200);
    expect(got.body.spec).toEqual({ size: 1 });
  });
});

describe('custom resource subresources and tables', () => {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' } } },
        status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, phase: { type: 'string' } } },
      },
    },
  };
  const version = {
    name: 'v1', served: true, storage: true, schema,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'the phase' },
      { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  };
  beforeEach(async () => {
    expect((await t.json('POST', CRDS, { body: widgetCrd({}, [version]) })).status).toBe(201);
  });

  it('status: create drops it, the main resource keeps it, the status endpoint changes only it', async () => {
    const created = await t.json('POST', WIDGETS, { body: { ...widget('w1', { replicas: 1 }), status: { phase: 'Ready' } } });
    expect(created.body.status).toBeUndefined();
    const status = await t.json('PUT', `${WIDGETS}/w1/status`, { body: { ...created.body, spec: { replicas: 9 }, status: { phase: 'Running', replicas: 1, selector: 'app=w' } } });
    expect(status.status).toBe(200);
    expect(status.body.spec).toEqual({ replicas: 1 });
    expect(status.body.status).toEqual({ phase: 'Running', replicas: 1, selector: 'app=w' });
    expect(status.body.metadata.generation).toBe(1);
    const main = await t.json('PUT', `${WIDGETS}/w1`, { body: { ...status.body, spec: { replicas: 2 }, status: { phase: 'Gone' } } });
    expect(main.body.status.phase).toBe('Running');
    expect(main.body.metadata.generation).toBe(2);
    const discovery = await t.json('GET', '/apis/example.com/v1');
    expect(discovery.body.resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/status', 'widgets/scale']);
  });

  it('scale reads and writes the CRD paths', async () => {
    await t.json('POST', WIDGETS, { body: widget('w1', { replicas: 3 }) });
    await t.json('PATCH', `${WIDGETS}/w1/status`, { body: { status: { replicas: 2, selector: 'app=w' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const scale = await t.json('GET', `${WIDGETS}/w1/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'w1', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=w' } });
    const patched = await t.json('PATCH', `${WIDGETS}/w1/scale`, { body: { spec: { replicas: 5 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status).toBe(200);
    expect(patched.body.spec.replicas).toBe(5);
    expect((await t.json('GET', `${WIDGETS}/w1`)).body.spec.replicas).toBe(5);
  });

  it('Tables show the additionalPrinterColumns', async () => {
    await t.json('POST', WIDGETS, { body: widget('w1', { replicas: 3, color: 'red' }) });
    const r = await t.json('GET', WIDGETS, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((c: { name: string; type: string; priority: number }) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0], ['Replicas', 'integer', 0], ['Phase', 'string', 0], ['Color', 'string', 1], ['Age', 'date', 0],
    ]);
    expect(r.body.rows[0].cells).toEqual(['w1', 3, null, 'red', '0s']);
  });

  it('without printer columns a Table has Name and Age', async () => {
    await t.json('DELETE', `${CRDS}/widgets.example.com`);
    await t.json('POST', CRDS, { body: widgetCrd() });
    await t.json('POST', WIDGETS, { body: widget('w1') });
    const r = await t.json('GET', WIDGETS, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Age']);
  });
});

describe('server-side apply follows the schema markers', () => {
  it('list-type map merges entries by key across managers; unmarked lists are atomic; map-type atomic conflicts', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
              args: { type: 'array', items: { type: 'string' } },
              limits: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { cpu: { type: 'string' }, memory: { type: 'string' } } },
            },
          },
        },
      },
    };
    await t.json('POST', CRDS, { body: widgetCrd({}, [{ name: 'v1', served: true, storage: true, schema }]) });
    const apply = (manager: string, spec: unknown) =>
      t.json('PATCH', `${WIDGETS}/w?fieldManager=${manager}`, { body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec }), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect((await apply('a', { ports: [{ name: 'http', port: 80 }], args: ['x'], limits: { cpu: '1' } })).status).toBe(201);
    const b = await apply('b', { ports: [{ name: 'https', port: 443 }] });
    expect(b.status).toBe(200);
    expect(b.body.spec.ports).toEqual([{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
    const args = await apply('b', { ports: [{ name: 'https', port: 443 }], args: ['y'] });
    expect(args.status).toBe(409);
    expect(args.body.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.args');
    const limits = await apply('b', { ports: [{ name: 'https', port: 443 }], limits: { memory: '1Gi' } });
    expect(limits.status).toBe(409);
    expect(limits.body.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.limits');
  });
});

describe('a terminating CRD', () => {
  it('waits for objects held by finalizers and refuses new objects meanwhile', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    await t.json('POST', WIDGETS, { body: { ...widget('w1'), metadata: { name: 'w1', finalizers: ['example.com/hold'] } } });
    expect((await t.json('DELETE', `${CRDS}/widgets.example.com`)).status).toBe(200);
    const crd = await t.json('GET', `${CRDS}/widgets.example.com`);
    expect(crd.body.status.conditions.find((c: { type: string }) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    const create = await t.json('POST', WIDGETS, { body: widget('w2') });
    expect(create.status).toBe(405);
    expect(create.body.message).toBe('create not allowed while custom resource definition is terminating');
    expect((await t.json('GET', '/apis/example.com/v1')).body.resources[0].verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'watch']);
    // Releasing the object lets the CRD go.
    await t.json('PATCH', `${WIDGETS}/w1`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    t.clock.advance(1000);
    for (let i = 0; i < 50 && (await t.json('GET', `${CRDS}/widgets.example.com`)).status === 200; i++) await new Promise((r) => setTimeout(r, 0));
    expect((await t.json('GET', `${CRDS}/widgets.example.com`)).status).toBe(404);
  });
});

describe('watches of custom objects', () => {
  it('end when the CRD is deleted; status-only CRD writes keep them', async () => {
    await t.json('POST', CRDS, { body: widgetCrd() });
    const w = await t.watch(`${WIDGETS}?watch=true`);
    // A condition-only status write of the CRD does not disturb the watch.
    await t.json('PATCH', `${CRDS}/widgets.example.com/status`, { body: { status: { conditions: [{ type: 'Example', status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await t.json('POST', WIDGETS, { body: widget('w1') });
    expect((await w.next())?.type).toBe('ADDED');
    await t.json('DELETE', `${CRDS}/widgets.example.com`);
    // The deletion of w1 by the finalizer may arrive first; then the stream ends.
    let e = await w.next();
    if (e?.type === 'DELETED') e = await w.next();
    expect(e).toBeUndefined();
  });
});

/** The pod, service and node subresources kube-apiserver serves without a kubelet to reach, driven through handle(). */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const NS = '/api/v1/namespaces/default';
const pod = (name: string, containers: string[] = ['nginx'], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: containers.map((c) => ({ name: c, image: 'nginx' })), ...extra },
});
const binding = (name: string, node: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...extra }, target: { kind: 'Node', name: node } });

/** A Node registered as its kubelet registers it: created with its status. */
async function addNode(name: string, status: Record<string, unknown>) {
  const r = await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name }, status } });
  expect(r.status).toBe(201);
  expect(r.body.status).toMatchObject(status);
}

async function createPod(name: string, containers?: string[], extra?: Record<string, unknown>) {
  const r = await t.json('POST', `${NS}/pods`, { body: pod(name, containers, extra) });
  expect(r.status).toBe(201);
  return r.body;
}

describe('pods/binding', () => {
  it('[API-PATH-019] binds an unscheduled pod: spec.nodeName, PodScheduled=True, the binding annotations, a 201 Success Status', async () => {
    await createPod('web');
    const r = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1', { annotations: { 'scheduler.example/by': 'hand' } }) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const p = (await t.json('GET', `${NS}/pods/web`)).body;
    expect(p.spec.nodeName).toBe('node-1');
    expect(p.metadata.annotations).toEqual({ 'scheduler.example/by': 'hand' });
    expect(p.status.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it('the legacy bindings collection names the pod in the Binding; a watcher sees one MODIFIED event', async () => {
    const created = await createPod('web');
    const w = await t.watch(`${NS}/pods?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    const r = await t.json('POST', `${NS}/bindings`, { body: binding('web', 'node-2') });
    expect(r.status).toBe(201);
    const ev = (await w.next())!;
    expect(ev.type).toBe('MODIFIED');
    expect(ev.object.spec.nodeName).toBe('node-2');
    expect(Number(ev.object.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    w.close();
  });

  it('a bound pod is a 409 Conflict on pods/binding naming the node', async () => {
    await createPod('web');
    await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1') });
    const r = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-2') });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"',
      details: { name: 'web', kind: 'pods/binding' },
    });
  });

  it('a pod with scheduling gates, or a missing pod, is refused', async () => {
    await createPod('gated', ['nginx'], { schedulingGates: [{ name: 'example.com/wait' }] });
    const gated = await t.json('POST', `${NS}/pods/gated/binding`, { body: binding('gated', 'node-1') });
    expect(gated.status).toBe(409);
    expect(gated.body.message).toBe('Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');
    const missing = await t.json('POST', `${NS}/pods/nope/binding`, { body: binding('nope', 'node-1') });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'pods "nope" not found', details: { name: 'nope', kind: 'pods' } });
  });

  it('uid and resourceVersion in the Binding are preconditions', async () => {
    const p = await createPod('web');
    const uid = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1', { uid: 'other-uid' }) });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toBe(`Operation cannot be fulfilled on pods "web": StorageError: invalid object, Code: 4, Key: /registry/pods/default/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other-uid, UID in object meta: ${p.metadata.uid}`);
    const rv = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1', { resourceVersion: '1' }) });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toContain(`Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${p.metadata.resourceVersion}`);
    const ok = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1', { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion }) });
    expect(ok.status).toBe(201);
  });

  it('validation failures are the aggregate kube-apiserver answers with 500; a name mismatch is 400', async () => {
    await createPod('web');
    const bad = await t.json('POST', `${NS}/bindings`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Pod' } } });
    expect(bad.status).toBe(500);
    expect(bad.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]' });
    const noName = await t.json('POST', `${NS}/pods/web/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: {} } });
    expect(noName.body.message).toBe('target.name: Required value');
    const mismatch = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('other', 'node-1') });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ reason: 'BadRequest', message: 'name in URL does not match name in Binding object' });
    const ns = await t.json('POST', `${NS}/bindings`, { body: binding('web', 'node-1', { namespace: 'kube-system' }) });
    expect(ns.status).toBe(400);
    expect(ns.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    expect((await t.json('GET', `${NS}/pods/web/binding`)).status).toBe(405);
  });

  it('dryRun=All answers Success and leaves the pod unbound', async () => {
    await createPod('web');
    const r = await t.json('POST', `${NS}/pods/web/binding?dryRun=All`, { body: binding('web', 'node-1') });
    expect(r.status).toBe(201);
    expect((await t.json('GET', `${NS}/pods/web`)).body.spec.nodeName).toBeUndefined();
  });
});

describe('pods/log', () => {
  it('an unscheduled pod has no log to stream: 204 and no body', async () => {
    await createPod('web');
    const r = await t.request('GET', `${NS}/pods/web/log`);
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
  });

  it('the container is checked first: several containers need a name, an unknown one is refused', async () => {
    await createPod('two', ['a', 'b'], { initContainers: [{ name: 'init', image: 'busybox' }] });
    const none = await t.json('GET', `${NS}/pods/two/log`);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message: 'a container name must be specified for pod two, choose one of: [init a b]' });
    const wrong = await t.json('GET', `${NS}/pods/two/log?container=c`);
    expect(wrong.body.message).toBe('container c is not valid for pod two');
    expect((await t.request('GET', `${NS}/pods/two/log?container=init`)).status).toBe(204);
    expect((await t.json('GET', `${NS}/pods/missing/log`)).body.message).toBe('pods "missing" not found');
  });

  it('PodLogOptions are decoded and validated before the pod is read', async () => {
    const parse = await t.json('GET', `${NS}/pods/missing/log?tailLines=ten`);
    expect(parse.status).toBe(400);
    expect(parse.body.message).toBe('strconv.ParseInt: parsing "ten": invalid syntax');
    const invalid = await t.json('GET', `${NS}/pods/missing/log?tailLines=-1&limitBytes=0&sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z`);
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toBe('PodLogOptions "missing" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0, : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified]');
    expect(invalid.body.details).toMatchObject({ name: 'missing', kind: 'PodLogOptions' });
    const time = await t.json('GET', `${NS}/pods/missing/log?sinceTime=yesterday`);
    expect(time.status).toBe(400);
    expect(time.body.message).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
    const stream = await t.json('GET', `${NS}/pods/missing/log?stream=Stdout`);
    expect(stream.body.message).toBe('PodLogOptions "missing" is invalid: stream: Forbidden: may not be specified');
  });

  it('a pod bound to a missing node is 404 on nodes; a node without addresses or without a kubelet fails as the dial does', async () => {
    await createPod('web');
    await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1') });
    const noNode = await t.json('GET', `${NS}/pods/web/log`);
    expect(noNode.status).toBe(404);
    expect(noNode.body).toMatchObject({ reason: 'NotFound', message: 'nodes "node-1" not found', details: { name: 'node-1', kind: 'nodes' } });
    await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } } });
    const noAddress = await t.json('GET', `${NS}/pods/web/log`);
    expect(noAddress.status).toBe(500);
    expect(noAddress.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: 'no preferred addresses found; known addresses: []' });
    await t.json('PATCH', '/api/v1/nodes/node-1/status', { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } } });
    const refused = await t.json('GET', `${NS}/pods/web/log?follow=true&tailLines=5`);
    expect(refused.status).toBe(500);
    expect(refused.body.message).toBe('Get "https://10.0.0.7:10250/containerLogs/default/web/nginx?follow=true&tailLines=5": dial tcp 10.0.0.7:10250: connect: connection refused');
  });
});

describe('pods/exec, attach, portforward', () => {
  it('an unscheduled pod has no host: 400 before any upgrade, for the websocket GET and the SPDY POST kubectl sends', async () => {
    await createPod('web');
    const ws = await t.json('GET', `${NS}/pods/web/exec?command=ls&stdout=true&stderr=true`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-protocol': 'v5.channel.k8s.io' } });
    expect(ws.status).toBe(400);
    expect(ws.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message: 'pod web does not have a host assigned' });
    const spdy = await t.json('POST', `${NS}/pods/web/exec?command=ls`, { headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' } });
    expect(spdy.status).toBe(400);
    expect(spdy.body.message).toBe('pod web does not have a host assigned');
    expect((await t.json('POST', `${NS}/pods/web/attach`)).body.message).toBe('pod web does not have a host assigned');
    expect((await t.json('POST', `${NS}/pods/web/portforward?ports=80`)).body.message).toBe('pod web does not have a host assigned');
    expect((await t.json('PUT', `${NS}/pods/web/exec`)).status).toBe(405);
  });

  it('container validation comes before the host check; port-forward checks no container', async () => {
    await createPod('two', ['a', 'b']);
    expect((await t.json('POST', `${NS}/pods/two/exec?command=ls`)).body.message).toBe('a container name must be specified for pod two, choose one of: [a b]');
    expect((await t.json('POST', `${NS}/pods/two/attach?container=z`)).body.message).toBe('container z is not valid for pod two');
    expect((await t.json('POST', `${NS}/pods/two/portforward?ports=8080`)).body.message).toBe('pod two does not have a host assigned');
    const ports = await t.json('POST', `${NS}/pods/two/portforward?ports=80,http`);
    expect(ports.body.message).toBe('cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');
  });

  it('a bound pod whose node has an address fails as dialing the kubelet fails', async () => {
    await createPod('web');
    await addNode('node-1', { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }, { type: 'Hostname', address: 'node-1' }], daemonEndpoints: { kubeletEndpoint: { Port: 10255 } } });
    await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1') });
    // A plain request is refused before any dial (UpgradeAwareHandler with UpgradeRequired).
    const plain = await t.json('POST', `${NS}/pods/web/exec?command=ls`);
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ reason: 'BadRequest', message: 'Upgrade request required' });
    const spdy = { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' };
    const r = await t.json('POST', `${NS}/pods/web/exec?command=ls`, { headers: spdy });
    expect(r.status).toBe(500);
    // Hostname comes first among --kubelet-preferred-address-types, and a node name does not resolve.
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: 'error dialing backend: dial tcp: lookup node-1: no such host' });
    await t.json('PATCH', '/api/v1/nodes/node-1/status', { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } } });
    expect((await t.json('POST', `${NS}/pods/web/attach`, { headers: spdy })).body.message).toBe('error dialing backend: dial tcp 10.0.0.7:10255: connect: connection refused');
    expect((await t.json('POST', `${NS}/pods/web/portforward`)).body.message).toBe('Upgrade request required');
  });
});

describe('proxy subresources', () => {
  it('pods/proxy needs a pod IP the apiserver may dial', async () => {
    await createPod('web');
    const noIP = await t.json('GET', `${NS}/pods/web/proxy/`);
    expect(noIP.status).toBe(400);
    expect(noIP.body.message).toBe('address not allowed');
    expect((await t.json('GET', `${NS}/pods/a:b:c:d/proxy`)).body.message).toBe('invalid pod request "a:b:c:d"');
    await t.json('PATCH', `${NS}/pods/web/status`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }] } } });
    const r = await t.json('GET', `${NS}/pods/web:8080/proxy/healthz`);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ reason: 'ServiceUnavailable', message: 'error trying to reach service: dial tcp 10.244.0.5:8080: connect: connection refused' });
  });

  it('services/proxy: no Endpoints is 404, none ready is 503', async () => {
    await t.json('POST', `${NS}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } } });
    const none = await t.json('GET', `${NS}/services/web/proxy/`);
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('endpoints "web" not found');
    await t.json('POST', `${NS}/endpoints`, { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' } } });
    const empty = await t.json('GET', `${NS}/services/web/proxy/`);
    expect(empty.status).toBe(503);
    expect(empty.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'ServiceUnavailable', code: 503, message: 'no endpoints available for service "web"' });
    const port = await t.json('GET', `${NS}/services/web:81/proxy/`);
    expect(port.body.message).toBe('no service port 81 found for service "web"');
  });

  it('nodes/proxy reaches for the kubelet', async () => {
    expect((await t.json('GET', '/api/v1/nodes/node-1/proxy/stats/summary')).body.message).toBe('nodes "node-1" not found');
    await addNode('node-1', { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] });
    const r = await t.json('GET', '/api/v1/nodes/node-1/proxy/stats/summary');
    expect(r.status).toBe(503);
    expect(r.body.message).toBe('error trying to reach service: dial tcp 10.0.0.7:10250: connect: connection refused');
    await addNode('local', { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] });
    expect((await t.json('GET', '/api/v1/nodes/local/proxy/')).body).toMatchObject({ code: 400, message: 'address not allowed' });
    await addNode('named', { addresses: [{ type: 'Hostname', address: 'named' }] });
    expect((await t.json('GET', '/api/v1/nodes/named/proxy/')).body).toMatchObject({ code: 400, message: 'lookup named: no such host' });
  });
});

describe('pods/ephemeralcontainers', () => {
  const debugger1 = { name: 'debugger-abc', image: 'busybox', targetContainerName: 'nginx', stdin: true, tty: true };

  it('a strategic merge patch adds an ephemeral container and nothing else; GET shows the pod', async () => {
    await createPod('web');
    const r = await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { metadata: { labels: { dropped: 'yes' } }, spec: { ephemeralContainers: [debugger1], activeDeadlineSeconds: 5 } },
    });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('Pod');
    expect(r.body.spec.ephemeralContainers).toEqual([{ ...debugger1, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }]);
    expect(r.body.metadata.labels).toBeUndefined();
    expect(r.body.spec.activeDeadlineSeconds).toBeUndefined();
    // A spec change moves the generation, as updatePodGeneration does.
    expect(r.body.metadata.generation).toBe(2);
    expect(r.body.metadata.managedFields.some((m: { subresource?: string }) => m.subresource === 'ephemeralcontainers')).toBe(true);
    const g = await t.json('GET', `${NS}/pods/web/ephemeralcontainers`);
    expect(g.body.spec.ephemeralContainers).toHaveLength(1);
  });

  it('ephemeral containers may not have ports, probes, resources or lifecycle, and existing ones never change', async () => {
    await createPod('web');
    const bad = await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes.map((c: { field: string }) => c.field)).toEqual(expect.arrayContaining(['spec.ephemeralContainers[0].ports', 'spec.ephemeralContainers[0].resources']));
    await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { ephemeralContainers: [debugger1] } } });
    const removed = await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { ephemeralContainers: [] } } });
    expect(removed.status).toBe(422);
    expect(removed.body.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers' });
    expect(removed.body.details.causes[0].message).toContain('existing ephemeral containers "debugger-abc" may not be removed');
    // The main resource cannot add them.
    const main = await t.json('PATCH', `${NS}/pods/web`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { ephemeralContainers: [{ name: 'x', image: 'busybox' }] } } });
    expect(main.status).toBe(422);
  });
});

describe('pods/resize', () => {
  const guaranteed = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '100m', memory: '128Mi' } };
  const sized = (resources: unknown) => ({ ...pod('web'), spec: { containers: [{ name: 'nginx', image: 'nginx', resources }] } });
  const resize = (body: unknown) => t.json('PATCH', `${NS}/pods/web/resize`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body });

  it('changes the containers\' cpu and memory and drops anything else the patch carries; the main resource refuses it', async () => {
    expect((await t.json('POST', `${NS}/pods`, { body: sized(guaranteed) })).status).toBe(201);
    const main = await t.json('PATCH', `${NS}/pods/web`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { containers: [{ name: 'nginx', resources: { requests: { cpu: '200m' }, limits: { cpu: '200m' } } }] } } });
    expect(main.status).toBe(422);
    const r = await resize({ metadata: { labels: { dropped: 'yes' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:dropped', resources: { requests: { cpu: '200m' }, limits: { cpu: '200m' } } }] } });
    expect(r.status).toBe(200);
    expect(r.body.spec.containers[0]).toMatchObject({ image: 'nginx', resources: { requests: { cpu: '200m', memory: '128Mi' }, limits: { cpu: '200m', memory: '128Mi' } } });
    expect(r.body.metadata.labels).toBeUndefined();
    expect(r.body.metadata.generation).toBe(2);
    expect((await t.json('GET', `${NS}/pods/web/resize`)).body.spec.containers[0].resources.limits.cpu).toBe('200m');
  });

  it('the QoS class may not change, and only cpu and memory are mutable', async () => {
    expect((await t.json('POST', `${NS}/pods`, { body: sized(guaranteed) })).status).toBe(201);
    const qos = await resize({ spec: { containers: [{ name: 'nginx', resources: { limits: { cpu: '200m' } } }] } });
    expect(qos.status).toBe(422);
    expect(qos.body.message).toBe('Pod "web" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing');
    const storage = await resize({ spec: { containers: [{ name: 'nginx', resources: { requests: { 'ephemeral-storage': '1Gi' }, limits: { 'ephemeral-storage': '1Gi' } } }] } });
    expect(storage.status).toBe(422);
    expect(storage.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', message: 'Forbidden: only cpu and memory resources are mutable', field: 'spec' }]);
  });

  it('InPlacePodVerticalScaling is GA in 1.36 and locked on, so discovery always lists pods/resize', async () => {
    const list = await t.json('GET', '/api/v1');
    expect(list.body.resources.find((r: { name: string }) => r.name === 'pods/resize')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    const { parseFeatureGates } = await import('../../features');
    expect(() => parseFeatureGates('InPlacePodVerticalScaling=false')).toThrow('cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true');
  });
});

describe('pods/binding field validation', () => {
  it('checks the body against the Binding schema: Strict refuses an unknown field, Warn answers with a warning', async () => {
    await createPod('web');
    const body = { ...binding('web', 'node-1'), targte: {} };
    const strict = await t.json('POST', `${NS}/pods/web/binding?fieldValidation=Strict`, { body });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('Binding in version "v1" cannot be handled as a Binding: strict decoding error: unknown field "targte"');
    const warn = await t.json('POST', `${NS}/pods/web/binding?fieldValidation=Warn`, { body });
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"targte\\""');
  });
});

describe('admission of pod subresources', () => {
  const VAPS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  const VAPBS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
  async function install(name: string, resources: string[], operations: string[], expression: string) {
    const p = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations, resources }] }, validations: [{ expression }] } };
    expect((await t.json('POST', VAPS, { body: p })).status).toBe(201);
    const b = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } };
    expect((await t.json('POST', VAPBS, { body: b })).status).toBe(201);
  }

  it('a policy on pods/binding sees the Binding; one on pods/exec CONNECT sees the PodExecOptions', async () => {
    await createPod('web');
    await install('no-node-9', ['pods/binding'], ['CREATE'], "object.kind == 'Binding' && object.target.name != 'node-9'");
    const denied = await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-9') });
    expect(denied.status).toBe(422);
    expect(denied.body.message).toBe('pods "web" is forbidden: ValidatingAdmissionPolicy \'no-node-9\' with binding \'no-node-9\' denied request: failed expression: object.kind == \'Binding\' && object.target.name != \'node-9\'');
    expect((await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1') })).status).toBe(201);

    await install('no-shell', ['pods/exec'], ['CONNECT'], "object.kind == 'PodExecOptions' && !('sh' in object.command)");
    const shell = await t.json('POST', `${NS}/pods/web/exec?command=sh&stdin=true&tty=true`);
    expect(shell.status).toBe(422);
    expect(shell.body.message).toContain("denied request: failed expression: object.kind == 'PodExecOptions'");
    // Admitted, the exec goes on to the kubelet it cannot reach.
    expect((await t.json('POST', `${NS}/pods/web/exec?command=ls`)).body.message).toBe('nodes "node-1" not found');
  });

  it('a proxy CONNECT carries the path after the subresource, with its leading and trailing slashes', async () => {
    await install('no-admin', ['services/proxy'], ['CONNECT'], "object.kind == 'ServiceProxyOptions' && object.path != '/admin/'");
    const admin = await t.json('GET', `${NS}/services/web/proxy/admin/?path=/ignored`);
    expect(admin.status).toBe(422);
    expect(admin.body.message).toContain('denied request: failed expression');
    // Admitted, the proxy looks for the service's endpoints.
    expect((await t.json('GET', `${NS}/services/web/proxy/admin`)).body.message).toBe('endpoints "web" not found');
  });
});

describe('ephemeral container validation', () => {
  it('refuses, in kube\'s field order, what an ephemeral container may not carry; the target may be an init container', async () => {
    await createPod('web', ['nginx'], { initContainers: [{ name: 'init', image: 'busybox' }], volumes: [{ name: 'data', emptyDir: {} }] });
    const r = await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { ephemeralContainers: [{
        name: 'dbg', image: 'busybox', targetContainerName: 'init',
        lifecycle: { preStop: { exec: { command: ['true'] } } }, livenessProbe: { exec: { command: ['true'] } }, ports: [{ containerPort: 80 }],
        resources: { requests: { cpu: '100m' } }, volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x' }],
      }] } },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.filter((c: { message: string }) => c.message.includes('Ephemeral')).map((c: { field: string }) => c.field)).toEqual([
      'spec.ephemeralContainers[0].ports',
      'spec.ephemeralContainers[0].resources',
      'spec.ephemeralContainers[0].livenessProbe',
      'spec.ephemeralContainers[0].lifecycle',
      'spec.ephemeralContainers[0].volumeMounts[0].subPath',
    ]);
    expect(r.body.details.causes.some((c: { field: string }) => c.field.endsWith('targetContainerName'))).toBe(false);
    const missing = await t.json('PATCH', `${NS}/pods/web/ephemeralcontainers`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'nope' }] } } });
    expect(missing.body.details.causes).toEqual([{ reason: 'FieldValueNotFound', message: 'Not found: "nope"', field: 'spec.ephemeralContainers[0].targetContainerName' }]);
  });
});

describe('request metrics of pod subresources', () => {
  it('exec and proxy requests count as CONNECT, a log request as GET', async () => {
    await createPod('web');
    await t.request('POST', `${NS}/pods/web/exec?command=ls`);
    await t.request('GET', `${NS}/pods/web/log`);
    const text = await (await t.request('GET', '/metrics')).text();
    expect(text).toMatch(/^apiserver_request_total\{verb="CONNECT",dry_run="",group="",version="v1",resource="pods",subresource="exec",scope="resource",component="apiserver",code="400"\} 1$/m);
    expect(text).toMatch(/^apiserver_request_total\{verb="GET",dry_run="",group="",version="v1",resource="pods",subresource="log",scope="resource",component="apiserver",code="204"\} 1$/m);
  });
});

describe('PodTopologyLabels', () => {
  it('a pods/binding takes the node\'s zone and region labels, and the binding\'s labels land on the pod', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1', 'kubernetes.io/hostname': 'node-1' } } };
    expect((await t.json('POST', '/api/v1/nodes', { body: node })).status).toBe(201);
    await createPod('web');
    expect((await t.json('POST', `${NS}/pods/web/binding`, { body: binding('web', 'node-1', { labels: { team: 'a' } }) })).status).toBe(201);
    expect((await t.json('GET', `${NS}/pods/web`)).body.metadata.labels).toEqual({ team: 'a', 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' });
    // The plugin admits pods/binding only; the legacy collection copies the Binding's own labels.
    await createPod('legacy');
    expect((await t.json('POST', `${NS}/bindings`, { body: binding('legacy', 'node-1', { labels: { team: 'b' } }) })).status).toBe(201);
    expect((await t.json('GET', `${NS}/pods/legacy`)).body.metadata.labels).toEqual({ team: 'b' });
  });
});

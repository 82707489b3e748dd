/** The EndpointSlice controller, driven through HTTP as kubectl get endpointslices and kube-proxy read it. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const slicesPath = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

async function server(maxEndpointsPerSlice?: number): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*', '-deployment-controller', '-replicaset-controller', '-endpoints-controller'], maxEndpointsPerSlice });
  return t;
}

async function pod(s: TestServer, name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}): Promise<any> {
  const r = await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function report(s: TestServer, name: string, ips: string[], ready: boolean, at = '2026-01-01T00:00:05Z'): Promise<void> {
  const status = { phase: 'Running', podIP: ips[0], podIPs: ips.map((ip) => ({ ip })), conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: at }] };
  const r = await s.json('PATCH', `${ns}/pods/${name}/status`, { body: { status }, headers: mergePatch });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function service(s: TestServer, name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<any> {
  const r = await s.json('POST', `${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(labels ? { labels } : {}) }, spec } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const slicesOf = async (s: TestServer, svc: string): Promise<any[]> =>
  (await s.json('GET', `${slicesPath}?labelSelector=kubernetes.io%2Fservice-name%3D${svc}`)).body.items;
const endpointCount = (slices: any[]): number => slices.reduce((n, sl) => n + (sl.endpoints?.length ?? 0), 0);
const target = (p: any) => ({ kind: 'Pod', namespace: 'default', name: p.metadata.name, uid: p.metadata.uid });

describe('endpointslice-controller', () => {
  it('[API-VER-110] [API-META-011] [API-META-012] keeps a placeholder slice (named from generateName <service>-) until pods have IPs, then lists them with their conditions in that same slice', async () => {
    const s = await server();
    const a = await pod(s, 'a', { app: 'web' });
    const b = await pod(s, 'b', { app: 'web' });
    const svc = await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }, { team: 'blue' });
    const [placeholder] = await eventually(() => slicesOf(s, 'web'), (l) => l.length === 1, 'the placeholder slice');
    expect(placeholder.metadata).toMatchObject({
      generateName: 'web-',
      namespace: 'default',
      labels: { team: 'blue', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': svc.metadata.creationTimestamp },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
    });
    expect(placeholder.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(placeholder.metadata.generation).toBe(1);
    expect(placeholder.addressType).toBe('IPv4');
    expect(placeholder.endpoints).toBeNull();
    expect(placeholder.ports).toBeNull();

    await report(s, 'a', ['10.244.0.5'], true);
    await report(s, 'b', ['10.244.0.6'], false);
    const [slice] = await eventually(() => slicesOf(s, 'web'), (l) => endpointCount(l) === 2, 'both pods');
    // The placeholder's create-and-delete became an update: the same object.
    expect(slice.metadata.name).toBe(placeholder.metadata.name);
    expect(slice.metadata.uid).toBe(placeholder.metadata.uid);
    // Each sync that changed its endpoints moved its generation (one or two, as the reports were coalesced).
    expect(slice.metadata.generation).toBeGreaterThan(1);
    expect(slice.ports).toEqual([{ name: '', protocol: 'TCP', port: 8080 }]);
    const byName = Object.fromEntries(slice.endpoints.map((e: any) => [e.targetRef.name, e]));
    expect(byName['a']).toEqual({ addresses: ['10.244.0.5'], conditions: { ready: true, serving: true, terminating: false }, targetRef: target(a) });
    expect(byName['b']).toEqual({ addresses: ['10.244.0.6'], conditions: { ready: false, serving: false, terminating: false }, targetRef: target(b) });
    expect(slice.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']).toBe('2026-01-01T00:00:05Z');

    // A pod being deleted stays, terminating; serving still says whether it is ready.
    await s.json('PATCH', `${ns}/pods/a`, { body: { metadata: { finalizers: ['example.com/hold'] } }, headers: mergePatch });
    expect((await s.json('DELETE', `${ns}/pods/a`, { body: { gracePeriodSeconds: 0 } })).status).toBe(200);
    const [terminating] = await eventually(() => slicesOf(s, 'web'), (l) => l[0]?.endpoints?.some((e: any) => e.conditions.terminating), 'a terminating');
    expect(terminating.endpoints.find((e: any) => e.targetRef.name === 'a').conditions).toEqual({ ready: false, serving: true, terminating: true });
  });

  it('puts the Node\'s zone on its pods\' endpoints, skips a pod on a missing Node and says so', async () => {
    const s = await server();
    expect((await s.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } } })).status).toBe(201);
    const a = await pod(s, 'a', { app: 'web' }, { nodeName: 'node-1' });
    await pod(s, 'b', { app: 'web' }, { nodeName: 'node-9' });
    await report(s, 'a', ['10.0.0.1'], true);
    await report(s, 'b', ['10.0.0.2'], true);
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, appProtocol: 'http' }] });
    const [slice] = await eventually(() => slicesOf(s, 'web'), (l) => endpointCount(l) === 1, 'the slice');
    expect(slice.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, targetRef: target(a), nodeName: 'node-1', zone: 'zone-a' }]);
    expect(slice.ports).toEqual([{ name: 'http', protocol: 'TCP', port: 80, appProtocol: 'http' }]);
    const events = await eventually(async () => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.kind%3DService`)).body.items as any[], (l) => l.length > 0, 'the event');
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'FailedToUpdateEndpointSlices',
      message: 'Error updating Endpoint Slices for Service default/web: skipping Pod b for Service default/web: node "node-9" not found',
      source: { component: 'endpoint-slice-controller' },
      involvedObject: { kind: 'Service', name: 'web', namespace: 'default' },
    });
  });

  it('a headless Service: the headless label, hostnames for its subdomain, one slice per IP family', async () => {
    const s = await server();
    const a = await pod(s, 'a', { app: 'db' }, { hostname: 'db-0', subdomain: 'db' });
    await report(s, 'a', ['10.0.1.1', 'fd00::1'], true);
    await service(s, 'db', { clusterIP: 'None', selector: { app: 'db' }, ipFamilyPolicy: 'PreferDualStack' });
    const svc = (await s.json('GET', `${ns}/services/db`)).body;
    const families: string[] = svc.spec.ipFamilies;
    const slices = await eventually(() => slicesOf(s, 'db'), (l) => endpointCount(l) === families.length, 'the slices');
    expect(slices.map((sl) => sl.addressType).sort()).toEqual([...families].sort());
    for (const sl of slices) {
      expect(sl.metadata.labels).toEqual({ 'service.kubernetes.io/headless': '', 'kubernetes.io/service-name': 'db', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
      expect(sl.ports).toBeNull();
      expect(sl.endpoints).toEqual([{ addresses: [sl.addressType === 'IPv6' ? 'fd00::1' : '10.0.1.1'], conditions: { ready: true, serving: true, terminating: false }, hostname: 'db-0', targetRef: target(a) }]);
    }
  });

  it('publishNotReadyAddresses makes every endpoint ready; a Service without a selector gets no slices', async () => {
    const s = await server();
    await pod(s, 'a', { app: 'peer' });
    await report(s, 'a', ['10.0.2.1'], false);
    await service(s, 'peer', { selector: { app: 'peer' }, ports: [{ port: 7000 }], publishNotReadyAddresses: true });
    await service(s, 'manual', { ports: [{ port: 7000 }] });
    const [slice] = await eventually(() => slicesOf(s, 'peer'), (l) => endpointCount(l) === 1, 'the slice');
    expect(slice.endpoints[0].conditions).toEqual({ ready: true, serving: false, terminating: false });
    expect(await slicesOf(s, 'manual')).toEqual([]);
    // A slice the user writes for it gets the scheme's port defaults: an empty name, TCP.
    const manual = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'manual-1', labels: { 'kubernetes.io/service-name': 'manual' } }, addressType: 'IPv4', endpoints: [{ addresses: ['192.0.2.1'] }], ports: [{ port: 7000 }] };
    const created = await s.json('POST', slicesPath, { body: manual });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.ports).toEqual([{ name: '', protocol: 'TCP', port: 7000 }]);
  });

  it('at most --max-endpoints-per-slice endpoints a slice; a change goes into the slice that changed, and nothing is written for no change', async () => {
    const s = await server(2);
    for (const n of [1, 2, 3, 4]) {
      await pod(s, `p${n}`, { app: 'web' });
      await report(s, `p${n}`, [`10.0.3.${n}`], true);
    }
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    const slices = await eventually(() => slicesOf(s, 'web'), (l) => endpointCount(l) === 4, 'four endpoints');
    expect(slices.map((sl) => sl.endpoints.length)).toEqual([2, 2]);
    const holder = (pod: string) => slices.find((sl) => sl.endpoints.some((e: any) => e.targetRef.name === pod));
    const full = holder('p1');
    expect(full.endpoints).toHaveLength(2);
    const other = full.endpoints.find((e: any) => e.targetRef.name !== 'p1').targetRef.name;
    const w = await s.watch(`${slicesPath}?watch=true&resourceVersion=${Math.max(...slices.map((sl) => Number(sl.metadata.resourceVersion)))}`);
    // p1 goes, then p6 comes: the one slice with room takes it.
    await s.json('PATCH', `${ns}/pods/p1`, { body: { metadata: { labels: { app: 'gone' } } }, headers: mergePatch });
    const [removed] = await w.take(1);
    expect(removed!.object.metadata.name).toBe(full.metadata.name);
    expect(removed!.object.endpoints.map((e: any) => e.targetRef.name)).toEqual([other]);
    // A Service annotation syncs again with nothing to change: no write.
    await s.json('PATCH', `${ns}/services/web`, { body: { metadata: { annotations: { note: 'x' } } }, headers: mergePatch });
    await pod(s, 'p6', { app: 'web' });
    await report(s, 'p6', ['10.0.3.6'], true);
    const [added] = await w.take(1);
    expect(added!.type).toBe('MODIFIED');
    expect(added!.object.metadata.name).toBe(full.metadata.name);
    expect(added!.object.endpoints.map((e: any) => e.targetRef.name)).toEqual([other, 'p6']);
    w.close();
    const after = await slicesOf(s, 'web');
    expect(after.map((sl) => sl.metadata.name).sort()).toEqual(slices.map((sl) => sl.metadata.name).sort());
  });

  it('the Service\'s labels follow onto its slices; a slice deleted by hand is made again; the Service\'s deletion takes its slices (their owner)', async () => {
    const s = await server();
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    const [first] = await eventually(() => slicesOf(s, 'web'), (l) => l.length === 1, 'the placeholder');
    // The Service's labels follow onto its slices; the reserved ones stay the controller's.
    await s.json('PATCH', `${ns}/services/web`, { body: { metadata: { labels: { tier: 'front', 'kubernetes.io/service-name': 'spoof' } } }, headers: mergePatch });
    const [relabelled] = await eventually(() => slicesOf(s, 'web'), (l) => l[0]?.metadata.labels.tier === 'front', 'the label copied');
    expect(relabelled.metadata.labels).toEqual({ tier: 'front', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    expect(relabelled.metadata.name).toBe(first.metadata.name);
    expect((await s.json('DELETE', `${slicesPath}/${first.metadata.name}`)).status).toBe(200);
    const [again] = await eventually(() => slicesOf(s, 'web'), (l) => l.length === 1 && l[0].metadata.name !== first.metadata.name, 'a new placeholder');
    expect(again.metadata.generateName).toBe('web-');
    expect((await s.json('DELETE', `${ns}/services/web`)).status).toBe(200);
    await eventually(() => slicesOf(s, 'web'), (l) => l.length === 0, 'the slices collected');
  });

  it('100 endpoints a slice by default: the 101st pod makes a second slice', async () => {
    const s = (t = await newTestServer({ controllers: ['serviceaccount-controller', 'endpointslice-controller'] }));
    for (let i = 0; i < 101; i++) {
      await pod(s, `p${i}`, { app: 'many' });
      await report(s, `p${i}`, [`10.2.0.${i}`], true);
    }
    await service(s, 'many', { selector: { app: 'many' }, ports: [{ port: 80 }] });
    const slices = await eventually(() => slicesOf(s, 'many'), (l) => endpointCount(l) === 101, 'all endpoints');
    expect(slices.map((sl) => sl.endpoints.length).sort((a, b) => a - b)).toEqual([1, 100]);
  }, 60_000);

  it('with discovery.k8s.io/v1 switched off (--runtime-config) there are no slices to keep; the Endpoints still are', async () => {
    const s = (t = await newTestServer({ controllers: ['serviceaccount-controller', 'endpoints-controller', 'endpointslice-controller'], runtimeConfig: 'discovery.k8s.io/v1=false' }));
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    await eventually(() => s.json('GET', `${ns}/endpoints/web`), (r) => r.status === 200, 'the Endpoints');
    expect((await s.json('GET', slicesPath)).status).toBe(404);
  });
});

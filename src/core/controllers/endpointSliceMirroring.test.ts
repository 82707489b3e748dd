/** The EndpointSlice mirroring controller, driven through HTTP: a hand-written Endpoints of a selectorless Service becomes EndpointSlices. */
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
const managedBy = 'endpointslicemirroring-controller.k8s.io';

async function server(mirroringMaxEndpointsPerSubset?: number): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*', '-endpoints-controller', '-endpointslice-controller'], mirroringMaxEndpointsPerSubset });
  return t;
}

async function create(s: TestServer, resource: string, body: Record<string, unknown>): Promise<any> {
  const r = await s.json('POST', `${ns}/${resource}`, { body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const service = (s: TestServer, name: string, spec: Record<string, unknown> = { ports: [{ name: 'web', port: 80 }] }) =>
  create(s, 'services', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const endpoints = (s: TestServer, name: string, subsets: unknown[], meta: Record<string, unknown> = {}) =>
  create(s, 'endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, ...meta }, subsets });

const slicesOf = async (s: TestServer, name: string): Promise<any[]> =>
  (await s.json('GET', `${slicesPath}?labelSelector=kubernetes.io%2Fservice-name%3D${name}`)).body.items;
const ips = (slice: any): string[] => slice.endpoints.map((e: any) => e.addresses[0]);

const extSubsets = [{
  addresses: [{ ip: '192.0.2.10', hostname: 'db-0', nodeName: 'node-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'db-0', uid: 'u-1' } }],
  notReadyAddresses: [{ ip: '192.0.2.11' }],
  ports: [{ name: 'web', port: 80, protocol: 'TCP', appProtocol: 'http' }],
}];

describe('endpointslice-mirroring-controller', () => {
  it('[API-META-011] [API-META-012] [API-META-020] mirrors a selectorless Service\'s Endpoints into one slice named from generateName <endpoints>-, owned by the Endpoints, its labels and annotations copied but the dropped ones', async () => {
    const s = await server();
    await service(s, 'ext');
    const ep = await endpoints(s, 'ext', extSubsets, {
      labels: { team: 'blue' },
      annotations: {
        note: 'kept',
        'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
      },
    });
    const [slice] = await eventually(() => slicesOf(s, 'ext'), (l) => l.length === 1, 'the mirrored slice');
    expect(slice.metadata.name).toMatch(/^ext-[a-z0-9]{5}$/);
    expect(slice.metadata).toMatchObject({
      generateName: 'ext-',
      namespace: 'default',
      generation: 1,
      labels: { team: 'blue', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': managedBy },
      annotations: { note: 'kept' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: 'ext', uid: ep.metadata.uid, controller: true, blockOwnerDeletion: true }],
    });
    expect(Object.keys(slice.metadata.labels)).toHaveLength(3);
    expect(Object.keys(slice.metadata.annotations)).toEqual(['note']);
    expect(slice.metadata.managedFields.map((f: any) => [f.manager, f.operation])).toEqual([['kube-controller-manager', 'Update']]);
    // A list's items carry no kind (as kube-apiserver's): the exact body is a GET's.
    const { apiVersion, kind, addressType, endpoints: eps, ports } = (await s.json('GET', `${slicesPath}/${slice.metadata.name}`)).body;
    expect({ apiVersion, kind, addressType, endpoints: eps, ports }).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['192.0.2.10'], conditions: { ready: true }, hostname: 'db-0', targetRef: { kind: 'Pod', namespace: 'default', name: 'db-0', uid: 'u-1' }, nodeName: 'node-a' },
        { addresses: ['192.0.2.11'], conditions: { ready: false } },
      ],
      ports: [{ name: 'web', protocol: 'TCP', port: 80, appProtocol: 'http' }],
    });
    // Slices of another manager, and Endpoints labelled skip-mirror, are left alone.
    const other = await s.json('POST', slicesPath, { body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'ext-manual', labels: { 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'mine.example.com' } }, addressType: 'IPv4', endpoints: [{ addresses: ['198.51.100.1'] }] } });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    await service(s, 'skipped');
    await endpoints(s, 'skipped', extSubsets, { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } });
    await service(s, 'marker');
    await endpoints(s, 'marker', extSubsets);
    await eventually(() => slicesOf(s, 'marker'), (l) => l.length === 1, 'a later Endpoints mirrored');
    expect(await slicesOf(s, 'skipped')).toEqual([]);
    expect((await slicesOf(s, 'ext')).map((x) => x.metadata.name).sort()).toEqual(['ext-manual', slice.metadata.name].sort());
  });

  it('waits for the Service; groups by port set and address family; an Endpoints without a Service, or whose Service has a selector, is not mirrored', async () => {
    const s = await server();
    await endpoints(s, 'later', [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '2001:db8::1' }], ports: [{ name: 'web', port: 80 }] },
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] },
    ]);
    await service(s, 'selected', { selector: { app: 'x' }, ports: [{ port: 80 }] });
    await endpoints(s, 'selected', [{ addresses: [{ ip: '10.0.0.9' }], ports: [{ port: 80 }] }]);
    await service(s, 'marker');
    await endpoints(s, 'marker', extSubsets);
    await eventually(() => slicesOf(s, 'marker'), (l) => l.length === 1, 'marker mirrored');
    expect(await slicesOf(s, 'later')).toEqual([]);
    expect(await slicesOf(s, 'selected')).toEqual([]);

    await service(s, 'later');
    const slices = await eventually(() => slicesOf(s, 'later'), (l) => l.length === 3, 'three slices');
    const summary = slices.map((x) => [x.addressType, x.ports.map((p: any) => `${p.name}/${p.port}/${p.protocol}`).join(), ips(x).join()]).sort();
    expect(summary).toEqual([
      ['IPv4', 'dns/53/UDP', '10.0.0.2'],
      ['IPv4', 'web/80/TCP', '10.0.0.1'],
      ['IPv6', 'web/80/TCP', '2001:db8::1'],
    ]);
  });

  it('updates the slice in place when the Endpoints changes, writes nothing for changes it does not mirror, and recreates a slice a user deletes', async () => {
    const s = await server();
    await service(s, 'ext');
    await endpoints(s, 'ext', extSubsets);
    const [first] = await eventually(() => slicesOf(s, 'ext'), (l) => l.length === 1, 'the mirrored slice');
    const w = await s.watch(`${slicesPath}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    // Neither kubectl's last-applied configuration nor the trigger time is mirrored: no write.
    await s.json('PATCH', `${ns}/endpoints/ext`, { body: { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}' } } }, headers: mergePatch });
    // A new address is: the watch's first event is that update, of the same slice.
    const subsets = [{ ...extSubsets[0], addresses: [...extSubsets[0]!.addresses, { ip: '192.0.2.12' }] }];
    await s.json('PATCH', `${ns}/endpoints/ext`, { body: { subsets }, headers: mergePatch });
    const [updated] = await w.take(1);
    expect(updated!.type).toBe('MODIFIED');
    expect(updated!.object.metadata.name).toBe(first.metadata.name);
    expect(updated!.object.metadata.uid).toBe(first.metadata.uid);
    expect(updated!.object.metadata.generation).toBe(2);
    expect(Number(updated!.object.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
    expect(ips(updated!.object).sort()).toEqual(['192.0.2.10', '192.0.2.11', '192.0.2.12']);
    expect(updated!.object.endpoints.find((e: any) => e.addresses[0] === '192.0.2.12').conditions).toEqual({ ready: true });

    // A label on the Endpoints is mirrored (metadata only: the generation stays).
    await s.json('PATCH', `${ns}/endpoints/ext`, { body: { metadata: { labels: { tier: 'db' } } }, headers: mergePatch });
    const [labelled] = await w.take(1);
    expect(labelled!.object.metadata.labels.tier).toBe('db');
    expect(labelled!.object.metadata.generation).toBe(2);

    // Someone edits the slice's endpoints: the controller writes them back.
    await s.json('PATCH', `${slicesPath}/${first.metadata.name}`, { body: { endpoints: [{ addresses: ['203.0.113.9'], conditions: { ready: true } }] }, headers: mergePatch });
    const [edited] = await w.take(1);
    expect(ips(edited!.object)).toEqual(['203.0.113.9']);
    const [restored] = await w.take(1);
    expect(ips(restored!.object).sort()).toEqual(['192.0.2.10', '192.0.2.11', '192.0.2.12']);
    expect(restored!.object.metadata.managedFields.find((f: any) => f.manager === 'kube-controller-manager')).toBeTruthy();

    // Someone deletes the slice: a new one (a new name) takes its place.
    expect((await s.json('DELETE', `${slicesPath}/${first.metadata.name}`)).status).toBe(200);
    const [again] = await eventually(() => slicesOf(s, 'ext'), (l) => l.length === 1 && l[0].metadata.name !== first.metadata.name, 'a new slice');
    expect(again.metadata.name).toMatch(/^ext-[a-z0-9]{5}$/);
    expect(ips(again).sort()).toEqual(['192.0.2.10', '192.0.2.11', '192.0.2.12']);
    w.close();
  });

  it('deletes the slices when the Service gains a selector, the skip-mirror label appears, the Service goes or the Endpoints goes', async () => {
    const s = await server();
    const cases: [string, (s: TestServer) => Promise<unknown>][] = [
      ['selector', (s) => s.json('PATCH', `${ns}/services/selector`, { body: { spec: { selector: { app: 'x' } } }, headers: mergePatch })],
      ['skip', (s) => s.json('PATCH', `${ns}/endpoints/skip`, { body: { metadata: { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }, headers: mergePatch })],
      ['svc-gone', (s) => s.json('DELETE', `${ns}/services/svc-gone`)],
      ['ep-gone', (s) => s.json('DELETE', `${ns}/endpoints/ep-gone`)],
    ];
    for (const [name] of cases) {
      await service(s, name);
      await endpoints(s, name, extSubsets);
    }
    for (const [name, change] of cases) {
      await eventually(() => slicesOf(s, name), (l) => l.length === 1, `${name} mirrored`);
      await change(s);
      await eventually(() => slicesOf(s, name), (l) => l.length === 0, `${name}'s slice deleted`);
    }
    // The selector goes again: mirrored once more.
    await s.json('PATCH', `${ns}/services/selector`, { body: { spec: { selector: null } }, headers: mergePatch });
    await eventually(() => slicesOf(s, 'selector'), (l) => l.length === 1, 'mirrored again');
  });

  it('canonicalizes the subsets first, as RepackSubsets does: an address listed twice is one endpoint, not ready if it is not ready anywhere; subsets with the same ports share a slice', async () => {
    const s = await server();
    await service(s, 'twice');
    await endpoints(s, 'twice', [
      { addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.1' }], ports: [{ name: 'web', port: 80 }] },
      { notReadyAddresses: [{ ip: '10.0.0.1' }], addresses: [{ ip: '10.0.0.3' }], ports: [{ name: 'web', port: 80 }] },
    ]);
    const [slice] = await eventually(() => slicesOf(s, 'twice'), (l) => l.length === 1, 'one slice');
    expect(slice.endpoints).toEqual([
      { addresses: ['10.0.0.2'], conditions: { ready: true } },
      { addresses: ['10.0.0.3'], conditions: { ready: true } },
      { addresses: ['10.0.0.1'], conditions: { ready: false } },
    ]);
  });

  it('mirrors at most --mirroring-max-endpoints-per-subset addresses of a subset and says so in a Warning event on the Endpoints', async () => {
    const s = await server(2);
    await service(s, 'big');
    await endpoints(s, 'big', [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.3' }], ports: [{ port: 80 }] }]);
    const [slice] = await eventually(() => slicesOf(s, 'big'), (l) => l.length === 1, 'the mirrored slice');
    expect(ips(slice)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(slice.ports).toEqual([{ name: '', protocol: 'TCP', port: 80 }]);
    const events = await eventually(
      async () => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dbig`)).body.items,
      (l: any[]) => l.length === 1,
      'the event',
    );
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'TooManyAddressesToMirror',
      message: 'A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped',
      involvedObject: { kind: 'Endpoints', name: 'big', namespace: 'default' },
      source: { component: 'endpoint-slice-mirroring-controller' },
    });
  });
});

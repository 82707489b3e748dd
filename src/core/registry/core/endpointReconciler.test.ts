/** The `kubernetes` Service's Endpoints and EndpointSlice, written by the API server itself (the endpoint reconciler). */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage } from '../..';
import { newTestServer, rawApiControllers, type TestServer } from '../../testing/client';
import { FakeClock, seededRandom } from '../../util/clock';

const ENDPOINTS = '/api/v1/namespaces/default/endpoints/kubernetes';
const SLICE = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

/** Lets the reconciler's round after a clock advance run. */
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('endpoint reconciler', () => {
  it('[API-META-020] [API-SSA-002] lists the advertise address on the secure port, labelled skip-mirror, with the EndpointSlice beside it, as kube-apiserver', async () => {
    t = await newTestServer({ advertiseAddress: '192.168.49.2', securePort: 8443 });
    const ep = await t.json('GET', ENDPOINTS);
    expect(ep.status).toBe(200);
    expect(ep.body.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(ep.body.subsets).toEqual([{ addresses: [{ ip: '192.168.49.2' }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] }]);
    expect(ep.body.metadata.managedFields.map((f: { manager: string; operation: string }) => [f.manager, f.operation])).toEqual([['kube-apiserver', 'Update']]);
    const slice = await t.json('GET', SLICE);
    expect(slice.status).toBe(200);
    expect({ labels: slice.body.metadata.labels, addressType: slice.body.addressType, endpoints: slice.body.endpoints, ports: slice.body.ports }).toEqual({
      labels: { 'kubernetes.io/service-name': 'kubernetes' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['192.168.49.2'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: 8443, protocol: 'TCP' }],
    });
    const svc = await t.json('GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(svc.body.spec.ports[0].targetPort).toBe(8443);
    expect(svc.body.metadata.managedFields[0].manager).toBe('kube-apiserver');
  });

  it('puts back a deleted or edited Endpoints within its 10s round, and writes nothing when all is as it should be', async () => {
    t = await newTestServer();
    const before = await t.json('GET', ENDPOINTS);
    expect(before.body.subsets[0].addresses).toEqual([{ ip: '172.18.0.1' }]);
    t.clock.advance(10_000);
    await settle();
    expect((await t.json('GET', ENDPOINTS)).body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);

    expect((await t.json('DELETE', ENDPOINTS)).status).toBe(200);
    expect((await t.json('DELETE', SLICE)).status).toBe(200);
    t.clock.advance(10_000);
    await settle();
    const back = await t.json('GET', ENDPOINTS);
    expect(back.status).toBe(200);
    expect(Number(back.body.metadata.resourceVersion)).toBeGreaterThan(Number(before.body.metadata.resourceVersion));
    expect((await t.json('GET', SLICE)).body.endpoints).toEqual([{ addresses: ['172.18.0.1'], conditions: { ready: true } }]);

    const edited = await t.json('PATCH', ENDPOINTS, { headers: { 'content-type': 'application/merge-patch+json' }, body: { subsets: [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ name: 'https', port: 6443 }] }] } });
    expect(edited.status).toBe(200);
    t.clock.advance(10_000);
    await settle();
    expect((await t.json('GET', ENDPOINTS)).body.subsets[0].addresses).toEqual([{ ip: '10.9.9.9' }, { ip: '172.18.0.1' }]);
  });

  it('several servers over one store list each other; one that shuts down takes its address out', async () => {
    const storage = createMemoryStorage();
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    // Each server closes its own connection to the store, not the store.
    const connection = () => new Proxy(storage, { get: (target, p) => (p === 'close' ? async () => {} : (Reflect.get(target, p, target) as unknown)) });
    const start = (advertiseAddress: string) => createApiServer({ storage: connection(), clock, random: seededRandom(7), controllers: rawApiControllers, advertiseAddress });
    const a = start('10.0.0.12');
    await a.ready;
    const b = start('10.0.0.11');
    await b.ready;
    const get = async (path: string) => (await a.handle(new Request(`http://127.0.0.1${path}`))).json() as Promise<Record<string, any>>;
    expect((await get(ENDPOINTS)).subsets[0].addresses).toEqual([{ ip: '10.0.0.11' }, { ip: '10.0.0.12' }]);
    expect((await get(SLICE)).endpoints.map((e: { addresses: string[] }) => e.addresses[0])).toEqual(['10.0.0.11', '10.0.0.12']);
    await b.close();
    expect((await get(ENDPOINTS)).subsets[0].addresses).toEqual([{ ip: '10.0.0.12' }]);
    expect((await get(SLICE)).endpoints).toEqual([{ addresses: ['10.0.0.12'], conditions: { ready: true } }]);
    await a.close();
  });
});

describe('an advertise address the Endpoints may not hold', () => {
  it('a loopback one leaves them unwritten and the server starts and serves', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(' '));
    try {
      t = await newTestServer({ advertiseAddress: '127.0.0.1' });
    } finally {
      console.error = original;
    }
    expect(errors).toEqual([`kubesim: the kubernetes Service's endpoints: Endpoints "kubernetes" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`]);
    expect((await t.json('GET', ENDPOINTS)).status).toBe(404);
    expect((await t.json('GET', '/api/v1/namespaces/default/services/kubernetes')).status).toBe(200);
  });
});

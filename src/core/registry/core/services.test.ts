import { beforeEach, describe, expect, it } from 'vitest';
import { createApiServer } from '../../apiserver';
import { createMemoryStorage } from '../../storage/memory';
import { newTestServer, type TestServer } from '../../testing/client';
import { FakeClock, seededRandom } from '../../util/clock';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const SVC = '/api/v1/namespaces/default/services';
const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const create = (name: string, spec: Record<string, unknown>) => t.json('POST', SVC, { body: svc(name, spec) });

describe('Service ClusterIP allocation', () => {
  it('the kubernetes Service in default has the first address of 10.96.0.0/12', async () => {
    const r = await t.json('GET', `${SVC}/kubernetes`);
    expect(r.status).toBe(200);
    expect(r.body.spec).toMatchObject({
      clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], type: 'ClusterIP', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }], sessionAffinity: 'None', internalTrafficPolicy: 'Cluster',
    });
    expect(r.body.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
  });

  it('a ClusterIP Service gets a free address in the range, with kube\'s defaults', async () => {
    const r = await create('web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    expect(r.status).toBe(201);
    const spec = r.body.spec;
    expect(spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] });
    expect(r.body.status).toEqual({ loadBalancer: {} });
  });

  it('many creates, concurrent ones included, never share an address', async () => {
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => create(`s${i}`, { ports: [{ port: 80 }] })));
    const ips = rs.map((r) => r.body.spec.clusterIP);
    expect(rs.every((r) => r.status === 201)).toBe(true);
    expect(new Set([...ips, '10.96.0.1']).size).toBe(41);
  });

  it('a requested address is honoured; taken or out of range is refused with kube\'s message', async () => {
    const ok = await create('a', { clusterIP: '10.96.0.10', ports: [{ port: 80 }] });
    expect(ok.status).toBe(201);
    expect(ok.body.spec.clusterIPs).toEqual(['10.96.0.10']);
    const taken = await create('b', { clusterIP: '10.96.0.10', ports: [{ port: 80 }] });
    expect(taken.status).toBe(422);
    expect(taken.body.message).toBe('Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated');
    const out = await create('c', { clusterIP: '192.168.0.1', ports: [{ port: 80 }] });
    expect(out.status).toBe(422);
    expect(out.body.details.causes).toEqual([{
      reason: 'FieldValueInvalid', field: 'spec.clusterIPs',
      message: 'Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    }]);
    const kube = await create('d', { clusterIP: '10.96.0.1', ports: [{ port: 80 }] });
    expect(kube.body.message).toContain('failed to allocate IP 10.96.0.1: provided IP is already allocated');
  });

  it('the address is released on delete (and on a failed create), so it can be asked for again', async () => {
    await create('a', { clusterIP: '10.96.0.20', ports: [{ port: 80 }] });
    expect((await t.json('DELETE', `${SVC}/a`)).status).toBe(200);
    expect((await create('b', { clusterIP: '10.96.0.20', ports: [{ port: 80 }] })).status).toBe(201);
    // Invalid after allocation (port 70000): the address goes back.
    expect((await create('c', { clusterIP: '10.96.0.21', ports: [{ port: 70000 }] })).status).toBe(422);
    expect((await create('d', { clusterIP: '10.96.0.21', ports: [{ port: 80 }] })).status).toBe(201);
    // A dry run allocates nothing.
    expect((await t.json('POST', `${SVC}?dryRun=All`, { body: svc('e', { clusterIP: '10.96.0.22', ports: [{ port: 80 }] }) })).status).toBe(201);
    expect((await create('e', { clusterIP: '10.96.0.22', ports: [{ port: 80 }] })).status).toBe(201);
  });

  it('headless Services get None and no address; ExternalName gets none at all', async () => {
    const h = await create('h', { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] });
    expect(h.status).toBe(201);
    expect(h.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    const hs = await create('hs', { clusterIP: 'None' });
    expect(hs.status).toBe(201);
    expect(hs.body.spec).toMatchObject({ clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    const e = await create('e', { type: 'ExternalName', externalName: 'example.com' });
    expect(e.status).toBe(201);
    expect(e.body.spec.clusterIP).toBeUndefined();
    expect(e.body.spec.ipFamilies).toBeUndefined();
  });

  it('a replace without clusterIP keeps it; changing it is refused as kube does', async () => {
    const c = (await create('a', { ports: [{ port: 80 }] })).body;
    const ip = c.spec.clusterIP;
    const sent = structuredClone(c);
    delete sent.spec.clusterIP;
    delete sent.spec.clusterIPs;
    sent.spec.ports[0].port = 81;
    const r = await t.json('PUT', `${SVC}/a`, { body: sent });
    expect(r.status).toBe(200);
    expect(r.body.spec.clusterIPs).toEqual([ip]);
    r.body.spec.clusterIP = '10.96.0.99';
    r.body.spec.clusterIPs = ['10.96.0.99'];
    const bad = await t.json('PUT', `${SVC}/a`, { body: r.body });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change once set');
  });

  it('changing to ExternalName releases the address; back to ClusterIP allocates one', async () => {
    const c = (await create('a', { clusterIP: '10.96.0.30', ports: [{ port: 80 }] })).body;
    c.spec.type = 'ExternalName';
    c.spec.externalName = 'example.com';
    const e = await t.json('PUT', `${SVC}/a`, { body: c });
    expect(e.status).toBe(200);
    expect(e.body.spec.clusterIP).toBeUndefined();
    expect((await create('b', { clusterIP: '10.96.0.30', ports: [{ port: 80 }] })).status).toBe(201);
    e.body.spec.type = 'ClusterIP';
    delete e.body.spec.externalName;
    const back = await t.json('PUT', `${SVC}/a`, { body: e.body });
    expect(back.status).toBe(200);
    expect(back.body.spec.clusterIP).toMatch(/^10\./);
  });
});

describe('Service NodePort allocation', () => {
  it('NodePort and LoadBalancer Services get node ports in 30000-32767; ports sharing a number share one', async () => {
    const n = await create('n', { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }, { name: 'web', port: 80 }] });
    expect(n.status).toBe(201);
    const [a, b, c] = n.body.spec.ports.map((p: { nodePort: number }) => p.nodePort);
    expect(a).toBeGreaterThanOrEqual(30000);
    expect(a).toBeLessThanOrEqual(32767);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(n.body.spec.externalTrafficPolicy).toBe('Cluster');
    const lb = await create('lb', { type: 'LoadBalancer', ports: [{ port: 443 }] });
    expect(lb.status).toBe(201);
    expect(lb.body.spec.allocateLoadBalancerNodePorts).toBe(true);
    expect(lb.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
  });

  it('a requested node port is honoured; taken or out of range is refused with kube\'s message', async () => {
    expect((await create('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })).body.spec.ports[0].nodePort).toBe(30080);
    const taken = await create('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
    expect(taken.status).toBe(422);
    expect(taken.body.message).toBe('Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    const out = await create('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] });
    expect(out.body.message).toBe('Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767');
  });

  it('node ports are released on delete and when the type changes to ClusterIP', async () => {
    await create('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30081 }] });
    await t.json('DELETE', `${SVC}/a`);
    const b = (await create('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30081 }] })).body;
    expect(b.spec.ports[0].nodePort).toBe(30081);
    b.spec.type = 'ClusterIP';
    const r = await t.json('PUT', `${SVC}/b`, { body: b });
    expect(r.status).toBe(200);
    expect(r.body.spec.ports[0].nodePort).toBeUndefined();
    expect(r.body.spec.externalTrafficPolicy).toBeUndefined();
    expect((await create('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 30081 }] })).status).toBe(201);
  });

  it('changing a ClusterIP Service to NodePort (kubectl edit) allocates node ports and keeps the address', async () => {
    const c = (await create('a', { ports: [{ port: 80 }] })).body;
    c.spec.type = 'NodePort';
    const r = await t.json('PUT', `${SVC}/a`, { body: c });
    expect(r.status).toBe(200);
    expect(r.body.spec.clusterIP).toBe(c.spec.clusterIP);
    expect(r.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(r.body.spec.externalTrafficPolicy).toBe('Cluster');
    const p = await t.json('PATCH', `${SVC}/a`, { body: JSON.stringify({ spec: { type: 'ClusterIP' } }), headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(p.status).toBe(200);
    expect(p.body.spec.ports[0].nodePort).toBeUndefined();
  });

  it('a replace of a NodePort Service without nodePort keeps the allocated one', async () => {
    const c = (await create('a', { type: 'NodePort', ports: [{ name: 'web', port: 80 }] })).body;
    const np = c.spec.ports[0].nodePort;
    delete c.spec.ports[0].nodePort;
    const r = await t.json('PUT', `${SVC}/a`, { body: c });
    expect(r.body.spec.ports[0].nodePort).toBe(np);
  });

  it('LoadBalancer with externalTrafficPolicy Local gets a health-check node port', async () => {
    const r = await create('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] });
    expect(r.status).toBe(201);
    expect(r.body.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
  });

  it('--service-node-port-range and --service-cluster-ip-range are honoured', async () => {
    const s = await newTestServer({ serviceClusterIPRange: '172.20.0.0/16', serviceNodePortRange: '31000-31005' });
    expect((await s.json('GET', `${SVC}/kubernetes`)).body.spec.clusterIP).toBe('172.20.0.1');
    const r = await s.json('POST', SVC, { body: svc('n', { type: 'NodePort', ports: [{ port: 80 }] }) });
    expect(r.body.spec.clusterIP).toMatch(/^172\.20\./);
    expect(r.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(31000);
    expect(r.body.spec.ports[0].nodePort).toBeLessThanOrEqual(31005);
    const out = await s.json('POST', SVC, { body: svc('m', { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] }) });
    expect(out.body.details.causes[0].message).toBe('Invalid value: 30000: provided port is not in the valid range. The range of valid ports is 31000-31005');
  });
});

describe('allocations across restarts', () => {
  it('API-OTHER-003: a restarted server over the same storage does not hand out addresses or ports in use', async () => {
    const storage = createMemoryStorage();
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const first = createApiServer({ storage, clock, random: seededRandom(7) });
    await first.ready;
    const post = (server: typeof first, body: unknown) =>
      server.handle(new Request(`http://127.0.0.1${SVC}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).then(async (r) => ({ status: r.status, body: await r.json() }));
    const a = await post(first, svc('a', { type: 'NodePort', clusterIP: '10.96.0.40', ports: [{ port: 80, nodePort: 30090 }] }));
    expect(a.status).toBe(201);
    // A second server over the same storage is what a restart looks like (closing the first would close the storage).
    const second = createApiServer({ storage, clock, random: seededRandom(7) });
    await second.ready;
    const ip = await post(second, svc('b', { clusterIP: '10.96.0.40', ports: [{ port: 80 }] }));
    expect(ip.body.message).toContain('provided IP is already allocated');
    const port = await post(second, svc('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 30090 }] }));
    expect(port.body.message).toContain('provided port is already allocated');
    const kube = await post(second, svc('d', { clusterIP: '10.96.0.1', ports: [{ port: 80 }] }));
    expect(kube.body.message).toContain('provided IP is already allocated');
    await second.close();
    await first.close().catch(() => undefined);
  });
});

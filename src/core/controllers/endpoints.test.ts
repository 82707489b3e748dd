/** The Endpoints controller, driven through HTTP as kubectl get endpoints and kubectl describe svc read it. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

async function server(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*', '-deployment-controller', '-replicaset-controller', '-endpointslice-controller'] });
  return t;
}

const container = (ports: unknown[] = []) => ({ name: 'c', image: 'nginx', ...(ports.length ? { ports } : {}) });

async function pod(s: TestServer, name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}): Promise<any> {
  const r = await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [container()], ...spec } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** What a kubelet reports: an IP, Running, Ready or not. */
async function report(s: TestServer, name: string, ip: string, ready: boolean, at = '2026-01-01T00:00:05Z'): Promise<void> {
  const status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: at }] };
  const r = await s.json('PATCH', `${ns}/pods/${name}/status`, { body: { status }, headers: mergePatch });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function service(s: TestServer, name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<any> {
  const r = await s.json('POST', `${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(labels ? { labels } : {}) }, spec } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const getEndpoints = async (s: TestServer, name: string): Promise<any> => {
  const r = await s.json('GET', `${ns}/endpoints/${name}`);
  return r.status === 200 ? r.body : undefined;
};
const target = (p: any) => ({ kind: 'Pod', namespace: 'default', name: p.metadata.name, uid: p.metadata.uid });

describe('endpoints-controller', () => {
  it('lists the selected pods with an IP: ready ones under addresses, the others under notReadyAddresses', async () => {
    const s = await server();
    const a = await pod(s, 'a', { app: 'web' });
    const b = await pod(s, 'b', { app: 'web' });
    await pod(s, 'other', { app: 'db' });
    const svc = await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }, { team: 'blue' });
    // No pod has an IP yet: an Endpoints without subsets, carrying the Service's labels and its creation as the trigger time.
    const empty = await eventually(() => getEndpoints(s, 'web'), (e) => !!e, 'the Endpoints');
    expect(empty).toMatchObject({
      kind: 'Endpoints',
      apiVersion: 'v1',
      metadata: { name: 'web', namespace: 'default', labels: { team: 'blue' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': svc.metadata.creationTimestamp } },
    });
    expect(empty.subsets).toBeUndefined();
    await report(s, 'a', '10.244.0.5', true);
    await report(s, 'b', '10.244.0.4', false);
    const filled = await eventually(() => getEndpoints(s, 'web'), (e) => e?.subsets?.[0]?.notReadyAddresses?.length === 1 && e.subsets[0].addresses?.length === 1, 'both pods');
    expect(filled.subsets).toEqual([{
      addresses: [{ ip: '10.244.0.5', targetRef: target(a) }],
      notReadyAddresses: [{ ip: '10.244.0.4', targetRef: target(b) }],
      ports: [{ port: 8080, protocol: 'TCP' }],
    }]);
    expect(filled.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']).toBe('2026-01-01T00:00:05Z');
    // b turns ready: both addresses, sorted by IP.
    await report(s, 'b', '10.244.0.4', true, '2026-01-01T00:00:09Z');
    const ready = await eventually(() => getEndpoints(s, 'web'), (e) => e?.subsets?.[0]?.addresses?.length === 2, 'b ready');
    expect(ready.subsets).toEqual([{ addresses: [{ ip: '10.244.0.4', targetRef: target(b) }, { ip: '10.244.0.5', targetRef: target(a) }], ports: [{ port: 8080, protocol: 'TCP' }] }]);
    expect(ready.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']).toBe('2026-01-01T00:00:09Z');
    // A pod whose labels stop matching leaves.
    await s.json('PATCH', `${ns}/pods/a`, { body: { metadata: { labels: { app: 'gone' } } }, headers: mergePatch });
    const left = await eventually(() => getEndpoints(s, 'web'), (e) => e?.subsets?.[0]?.addresses?.length === 1, 'a relabelled');
    expect(left.subsets[0].addresses).toEqual([{ ip: '10.244.0.4', targetRef: target(b) }]);
  });

  it('resolves a named targetPort through each pod\'s container ports, and packs pods by the ports they offer', async () => {
    const s = await server();
    const spec = (ports: unknown[]) => ({ containers: [container(ports)] });
    const a = await pod(s, 'a', { app: 'api' }, spec([{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }]));
    const b = await pod(s, 'b', { app: 'api' }, spec([{ name: 'http', containerPort: 8081 }]));
    const c = await pod(s, 'c', { app: 'api' }, spec([{ name: 'http', containerPort: 8080, protocol: 'UDP' }]));
    await service(s, 'api', { selector: { app: 'api' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }, { name: 'metrics', port: 9090, targetPort: 'metrics', appProtocol: 'http' }] });
    await report(s, 'a', '10.0.0.1', true);
    await report(s, 'b', '10.0.0.2', true);
    await report(s, 'c', '10.0.0.3', true);
    const eps = await eventually(() => getEndpoints(s, 'api'), (e) => e?.subsets?.length === 2, 'two subsets');
    // c's http port is UDP: the TCP service port finds nothing on it, so c is in no subset.
    expect(eps.subsets).toEqual([
      { addresses: [{ ip: '10.0.0.1', targetRef: target(a) }], ports: [{ name: 'metrics', port: 9090, protocol: 'TCP', appProtocol: 'http' }, { name: 'web', port: 8080, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.2', targetRef: target(b) }], ports: [{ name: 'web', port: 8081, protocol: 'TCP' }] },
    ]);
    expect(JSON.stringify(eps)).not.toContain(c.metadata.uid);
  });

  it('a headless Service gets the headless label, hostnames of pods naming it as subdomain, and addresses without ports', async () => {
    const s = await server();
    const a = await pod(s, 'a', { app: 'db' }, { hostname: 'db-0', subdomain: 'db' });
    const b = await pod(s, 'b', { app: 'db' }, { hostname: 'db-1', subdomain: 'other' });
    await service(s, 'db', { clusterIP: 'None', selector: { app: 'db' } });
    await report(s, 'a', '10.0.1.1', true);
    await report(s, 'b', '10.0.1.2', true);
    const eps = await eventually(() => getEndpoints(s, 'db'), (e) => e?.subsets?.[0]?.addresses?.length === 2, 'the headless Endpoints');
    expect(eps.metadata.labels).toEqual({ 'service.kubernetes.io/headless': '' });
    expect(eps.subsets).toEqual([{ addresses: [{ ip: '10.0.1.1', hostname: 'db-0', targetRef: target(a) }, { ip: '10.0.1.2', targetRef: target(b) }] }]);
  });

  it('publishNotReadyAddresses lists pods that are not ready as addresses; terminating and finished pods leave', async () => {
    const s = await server();
    const a = await pod(s, 'a', { app: 'peer' });
    const b = await pod(s, 'b', { app: 'peer' });
    await pod(s, 'c', { app: 'peer' });
    await service(s, 'peer', { selector: { app: 'peer' }, ports: [{ port: 7000 }], publishNotReadyAddresses: true });
    await service(s, 'peer-ready', { selector: { app: 'peer' }, ports: [{ port: 7000 }] });
    await report(s, 'a', '10.0.2.1', false);
    await report(s, 'b', '10.0.2.2', true);
    await report(s, 'c', '10.0.2.3', true);
    const all = await eventually(() => getEndpoints(s, 'peer'), (e) => e?.subsets?.[0]?.addresses?.length === 3, 'all three published');
    expect(all.subsets[0].addresses.map((x: any) => x.targetRef.name)).toEqual(['a', 'b', 'c']);
    await eventually(() => getEndpoints(s, 'peer-ready'), (e) => e?.subsets?.[0]?.addresses?.length === 2, 'two ready');
    // c finishes; b is being deleted (a finalizer holds it).
    await s.json('PATCH', `${ns}/pods/c/status`, { body: { status: { phase: 'Succeeded' } }, headers: mergePatch });
    await s.json('PATCH', `${ns}/pods/b`, { body: { metadata: { finalizers: ['example.com/hold'] } }, headers: mergePatch });
    expect((await s.json('DELETE', `${ns}/pods/b`, { body: { gracePeriodSeconds: 0 } })).status).toBe(200);
    const ready = await eventually(() => getEndpoints(s, 'peer-ready'), (e) => e?.subsets?.[0]?.addresses === undefined, 'no ready pod left');
    expect(ready.subsets).toEqual([{ notReadyAddresses: [{ ip: '10.0.2.1', targetRef: target(a) }], ports: [{ port: 7000, protocol: 'TCP' }] }]);
    // With publishNotReadyAddresses a terminating pod stays, as kube keeps it.
    const published = await eventually(() => getEndpoints(s, 'peer'), (e) => e?.subsets?.[0]?.addresses?.length === 2, 'c gone from peer');
    expect(published.subsets[0].addresses).toEqual([{ ip: '10.0.2.1', targetRef: target(a) }, { ip: '10.0.2.2', targetRef: target(b) }]);
  });

  it('writes nothing when nothing changed: the resourceVersion stays across unrelated pod and Service changes', async () => {
    const s = await server();
    await pod(s, 'a', { app: 'web' });
    await pod(s, 'b', { app: 'web' });
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    await report(s, 'a', '10.0.0.1', true);
    const first = await eventually(() => getEndpoints(s, 'web'), (e) => e?.subsets?.[0]?.addresses?.length === 1, 'a listed');
    const w = await s.watch(`${ns}/endpoints?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    // A pod's annotation, a Service's annotation: the Service is synced again (the latter) but nothing is written.
    await s.json('PATCH', `${ns}/pods/a`, { body: { metadata: { annotations: { note: 'x' } } }, headers: mergePatch });
    await s.json('PATCH', `${ns}/services/web`, { body: { metadata: { annotations: { note: 'y' } } }, headers: mergePatch });
    // Then a change that counts: the only event the watch sees is its own.
    await report(s, 'b', '10.0.0.2', true);
    const [event] = await w.take(1);
    expect(event!.type).toBe('MODIFIED');
    expect(event!.object.subsets[0].addresses.map((x: any) => x.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
    const rv = event!.object.metadata.resourceVersion;
    await s.json('PATCH', `${ns}/services/web`, { body: { metadata: { annotations: { note: 'z' } } }, headers: mergePatch });
    // A Service label does change the Endpoints: the watch's next event is that one.
    await s.json('PATCH', `${ns}/services/web`, { body: { metadata: { labels: { tier: 'front' } } }, headers: mergePatch });
    const [labelled] = await w.take(1);
    expect(labelled!.object.metadata.labels).toEqual({ tier: 'front' });
    expect(Number(labelled!.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    w.close();
  });

  it('deletes the Endpoints with its Service; leaves selectorless and ExternalName Services\' Endpoints alone', async () => {
    const s = await server();
    await service(s, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    await eventually(() => getEndpoints(s, 'web'), (e) => !!e, 'the Endpoints');
    expect((await s.json('DELETE', `${ns}/services/web`)).status).toBe(200);
    await eventually(() => s.json('GET', `${ns}/endpoints/web`), (r) => r.status === 404, 'the Endpoints deleted');
    // A selectorless Service's Endpoints are the user's.
    await service(s, 'external', { ports: [{ port: 443 }] });
    await service(s, 'named', { type: 'ExternalName', externalName: 'example.com', selector: { app: 'web' } });
    const manual = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'external' }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443 }] }] };
    expect((await s.json('POST', `${ns}/endpoints`, { body: manual })).status).toBe(201);
    await service(s, 'marker', { selector: { app: 'marker' }, ports: [{ port: 80 }] });
    await eventually(() => getEndpoints(s, 'marker'), (e) => !!e, 'a later Service\'s Endpoints');
    // As the user wrote them, with the scheme's default protocol.
    expect((await getEndpoints(s, 'external')).subsets).toEqual([{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443, protocol: 'TCP' }] }]);
    expect(await getEndpoints(s, 'named')).toBeUndefined();
    // Deleted by hand, a selector Service's Endpoints comes back.
    expect((await s.json('DELETE', `${ns}/endpoints/marker`)).status).toBe(200);
    await eventually(() => getEndpoints(s, 'marker'), (e) => !!e, 'the Endpoints made again');
  });

  it('records FailedToCreateEndpoint when the Endpoints is refused', async () => {
    const s = await server();
    await pod(s, 'a', { app: 'loop' });
    await report(s, 'a', '127.0.0.1', true);
    await service(s, 'loop', { selector: { app: 'loop' }, ports: [{ port: 80 }] });
    const events = await eventually(async () => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dloop`)).body.items as any[], (l) => l.length > 0, 'the event');
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'FailedToCreateEndpoint',
      source: { component: 'endpoint-controller' },
      involvedObject: { kind: 'Endpoints', namespace: 'default', name: 'loop', apiVersion: 'v1' },
    });
    expect(events[0].message).toMatch(/^Failed to create endpoint for service default\/loop: Endpoints "loop" is invalid: subsets\[0\]\.addresses\[0\]\.ip: Invalid value: "127\.0\.0\.1": may not be in the loopback range/);
  });

  it('past 1000 addresses keeps the ready ones first and says so in endpoints.kubernetes.io/over-capacity', async () => {
    // Only what this needs: a thousand pods go faster past fewer controllers.
    const s = (t = await newTestServer({ controllers: ['serviceaccount-controller', 'endpoints-controller'] }));
    // 990 ready and 20 not ready, all reported before the Service exists.
    for (let i = 0; i < 1010; i++) {
      const name = `p${i}`;
      await pod(s, name, { app: 'big' });
      await report(s, name, `10.1.${Math.floor(i / 250)}.${i % 250}`, i < 990);
    }
    await service(s, 'big', { selector: { app: 'big' }, ports: [{ port: 80 }] });
    const eps = await eventually(() => getEndpoints(s, 'big'), (e) => !!e?.subsets, 'the truncated Endpoints');
    expect(eps.metadata.annotations['endpoints.kubernetes.io/over-capacity']).toBe('truncated');
    expect(eps.subsets).toHaveLength(1);
    expect(eps.subsets[0].addresses).toHaveLength(990);
    // The not-ready ones share what is left: 10 of 20, in address order.
    expect(eps.subsets[0].notReadyAddresses.map((a: any) => a.targetRef.name)).toEqual(['p990', 'p991', 'p992', 'p993', 'p994', 'p995', 'p996', 'p997', 'p998', 'p999']);
    // Back under the cap, the annotation goes.
    for (let i = 990; i < 1000; i++) expect((await s.json('DELETE', `${ns}/pods/p${i}`)).status).toBe(200);
    const under = await eventually(() => getEndpoints(s, 'big'), (e) => e?.subsets?.[0]?.notReadyAddresses?.length === 10 && !e.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'], 'back under capacity');
    expect(under.subsets[0].addresses).toHaveLength(990);
  }, 60_000);
});

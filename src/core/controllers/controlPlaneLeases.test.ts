import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { apiServerId, identityLeaseExpired } from './apiserverIdentity';

const leasesPath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
type Lease = { metadata: { name: string; labels?: Record<string, string>; resourceVersion?: string }; spec: Record<string, unknown> };

describe('control-plane Leases in kube-system', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });

  const lease = async (name: string) => (await t!.json<Lease>('GET', `${leasesPath}/${name}`)).body;
  const leaseNames = async () => (await t!.json<{ items: Lease[] }>('GET', leasesPath)).body.items.map((l) => l.metadata.name);

  it('names the identity Lease apiserver-<base32 of sha256 over the length-prefixed hostname and "kube-apiserver">', async () => {
    // Values computed independently from the upstream recipe.
    expect(await apiServerId('kubesim-control-plane')).toBe('apiserver-zkmahadlakwfd22kkriti7qzhq');
    expect(await apiServerId('kind-control-plane')).toBe('apiserver-c7uylvfxlbqccnk6myfkwetzze');
  });

  it("holds kube-apiserver's identity Lease: labels, holder <id>_<uuid>, an hour's duration, renewed every 10s", async () => {
    t = await newTestServer({ hostname: 'kind-control-plane' });
    const id = 'apiserver-c7uylvfxlbqccnk6myfkwetzze';
    const first = await lease(id);
    expect(first.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'kind-control-plane' });
    expect(first.spec).toEqual({ holderIdentity: expect.stringMatching(new RegExp(`^${id}_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)), leaseDurationSeconds: 3600, renewTime: '2026-01-01T00:00:00.000000Z' });

    t.clock.advance(10_000);
    const renewed = await eventually(() => lease(id), (l) => l.spec['renewTime'] === '2026-01-01T00:00:10.000000Z', 'the identity lease renewed');
    expect(renewed.spec['holderIdentity']).toBe(first.spec['holderIdentity']);
    // Nothing renews it before the next 10 seconds are up.
    t.clock.advance(5_000);
    await new Promise((r) => setTimeout(r, 20));
    expect((await lease(id)).metadata.resourceVersion).toBe(renewed.metadata.resourceVersion);
  });

  it("deletes other servers' identity Leases once their renewal expired, every hour, and keeps the rest", async () => {
    t = await newTestServer();
    const identity = { 'apiserver.kubernetes.io/identity': 'kube-apiserver' };
    const put = (name: string, labels: Record<string, string> | undefined, renewTime: string) =>
      t!.json('POST', leasesPath, { body: { metadata: { name, labels }, spec: { holderIdentity: `${name}_x`, leaseDurationSeconds: 3600, renewTime } } });
    // Renewed last 30 minutes before start: expired 30 minutes after it. Another renewed at start: expired after an hour.
    await put('apiserver-gone', identity, '2025-12-31T23:30:00.000000Z');
    await put('apiserver-alive', identity, '2026-01-01T00:00:00.000000Z');
    await put('apiserver-unlabelled', undefined, '2025-12-31T00:00:00.000000Z');

    t.clock.advance(3600_000);
    await eventually(leaseNames, (names) => !names.includes('apiserver-gone'), 'the expired identity lease deleted');
    const names = await leaseNames();
    // apiserver-alive expires only strictly after renewTime + duration; the unlabelled one is not an identity Lease.
    expect(names).toEqual(expect.arrayContaining(['apiserver-alive', 'apiserver-unlabelled', 'apiserver-zkmahadlakwfd22kkriti7qzhq']));
  });

  it('counts a Lease without renewTime or duration as expired, and one as expired only past renewTime + duration', () => {
    const now = new Date('2026-01-01T01:00:00Z');
    expect(identityLeaseExpired({ metadata: {}, spec: {} } as never, now)).toBe(true);
    expect(identityLeaseExpired({ metadata: {}, spec: { renewTime: '2026-01-01T00:00:00.000000Z', leaseDurationSeconds: 3600 } } as never, now)).toBe(false);
    expect(identityLeaseExpired({ metadata: {}, spec: { renewTime: '2025-12-31T23:59:59.000000Z', leaseDurationSeconds: 3600 } } as never, now)).toBe(true);
  });

  it('kube-controller-manager holds its Lease alone, renews it every 2s and records the LeaderElection event', async () => {
    t = await newTestServer();
    const kcm = await eventually(() => lease('kube-controller-manager'), (l) => l.spec !== undefined, 'the kube-controller-manager lease');
    expect(kcm.spec).toEqual({
      holderIdentity: expect.stringMatching(/^kubesim-control-plane_[0-9a-f-]{36}$/),
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    const events = await eventually(
      async () => (await t!.json<{ items: Record<string, any>[] }>('GET', '/api/v1/namespaces/kube-system/events')).body.items.filter((e) => e['reason'] === 'LeaderElection'),
      (items) => items.length > 0,
      'the LeaderElection event',
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'Normal',
      message: `${kcm.spec['holderIdentity']} became leader`,
      source: { component: 'kube-controller-manager' },
      involvedObject: { kind: 'Lease', namespace: 'kube-system', name: 'kube-controller-manager', apiVersion: 'coordination.k8s.io/v1' },
    });
    t.clock.advance(2000);
    await eventually(() => lease('kube-controller-manager'), (l) => l.spec['renewTime'] === '2026-01-01T00:00:02.000000Z', 'the lease renewed');
  });

  it('kube-scheduler holds kube-system/kube-scheduler while the simulated nodes run; none without them', async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const scheduler = await eventually(() => lease('kube-scheduler'), (l) => l.spec !== undefined, 'the kube-scheduler lease');
    expect(scheduler.spec).toMatchObject({ holderIdentity: expect.stringMatching(/^kubesim-control-plane_/), leaseDurationSeconds: 15 });
    await t.server.close();
    t = await newTestServer();
    await eventually(leaseNames, (names) => names.includes('kube-controller-manager'), 'the kube-controller-manager lease');
    expect(await leaseNames()).not.toContain('kube-scheduler');
  });

  it('--leader-elect=false: neither kube-controller-manager nor kube-scheduler holds a Lease', async () => {
    t = await newTestServer({ leaderElect: false, simulatedNodes: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await leaseNames()).toEqual(['apiserver-zkmahadlakwfd22kkriti7qzhq']);
  });
});

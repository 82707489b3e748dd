/** /livez, /readyz and /healthz through handle(): named checks, verbose, exclude, single checks, failures, grace and drain. */
import { describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../apiserver';
import { createMemoryStorage } from '../storage/memory';
import type { Storage } from '../storage/interface';
import { newTestServer } from '../testing/client';
import { FakeClock, seededRandom } from '../util/clock';

const get = (server: ApiServer, path: string) => server.handle(new Request(`http://127.0.0.1:8080${path}`));

/** A backend whose reads fail while `down` is set, and whose creates wait for `release` (a slow bootstrap). */
function flakyStorage() {
  const base = createMemoryStorage();
  const state = { down: false, hold: false, release: () => {} };
  let gate = Promise.resolve();
  const storage: Storage = {
    ...base,
    currentRevision: () => (state.down ? Promise.reject(new Error('context deadline exceeded')) : base.currentRevision()),
    compactedRevision: () => base.compactedRevision(),
    get: (k, r) => base.get(k, r),
    range: (p, o) => base.range(p, o),
    create: async (k, v) => {
      await gate;
      return base.create(k, v);
    },
    update: (k, v, r) => base.update(k, v, r),
    delete: (k, r) => base.delete(k, r),
    watch: (p, a, l) => base.watch(p, a, l),
    compact: (r) => base.compact(r),
    close: () => base.close(),
  };
  const holdCreates = () => {
    gate = new Promise<void>((resolve) => {
      state.release = resolve;
    });
  };
  return { storage, state, holdCreates };
}

const livezChecks = [
  'ping', 'log', 'etcd',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/start-system-namespaces-controller',
  'poststarthook/bootstrap-controller',
  'poststarthook/start-kube-aggregator-informers',
  'poststarthook/apiservice-status-local-available-controller',
  'poststarthook/apiservice-status-remote-available-controller',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/kube-apiserver-autoregistration',
  'autoregister-completion',
];

describe('health endpoints', () => {
  it('[AC-HEALTH-006][AC-HEALTH-007] /livez?verbose lists the checks in order and ends with "livez check passed"', async () => {
    const t = await newTestServer();
    const r = await t.request('GET', '/livez?verbose');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await r.text()).toBe(`${livezChecks.map((c) => `[+]${c} ok\n`).join('')}livez check passed\n`);
  });

  it('[AC-HEALTH-006] /readyz adds etcd-readiness, informer-sync and shutdown (last); /healthz lists the livez checks', async () => {
    const t = await newTestServer();
    const ready = (await (await t.request('GET', '/readyz?verbose')).text()).split('\n');
    expect(ready.slice(0, 5)).toEqual(['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok']);
    expect(ready.slice(-3)).toEqual(['[+]shutdown ok', 'readyz check passed', '']);
    const healthz = await (await t.request('GET', '/healthz?verbose')).text();
    expect(healthz).toBe(`${livezChecks.map((c) => `[+]${c} ok\n`).join('')}healthz check passed\n`);
  });

  it('rbac/bootstrap-roles is a post-start hook when the default RBAC policy is reconciled', async () => {
    const t = await newTestServer({ rbacBootstrap: true });
    expect(await (await t.request('GET', '/livez?verbose')).text()).toContain('[+]poststarthook/rbac/bootstrap-roles ok\n');
    expect((await t.request('GET', '/readyz/poststarthook/rbac/bootstrap-roles')).status).toBe(200);
    const plain = await newTestServer();
    expect(await (await plain.request('GET', '/livez?verbose')).text()).not.toContain('rbac/bootstrap-roles');
  });

  it('[AC-HEALTH-008][AC-HEALTH-009][AC-HEALTH-010] exclude repeats, prints "excluded: ok" and warns about unknown names', async () => {
    const t = await newTestServer();
    const r = await t.request('GET', '/livez?verbose&exclude=etcd&exclude=log&exclude=nope&exclude=bogus');
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).toContain('[+]log excluded: ok\n[+]etcd excluded: ok\n');
    expect(text).toContain('warn: some health checks cannot be excluded: no matches for "bogus", "nope"\nlivez check passed\n');
  });

  it('[AC-HEALTH-012][AC-HEALTH-013] single checks answer ok; unknown names and the bare trailing slash are 404', async () => {
    const t = await newTestServer();
    for (const p of ['/livez/ping', '/readyz/etcd', '/readyz/shutdown', '/healthz/poststarthook/crd-informer-synced', '/livez/poststarthook/bootstrap-controller']) {
      const r = await t.request('GET', p);
      expect([p, r.status, await r.text()]).toEqual([p, 200, 'ok']);
    }
    for (const p of ['/livez/shutdown', '/livez/informer-sync', '/readyz/nope', '/livez/']) {
      const r = await t.request('GET', p);
      expect([p, r.status, await r.text()]).toEqual([p, 404, '404 page not found\n']);
    }
  });

  it('[AC-HEALTH-005][AC-HEALTH-008][AC-ERR-012] an unreachable store fails etcd with 500, names the check and withholds the reason', async () => {
    const { storage, state } = flakyStorage();
    const server = createApiServer({ storage, clock: new FakeClock(), random: seededRandom(1) });
    await server.ready;
    state.down = true;
    const r = await get(server, '/readyz');
    expect(r.status).toBe(500);
    const text = await r.text();
    expect(text).toContain('[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n');
    expect(text.endsWith('[+]shutdown ok\nreadyz check failed\n')).toBe(true);
    // Exclusion skips the failing checks.
    expect((await get(server, '/readyz?exclude=etcd&exclude=etcd-readiness')).status).toBe(200);
    const single = await get(server, '/livez/etcd');
    expect(single.status).toBe(500);
    expect(await single.text()).toBe('internal server error: error getting data from etcd: context deadline exceeded\n');
    state.down = false;
    expect(await (await get(server, '/livez')).text()).toBe('ok');
  });

  it('[AC-HEALTH-016][AC-HEALTH-017] during startup unfinished hooks fail readyz; livez excuses them during --livez-grace-period', async () => {
    const { storage, holdCreates, state } = flakyStorage();
    holdCreates();
    const clock = new FakeClock();
    const server = createApiServer({ storage, clock, random: seededRandom(1), livezGracePeriodMs: 60_000 });
    const readyz = await get(server, '/readyz?verbose');
    expect(readyz.status).toBe(500);
    const text = await readyz.text();
    expect(text).toContain('[-]informer-sync failed: reason withheld\n');
    expect(text).toContain('[-]poststarthook/start-system-namespaces-controller failed: reason withheld\n');
    expect(text).toContain('[+]poststarthook/start-apiserver-admission-initializer ok\n');
    expect((await get(server, '/livez')).status).toBe(200);
    clock.advance(60_000);
    const livez = await get(server, '/livez');
    expect(livez.status).toBe(500);
    expect(await livez.text()).toContain('[-]poststarthook/crd-informer-synced failed: reason withheld\n');
    expect(await (await get(server, '/livez/poststarthook/bootstrap-controller')).text()).toBe('internal server error: not finished\n');
    state.release();
    await server.ready;
    expect((await get(server, '/readyz')).status).toBe(200);
    expect((await get(server, '/livez')).status).toBe(200);
  });

  it('[AC-HEALTH-018] once shutdown starts, readyz fails its shutdown check while livez and the API still serve', async () => {
    const t = await newTestServer();
    t.server.health.startShutdown();
    const r = await t.request('GET', '/readyz?verbose');
    expect(r.status).toBe(500);
    expect((await r.text()).endsWith('[-]shutdown failed: reason withheld\nreadyz check failed\n')).toBe(true);
    expect(await (await t.request('GET', '/readyz/shutdown')).text()).toBe('internal server error: process is shutting down\n');
    expect((await t.request('GET', '/livez')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });
});

/**
 * @kubernetes/client-node 1.x against the core over real HTTP: a Watch and an
 * informer (makeInformer) see add, update and delete; and an informer whose
 * resourceVersion left the watch history gets the in-stream 410, relists,
 * rewatches and ends up with the server's state (no lost delete or add), with
 * no relist loop.
 *
 * The server is the core over the watch cache on a FakeClock, served through
 * the Node host's own adaptor (server/adaptor), so the test can move time past the
 * history window and the watch timeout.
 */
import { CoreV1Api, KubeConfig, makeInformer, Watch, type V1Pod } from '@kubernetes/client-node';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../src/core/apiserver';
import { createHostServer } from '../server/adaptor/listener';
import { createMemoryStorage } from '../src/core/storage/memory';
import { FakeClock } from '../src/core/util/clock';

let api: ApiServer;
let clock: FakeClock;
let server: ReturnType<typeof createHostServer>;
let url: string;
const requests: string[] = [];
let kc: KubeConfig;

beforeAll(async () => {
  clock = new FakeClock(new Date());
  api = createApiServer({ storage: createMemoryStorage(), clock });
  await api.ready;
  server = createHostServer({
    fetch: (request: Request) => {
      const u = new URL(request.url);
      requests.push(`${request.method} ${u.pathname}${u.search}`);
      return api.handle(request);
    },
    hostname: '127.0.0.1',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kubesim', server: url, skipTLSVerify: true }],
    users: [{ name: 'admin' }],
    contexts: [{ name: 'kubesim', cluster: 'kubesim', user: 'admin', namespace: 'default' }],
    currentContext: 'kubesim',
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

const pod = (name: string): V1Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

/** Real-time wait for a condition driven by network I/O (bounded). */
async function until(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('@kubernetes/client-node', () => {
  it('[API-WATCH-034] [API-WATCH-035] [API-WATCH-037] Watch sees ADDED, MODIFIED and DELETED', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'w1' } } });
    const seen: string[] = [];
    let ended = false;
    const list = await core.listNamespacedPod({ namespace: 'w1' });
    const abort = await new Watch(kc).watch(
      '/api/v1/namespaces/w1/pods',
      { resourceVersion: list.metadata?.resourceVersion },
      (phase, obj: V1Pod) => seen.push(`${phase} ${obj.metadata?.name}`),
      () => (ended = true),
    );
    await core.createNamespacedPod({ namespace: 'w1', body: pod('p1') });
    await core.patchNamespacedPod({ namespace: 'w1', name: 'p1', body: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }] });
    await core.deleteNamespacedPod({ namespace: 'w1', name: 'p1' });
    await until(() => seen.length >= 4, 'four events');
    // An unbound pod's delete marks it (deletionTimestamp, grace period 0), then removes it, as kube-apiserver does.
    expect(seen).toEqual(['ADDED p1', 'MODIFIED p1', 'MODIFIED p1', 'DELETED p1']);
    abort.abort();
    await until(() => ended, 'the watch to end');
  });

  it('an informer sees add, update and delete, then recovers from a 410 by relisting without losing changes', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'inf' } } });
    await core.createNamespacedPod({ namespace: 'inf', body: pod('before') });
    const informer = makeInformer(kc, '/api/v1/namespaces/inf/pods', () => core.listNamespacedPod({ namespace: 'inf' }));
    const log: string[] = [];
    informer.on('add', (p) => log.push(`add ${p.metadata?.name}`));
    informer.on('update', (p) => log.push(`update ${p.metadata?.name}`));
    informer.on('delete', (p) => log.push(`delete ${p.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await until(() => log.includes('add before'), 'the initial add');
    const watchesBefore = () => requests.filter((r) => r.startsWith('GET /api/v1/namespaces/inf/pods?') && r.includes('watch=true')).length;
    await until(() => watchesBefore() >= 1, 'the informer watch');

    await core.createNamespacedPod({ namespace: 'inf', body: pod('live') });
    await core.patchNamespacedPod({ namespace: 'inf', name: 'live', body: [{ op: 'add', path: '/metadata/labels', value: { v: '2' } }] });
    await core.deleteNamespacedPod({ namespace: 'inf', name: 'before' });
    await until(() => log.includes('delete before'), 'live events');
    // The unbound pod's delete is an update marking it, then the removal.
    expect(log).toEqual(['add before', 'add live', 'update live', 'update before', 'delete before']);

    // Writes elsewhere move the global revision past what the informer saw.
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'elsewhere' } } });
    const listsBefore = requests.filter((r) => r.startsWith('GET /api/v1/namespaces/inf/pods') && !r.includes('watch=')).length;
    // Past the history window and past the watch's maximum duration: the watch ends cleanly...
    clock.advance(2 * 3600_000);
    // ...and before the informer is back, changes happen that only a relist can show it.
    await core.deleteNamespacedPod({ namespace: 'inf', name: 'live' });
    await core.createNamespacedPod({ namespace: 'inf', body: pod('during-gap') });

    // It rewatches from its old version, gets the in-stream 410, relists and rewatches.
    await until(() => log.includes('add during-gap') && log.includes('delete live'), 'the relist');
    const relists = requests.filter((r) => r.startsWith('GET /api/v1/namespaces/inf/pods') && !r.includes('watch=')).length - listsBefore;
    expect(relists).toBeGreaterThanOrEqual(1);
    expect(informer.list().map((p) => p.metadata?.name)).toEqual(['during-gap']);

    // Back to a normal watch: a new change arrives, and there is no relist loop.
    await core.createNamespacedPod({ namespace: 'inf', body: pod('after') });
    await until(() => log.includes('add after'), 'an event after recovery');
    const settled = requests.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(requests.length - settled).toBeLessThan(5);
    await informer.stop();
  });
});

/**
 * Concurrency against the Node host (SQLite store): 8 clients increment one
 * ConfigMap counter by read-modify-write through update with resourceVersion
 * (409 -> reread and retry), through a JSON patch guarded by a `test` op, and
 * through apply carrying the resourceVersion. The final value must equal the
 * number of acknowledged increments: no update is lost. Then a list followed
 * by a watch from the list's resourceVersion, while 4 writers run, must see
 * every acknowledged write exactly once, in revision order.
 *
 * 8 x 40 increments per mechanism by default; KUBESIM_CONCURRENCY_INCREMENTS
 * sets the per-client count (the full run is 1,000).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';
import { recordFigures } from './support/reliability';

const CLIENTS = 8;
const INCREMENTS = Number(process.env.KUBESIM_CONCURRENCY_INCREMENTS ?? 40);
const WRITERS = 4;
const WRITES_PER_WRITER = Number(process.env.KUBESIM_WATCH_WRITES ?? 100);
const NS = 'concurrency';
/** Generous bounds for the larger runs; a test that hangs still ends. */
const RACE_TIMEOUT = 60_000 + CLIENTS * INCREMENTS * 100;

let t: TestHost;
const figures: Record<string, unknown> = {};

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await fetch(t.host.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  t = await startTestHost({ store: 'sqlite' });
  expect((await call('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
});

afterAll(async () => {
  recordFigures('concurrency', figures, `KUBESIM_CONCURRENCY_INCREMENTS=${INCREMENTS} KUBESIM_WATCH_WRITES=${WRITES_PER_WRITER} npx vitest run --project e2e e2e/reliability.concurrency.test.ts`);
  await t?.stop();
});

type Increment = (name: string) => Promise<{ status: number; body: any }>;

/** Runs CLIENTS clients, each retrying `attempt` until INCREMENTS of them succeed; every failure must be the mechanism's conflict. */
async function race(name: string, attempt: Increment, conflict: (r: { status: number; body: any }) => boolean): Promise<{ acknowledged: number; retries: number; rvs: number[] }> {
  let acknowledged = 0;
  let retries = 0;
  const rvs: number[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let done = 0; done < INCREMENTS; ) {
        const r = await attempt(name);
        if (r.status >= 200 && r.status < 300) {
          done++;
          acknowledged++;
          rvs.push(Number(r.body.metadata.resourceVersion));
        } else {
          expect(conflict(r), `${r.status} ${JSON.stringify(r.body)}`).toBe(true);
          retries++;
        }
      }
    }),
  );
  return { acknowledged, retries, rvs };
}

async function counter(name: string): Promise<ConfigMap> {
  const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps/${name}`);
  expect(r.status).toBe(200);
  return r.body as ConfigMap;
}

async function newCounter(name: string): Promise<void> {
  expect((await call('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name }, data: { count: '0' } })).status).toBe(201);
}

function checkNoLostUpdate(label: string, final: ConfigMap, result: { acknowledged: number; retries: number; rvs: number[] }): void {
  expect(result.acknowledged).toBe(CLIENTS * INCREMENTS);
  expect(Number(final.data!.count)).toBe(result.acknowledged);
  // Every acknowledged write got its own resourceVersion.
  expect(new Set(result.rvs).size).toBe(result.rvs.length);
  figures[label] = { clients: CLIENTS, increments: result.acknowledged, final: Number(final.data!.count), lost: result.acknowledged - Number(final.data!.count), conflictsRetried: result.retries };
}

describe('read-modify-write from 8 clients loses no update', () => {
  it(`[API-ERR-002] [API-ERR-008] update with resourceVersion, retrying on 409 Conflict (${CLIENTS} x ${INCREMENTS})`, async () => {
    await newCounter('by-update');
    const result = await race(
      'by-update',
      async (name) => {
        const cm = await counter(name);
        return call('PUT', `/api/v1/namespaces/${NS}/configmaps/${name}`, { ...cm, data: { count: String(Number(cm.data!.count) + 1) } });
      },
      (r) => r.status === 409 && r.body.reason === 'Conflict' && /the object has been modified; please apply your changes to the latest version and try again/.test(r.body.message),
    );
    checkNoLostUpdate('update', await counter('by-update'), result);
  }, RACE_TIMEOUT);

  it(`[API-PATCH-012] JSON patch guarded by a test op, retrying when the test fails (${CLIENTS} x ${INCREMENTS})`, async () => {
    await newCounter('by-json-patch');
    const result = await race(
      'by-json-patch',
      async (name) => {
        const n = Number((await counter(name)).data!.count);
        return call('PATCH', `/api/v1/namespaces/${NS}/configmaps/${name}`, [{ op: 'test', path: '/data/count', value: String(n) }, { op: 'replace', path: '/data/count', value: String(n + 1) }], 'application/json-patch+json');
      },
      // A failed test op is 422 Invalid, as kube-apiserver answers a JSON patch that does not apply.
      (r) => r.status === 422 && r.body.reason === 'Invalid',
    );
    checkNoLostUpdate('jsonPatchTest', await counter('by-json-patch'), result);
  }, RACE_TIMEOUT);

  it(`apply carrying metadata.resourceVersion, retrying on 409 Conflict (${CLIENTS} x ${INCREMENTS})`, async () => {
    await newCounter('by-apply');
    const result = await race(
      'by-apply',
      async (name) => {
        const cm = await counter(name);
        const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, resourceVersion: cm.metadata.resourceVersion }, data: { count: String(Number(cm.data!.count) + 1) } };
        return call('PATCH', `/api/v1/namespaces/${NS}/configmaps/${name}?fieldManager=counter&force=true`, config, 'application/apply-patch+yaml');
      },
      (r) => r.status === 409 && r.body.reason === 'Conflict',
    );
    checkNoLostUpdate('apply', await counter('by-apply'), result);
  }, RACE_TIMEOUT);
});

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string } };
}

/** A watch over raw HTTP, its events collected as they arrive. */
function openWatch(path: string): Promise<{ events: WatchEvent[]; waitFor(n: number): Promise<void>; close(): void }> {
  const url = new URL(t.host.url);
  return new Promise((resolve, reject) => {
    const events: WatchEvent[] = [];
    const waiters: { n: number; resolve: () => void }[] = [];
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch: ${res.statusCode}`));
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
        }
        for (const w of waiters.filter((w) => events.filter((e) => e.type !== 'BOOKMARK').length >= w.n)) w.resolve();
      });
      res.on('error', () => undefined);
      resolve({
        events,
        waitFor: (n) => (events.filter((e) => e.type !== 'BOOKMARK').length >= n ? Promise.resolve() : new Promise<void>((done) => waiters.push({ n, resolve: done }))),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('list, then watch from the list while 4 writers run', () => {
  it(`[API-LIST-026] [API-WATCH-031] every acknowledged write is seen exactly once, in revision order (${WRITERS} x ${WRITES_PER_WRITER} writes)`, async () => {
    const prefix = `/api/v1/namespaces/${NS}/configmaps`;
    // Each writer owns ten names: it creates them, then patches them in turn, now and then deleting one and creating it again.
    // A delete answers with a Status (no resourceVersion): its place is fixed by the writer's writes around it.
    const ops: { type: string; name: string; rv?: number }[][] = Array.from({ length: WRITERS }, () => []);
    let started!: () => void;
    const halfway = new Promise<void>((resolve) => (started = resolve));
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < WRITES_PER_WRITER; i++) {
        if (w === 0 && i === Math.floor(WRITES_PER_WRITER / 4)) started();
        const name = `w${w}-${i % 10}`;
        let r;
        if (i < 10) r = await call('POST', prefix, { metadata: { name, labels: { watch: 'yes' } }, data: { i: String(i) } });
        else if (i % 7 === 0) {
          r = await call('DELETE', `${prefix}/${name}`);
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          ops[w]!.push({ type: 'DELETED', name });
          r = await call('POST', prefix, { metadata: { name, labels: { watch: 'yes' } }, data: { i: String(i) } });
        } else r = await call('PATCH', `${prefix}/${name}`, { data: { i: String(i) } }, 'application/merge-patch+json');
        expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
        ops[w]!.push({ type: r.status === 201 ? 'ADDED' : 'MODIFIED', name, rv: Number(r.body.metadata.resourceVersion) });
      }
    });
    // Writers are running when the list is taken, so its revision falls among their writes.
    await halfway;
    const list = await call('GET', `${prefix}?labelSelector=watch%3Dyes`);
    expect(list.status).toBe(200);
    const listRv = Number(list.body.metadata.resourceVersion);
    const listed = new Map((list.body.items as ConfigMap[]).map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
    const watch = await openWatch(`${prefix}?watch=1&labelSelector=watch%3Dyes&resourceVersion=${listRv}&allowWatchBookmarks=true`);
    await Promise.all(writers);

    // What each writer did after the list's revision. A delete whose neighbours straddle the
    // revision is after it exactly when the list still holds the object at its previous write.
    const expected = ops.map((writer) =>
      writer.filter((op, i) => {
        if (op.rv !== undefined) return op.rv > listRv;
        const prev = writer[i - 1]!;
        return prev.rv! > listRv || listed.get(op.name) === prev.rv;
      }),
    );
    const total = expected.reduce((n, e) => n + e.length, 0);
    await watch.waitFor(total);
    watch.close();

    const seen = watch.events.filter((e) => e.type !== 'BOOKMARK').map((e) => ({ type: e.type, name: e.object.metadata.name, rv: Number(e.object.metadata.resourceVersion) }));
    // One revision order over all writers, no revision twice, nothing extra.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.rv).toBeGreaterThan(seen[i - 1]!.rv);
    expect(seen.length).toBe(total);
    // Each writer's writes, in its own order, with the resourceVersions it was answered.
    for (let w = 0; w < WRITERS; w++) {
      const mine = seen.filter((e) => e.name.startsWith(`w${w}-`));
      expect(mine.map((e) => ({ type: e.type, name: e.name, ...(e.type === 'DELETED' ? {} : { rv: e.rv }) }))).toEqual(expected[w]!.map((op) => ({ type: op.type, name: op.name, ...(op.rv === undefined ? {} : { rv: op.rv }) })));
    }
    const writes = ops.reduce((n, o) => n + o.length, 0);
    figures.listThenWatch = { writers: WRITERS, writes, listResourceVersion: listRv, eventsExpected: total, eventsSeen: seen.length, lost: 0, duplicated: 0 };
  }, 60_000 + WRITERS * WRITES_PER_WRITER * 200);
});

/**
 * Watch, resourceVersion semantics, chunked lists and selectors through
 * handle(), over the watch cache on a FakeClock (tests never sleep on wall
 * time: they advance the clock and yield to the event loop).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';
import type { FakeClock } from './util/clock';
import { watcherCapacity } from './http/handlers/watch';

/**
 * Lets a request that waits on the fake clock complete: yields to the event
 * loop (no wall-clock sleeping) and advances the clock step by step.
 */
async function settleOnClock<T>(promise: Promise<T>, clock: FakeClock, stepMs = 500, maxSteps = 200): Promise<T> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < maxSteps && !settled; i++) {
    await new Promise((r) => setImmediate(r));
    if (!settled) clock.advance(stepMs);
  }
  return promise;
}

/** Yields to the event loop a few times so pending microtasks and stream pulls run. */
async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setImmediate(r));
}

const NS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, labels?: Record<string, string>, data: Record<string, string> = { a: '1' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: labels ? { name, labels } : { name },
  data,
});

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

async function create(name: string, labels?: Record<string, string>, ns = 'default') {
  const r = await t.json('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name, labels) });
  expect(r.status).toBe(201);
  return r.body;
}
async function mergePatch(name: string, patch: unknown) {
  const r = await t.json('PATCH', `${NS}/${name}`, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } });
  expect(r.status).toBe(200);
  return r.body;
}
async function listRv(): Promise<string> {
  return (await t.json('GET', NS)).body.metadata.resourceVersion;
}
const names = (items: any[]) => items.map((i) => i.metadata.name);
const invalidOptions = (causes: Array<{ field: string; message: string; reason?: string }>, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  reason: 'Invalid',
  code: 422,
  message,
  details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueForbidden', message: c.message, field: c.field })) },
});

describe('get: the resourceVersion table', () => {
  it('[API-RV-008] [API-RV-037] unset is Most Recent: a read right after a patch sees it', async () => {
    await create('c1');
    const p = await mergePatch('c1', { data: { a: '2' } });
    const g = await t.json('GET', `${NS}/c1`);
    expect(g.body.data).toEqual({ a: '2' });
    expect(g.body.metadata.resourceVersion).toBe(p.metadata.resourceVersion);
  });

  it('[API-RV-001] [API-RV-009] "0" is Any: 200 from the cache', async () => {
    await create('c1');
    const g = await t.json('GET', `${NS}/c1?resourceVersion=0`);
    expect(g.status).toBe(200);
    expect(g.body.metadata.name).toBe('c1');
  });

  it('[API-RV-010] non-zero is Not Older Than: the object at or after that version', async () => {
    await create('c1');
    const p = await mergePatch('c1', { data: { a: '2' } });
    const g = await t.json('GET', `${NS}/c1?resourceVersion=${p.metadata.resourceVersion}`);
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ a: '2' });
    expect(Number(g.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(p.metadata.resourceVersion));
  });

  it('[API-ERR-015] [API-ERR-016] [API-ERR-017] a version the store has not reached waits briefly, then 504 with Retry-After', async () => {
    const c = await create('c1');
    const current = Number(c.metadata.resourceVersion);
    const r = await settleOnClock(t.json('GET', `${NS}/c1?resourceVersion=${current + 100}`), t.clock);
    expect(r.status).toBe(504);
    expect(r.headers.get('retry-after')).toBe('1');
    // The control plane's Lease renewals go on while the request waits: current is the store's revision when it gave up.
    const reported = Number(/, current: (\d+)$/.exec(String(r.body.message))?.[1]);
    expect(reported).toBeGreaterThanOrEqual(current);
    expect(reported).toBeLessThan(current + 100);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Timeout', code: 504,
      message: `Timeout: Too large resource version: ${current + 100}, current: ${reported}`,
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    });
  });

  it('a version reached while waiting is served', async () => {
    const c = await create('c1');
    const pending = t.json('GET', `${NS}/c1?resourceVersion=${Number(c.metadata.resourceVersion) + 1}`);
    await flush();
    t.clock.advance(1000);
    await create('c2');
    const r = await pending;
    expect(r.status).toBe(200);
  });

  it('a resourceVersion that is not a number is 400', async () => {
    const r = await t.json('GET', `${NS}/c1?resourceVersion=abc`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  });
});

describe('list: the resourceVersion x resourceVersionMatch x paging table', () => {
  /** c1..c3 exist at X; c4 is created after X. */
  async function history() {
    for (const n of ['c1', 'c2', 'c3']) await create(n);
    const x = await listRv();
    await create('c4');
    await mergePatch('c1', { data: { a: 'later' } });
    return x;
  }

  it('[API-RV-011] [API-RV-006] [API-LIST-004] unset, no limit: Most Recent, including what was just created', async () => {
    await history();
    await create('fresh');
    const r = await t.json('GET', NS);
    expect(names(r.body.items)).toEqual(['c1', 'c2', 'c3', 'c4', 'fresh']);
    expect(typeof r.body.metadata.resourceVersion).toBe('string');
    expect(r.body.metadata.resourceVersion).toBe(r.body.items.at(-1).metadata.resourceVersion);
  });

  it('[API-RV-012] "0", no limit: Any', async () => {
    await history();
    const r = await t.json('GET', `${NS}?resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(names(r.body.items)).toContain('c1');
  });

  it('[API-RV-013] non-zero, no limit: Not Older Than (newest state, list version >= X)', async () => {
    const x = await history();
    const r = await t.json('GET', `${NS}?resourceVersion=${x}`);
    expect(r.status).toBe(200);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(Number(x));
    expect(names(r.body.items)).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('[API-RV-014] unset, limit=n: Most Recent first chunk', async () => {
    await history();
    await create('c0');
    const all = await t.json('GET', NS);
    const r = await t.json('GET', `${NS}?limit=1`);
    expect(names(r.body.items)).toEqual(['c0']);
    expect(r.body.metadata.resourceVersion).toBe(all.body.metadata.resourceVersion);
  });

  it('[API-RV-015] "0", limit=n: Any', async () => {
    await history();
    const r = await t.json('GET', `${NS}?limit=1&resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(r.body.items.length).toBeLessThanOrEqual(1);
  });

  it('[API-RV-016] [API-RV-041] non-zero, limit=n: Exact (list version == X, later objects absent, items as they were)', async () => {
    const x = await history();
    const first = await t.json('GET', `${NS}?limit=2&resourceVersion=${x}`);
    expect(first.body.metadata.resourceVersion).toBe(x);
    expect(names(first.body.items)).toEqual(['c1', 'c2']);
    expect(first.body.items[0].data).toEqual({ a: '1' });
    const rest = await t.json('GET', `${NS}?limit=2&continue=${first.body.metadata.continue}`);
    expect(names(rest.body.items)).toEqual(['c3']);
    expect(rest.body.metadata.resourceVersion).toBe(x);
  });

  it('[API-RV-017] [API-LIST-017] continue, unset: Continue Token, Exact', async () => {
    await history();
    const first = await t.json('GET', `${NS}?limit=1`);
    const next = await t.json('GET', `${NS}?limit=1&continue=${first.body.metadata.continue}`);
    expect(names(next.body.items)).toEqual(['c2']);
    expect(next.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  it('[API-RV-018] continue with "0": treated as the token', async () => {
    await history();
    const first = await t.json('GET', `${NS}?limit=1`);
    await create('c11');
    const next = await t.json('GET', `${NS}?limit=1&continue=${first.body.metadata.continue}&resourceVersion=0`);
    expect(next.status).toBe(200);
    expect(names(next.body.items)).toEqual(['c2']);
    expect(next.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  it('[API-RV-019] [API-ERR-013] continue with a non-zero resourceVersion is 400', async () => {
    await history();
    const first = await t.json('GET', `${NS}?limit=1`);
    const r = await t.json('GET', `${NS}?limit=1&continue=${first.body.metadata.continue}&resourceVersion=${first.body.metadata.resourceVersion}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message: 'specifying resource version is not allowed when using continue' });
  });

  it('[API-RV-003] [API-RV-020] [API-ERR-014] [API-ERR-024] Exact without resourceVersion is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject(invalidOptions(
      [{ field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' }],
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ));
  });

  it('[API-RV-021] Exact with "0" is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=0`);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  });

  it('[API-RV-002] [API-RV-022] Exact with non-zero, no limit: the list at exactly X', async () => {
    const x = await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=${x}`);
    expect(r.status).toBe(200);
    expect(r.body.metadata.resourceVersion).toBe(x);
    expect(names(r.body.items)).toEqual(['c1', 'c2', 'c3']);
    expect(r.body.metadata.continue).toBeUndefined();
  });

  it('[API-RV-023] Exact with limit and no resourceVersion is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact&limit=1`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' }]);
  });

  it('[API-RV-024] Exact with limit and "0" is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact&limit=1&resourceVersion=0`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].message).toBe('Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  });

  it('[API-RV-025] Exact with limit and non-zero: chunks at exactly X', async () => {
    const x = await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Exact&limit=1&resourceVersion=${x}`);
    expect(r.body.metadata.resourceVersion).toBe(x);
    expect(names(r.body.items)).toEqual(['c1']);
    expect(r.body.metadata.remainingItemCount).toBe(2);
  });

  it('[API-RV-026] NotOlderThan without resourceVersion is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].message).toBe('Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  });

  it('[API-RV-027] NotOlderThan with "0": Any', async () => {
    await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan&resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(4);
  });

  it('[API-RV-028] [API-RV-039] NotOlderThan with non-zero: list version not older than X, every object of X present', async () => {
    const x = await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan&resourceVersion=${x}`);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(x));
    expect(names(r.body.items)).toEqual(expect.arrayContaining(['c1', 'c2', 'c3']));
  });

  it('[API-RV-029] NotOlderThan with limit and no resourceVersion is 422', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan&limit=1`);
    expect(r.status).toBe(422);
  });

  it('[API-RV-030] NotOlderThan with limit and "0": Any', async () => {
    await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan&limit=1&resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(1);
  });

  it('[API-RV-031] NotOlderThan with limit and non-zero: not older than X (newest)', async () => {
    const x = await history();
    const r = await t.json('GET', `${NS}?resourceVersionMatch=NotOlderThan&limit=1&resourceVersion=${x}`);
    expect(r.status).toBe(200);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(Number(x));
    expect(r.body.items[0].data).toEqual({ a: 'later' });
  });

  it('an unknown resourceVersionMatch, or one with continue, is 422 with every error', async () => {
    const r = await t.json('GET', `${NS}?resourceVersionMatch=Newest&resourceVersion=3`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueNotSupported', field: 'resourceVersionMatch', message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' }]);
    const c = await t.json('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=3&continue=abc`);
    expect(c.status).toBe(422);
    expect(c.body.details.causes.map((x: any) => x.message)).toEqual(['Forbidden: resourceVersionMatch is forbidden when continue is provided']);
  });

  it('sendInitialEvents on a list is 422', async () => {
    const r = await t.json('GET', `${NS}?sendInitialEvents=true`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'sendInitialEvents', message: 'Forbidden: sendInitialEvents is forbidden for list' }]);
  });

  it('Exact above the store waits, then 504 Too large resource version', async () => {
    await history();
    const r = await settleOnClock(t.json('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=999`), t.clock);
    expect(r.status).toBe(504);
    expect(r.body.message).toContain('Too large resource version: 999');
    expect(r.headers.get('retry-after')).toBe('1');
  });
});

describe('expiry with the history window', () => {
  it('[API-RV-042] [API-ERR-011] Exact below the retained history is 410 Expired', async () => {
    await create('c1');
    const x = await listRv();
    await create('c1b');
    t.clock.advance(6 * 60_000);
    await create('c2');
    for (const q of [`resourceVersionMatch=Exact&resourceVersion=${x}`, `limit=1&resourceVersion=${x}`]) {
      const r = await t.json('GET', `${NS}?${q}`);
      expect(r.status).toBe(410);
      expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
    }
  });

  it('[API-LIM-002] [API-RV-047] [API-LIST-027] [API-ERR-012] a continue token works within the window and expires after it, with an inconsistent-remainder token', async () => {
    for (const n of ['c1', 'c2', 'c3']) await create(n);
    const first = await t.json('GET', `${NS}?limit=1`);
    await mergePatch('c1', { data: { a: 'after the snapshot' } });
    t.clock.advance(4 * 60_000);
    await create('c4');
    const ok = await t.json('GET', `${NS}?limit=1&continue=${first.body.metadata.continue}`);
    expect(ok.status).toBe(200);
    expect(names(ok.body.items)).toEqual(['c2']);
    t.clock.advance(2 * 60_000);
    await create('c5');
    const gone = await t.json('GET', `${NS}?limit=1&continue=${ok.body.metadata.continue}`);
    expect(gone.status).toBe(410);
    expect(gone.body.reason).toBe('Expired');
    expect(gone.body.message).toBe(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    // The Status's token resumes after c2 at the latest revision.
    const resumed = await t.json('GET', `${NS}?limit=10&continue=${gone.body.metadata.continue}`);
    expect(resumed.status).toBe(200);
    expect(names(resumed.body.items)).toEqual(['c3', 'c4', 'c5']);
  });

  it('[API-WATCH-029] [API-ERR-010] [API-LIM-001] a watch from before the window is HTTP 200 then one ERROR event with 410, then the end', async () => {
    await create('c1');
    const x = await listRv();
    await create('c1b');
    t.clock.advance(4 * 60_000);
    await create('c2');
    const within = await t.watch(`${NS}?watch=1&resourceVersion=${x}`);
    expect((await within.take(2)).map((e) => e.object.metadata.name)).toEqual(['c1b', 'c2']);
    within.close();
    t.clock.advance(2 * 60_000);
    await create('c3');
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${x}`);
    expect(w.response.status).toBe(200);
    const events = await w.rest();
    const oldest = t.storage.stats().startRevision;
    expect(events).toEqual([
      {
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${x} (${oldest})` },
      },
    ]);
  });

  it('a list always returns a version a watch can start from, even after the window passed', async () => {
    await create('c1');
    t.clock.advance(60 * 60_000);
    const rv = await listRv();
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${rv}`);
    await create('c2');
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c2' } } });
    w.close();
  });
});

describe('chunked lists', () => {
  async function five() {
    for (const n of ['c1', 'c2', 'c3', 'c4', 'c5']) await create(n, { app: n === 'c5' ? 'b' : 'a' });
  }

  it('[API-LIST-002] [API-LIST-006] [API-LIST-008] [API-LIST-016] [API-LIST-021] [API-LIST-022] [API-LIM-004] limit=2 of 5: two items, a token, 3 remaining', async () => {
    await five();
    const r = await t.json('GET', `${NS}?limit=2`);
    expect(names(r.body.items)).toEqual(['c1', 'c2']);
    expect(r.body.metadata.continue).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(r.body.metadata.remainingItemCount).toBe(3);
  });

  it('[API-LIST-009] no remainingItemCount without limit', async () => {
    await five();
    const r = await t.json('GET', `${NS}`);
    expect(r.body.metadata).toEqual({ resourceVersion: expect.any(String) });
  });

  it('[API-LIST-005] [API-LIST-007] [API-LIST-010] [API-LIST-023] [API-LIST-024] following tokens yields every item once, same version, and the last chunk has neither token nor count', async () => {
    await five();
    const seen: string[] = [];
    const versions = new Set<string>();
    let token = '';
    let last: any;
    do {
      last = (await t.json('GET', `${NS}?limit=2${token ? `&continue=${token}` : ''}`)).body;
      seen.push(...names(last.items));
      versions.add(last.metadata.resourceVersion);
      token = last.metadata.continue ?? '';
    } while (token);
    expect(seen).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(versions.size).toBe(1);
    expect(last.metadata.continue).toBeUndefined();
    expect(last.metadata.remainingItemCount).toBeUndefined();
  });

  it('[API-LIST-011] a label selector keeps the token but drops remainingItemCount', async () => {
    await five();
    const r = await t.json('GET', `${NS}?limit=1&labelSelector=app%3Da`);
    expect(names(r.body.items)).toEqual(['c1']);
    expect(r.body.metadata.continue).toBeTruthy();
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
  });

  it('[API-LIST-012] a field selector drops remainingItemCount', async () => {
    await five();
    const r = await t.json('GET', `${NS}?limit=1&fieldSelector=metadata.namespace%3Ddefault`);
    expect(r.body.metadata.continue).toBeTruthy();
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
  });

  it('[API-LIST-001] [API-LIST-025] [API-RV-046] every chunk is the first chunk snapshot while writes change every part of the collection', async () => {
    for (let i = 0; i < 20; i++) await create(`c${String(i).padStart(2, '0')}`);
    const snapshot = (await t.json('GET', NS)).body;
    const seen: any[] = [];
    let token = '';
    let step = 0;
    do {
      const r = (await t.json('GET', `${NS}?limit=3${token ? `&continue=${token}` : ''}`)).body;
      expect(r.metadata.resourceVersion).toBe(snapshot.metadata.resourceVersion);
      seen.push(...r.items);
      token = r.metadata.continue ?? '';
      // Concurrent writers: updates ahead of the cursor, deletes, and creates that sort last and first.
      await Promise.all([
        mergePatch(`c${String(19 - step).padStart(2, '0')}`, { data: { a: 'changed' } }),
        step < 3 ? t.json('DELETE', `${NS}/c${String(10 + step).padStart(2, '0')}`) : mergePatch(`c0${step}`, { data: { a: 'behind' } }),
        create(`z-new-${step}`),
        create(`a-new-${step}`),
      ]);
      step++;
    } while (token);
    expect(seen).toEqual(snapshot.items);
    const fresh = (await t.json('GET', NS)).body;
    expect(names(fresh.items)).toContain('z-new-0');
  });

  it('[API-LIST-015] items keep their own resourceVersion, not the list version', async () => {
    const a = await create('ca');
    await create('cb');
    await mergePatch('cb', { data: { b: '2' } });
    const r = await t.json('GET', NS);
    const item = r.body.items.find((i: any) => i.metadata.name === 'ca');
    expect(item.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    expect(item.metadata.resourceVersion).not.toBe(r.body.metadata.resourceVersion);
  });

  it('[API-LIST-003] [API-LIST-014] [API-LIST-020] a list is <Kind>List of items of the kind', async () => {
    await create('c1');
    const r = await t.json('GET', NS);
    expect(r.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
    expect(r.body.items[0]).toMatchObject({ metadata: { name: 'c1' }, data: { a: '1' } });
    const d = await t.json('GET', '/apis/apps/v1/deployments');
    expect(d.body).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1', items: [] });
  });

  it('a malformed or foreign continue token is 400', async () => {
    const bad = await t.json('GET', `${NS}?limit=1&continue=%25%25`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid continue token: continue key is not valid: illegal base64 data at input byte 0');
    const foreign = btoa(JSON.stringify({ v: 'other/v9', rv: 3, start: 'x' })).replace(/=+$/, '');
    const f = await t.json('GET', `${NS}?limit=1&continue=${foreign}`);
    expect(f.body.message).toBe('invalid continue token: continue key is not valid: server does not recognize this encoded key');
    const traversal = btoa(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' })).replace(/=+$/, '');
    expect((await t.json('GET', `${NS}?limit=1&continue=${traversal}`)).status).toBe(400);
  });

  it('[API-LIST-026] a full list followed by a watch from its version loses no update under concurrent writes', async () => {
    for (let i = 0; i < 10; i++) await create(`c${i}`);
    const writes: Promise<unknown>[] = [];
    // Writes race the list and the watch's start.
    for (let i = 0; i < 10; i++) writes.push(create(`w${i}`));
    const list = (await t.json('GET', NS)).body;
    for (let i = 10; i < 20; i++) writes.push(create(`w${i}`));
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    for (let i = 20; i < 30; i++) writes.push(create(`w${i}`));
    await Promise.all(writes);
    const inList = new Set(names(list.items));
    const missing = Array.from({ length: 30 }, (_, i) => `w${i}`).filter((n) => !inList.has(n));
    const events = await w.take(missing.length);
    expect(events.map((e) => e.object.metadata.name).sort()).toEqual(missing.sort());
    expect(events.every((e) => Number(e.object.metadata.resourceVersion) > Number(list.metadata.resourceVersion))).toBe(true);
    w.close();
  });
});

describe('selectors through HTTP', () => {
  beforeEach(async () => {
    await create('a1', { app: 'a', tier: 'web' });
    await create('a2', { app: 'a' });
    await create('b1', { app: 'b', tier: 'db' });
    await create('n1');
  });
  const sel = async (q: string) => {
    const r = await t.json('GET', `${NS}?${q}`);
    expect(r.status).toBe(200);
    return names(r.body.items);
  };

  it('[API-LIST-018] [API-META-018] label selectors: =, ==, !=, in, notin, exists, !exists', async () => {
    expect(await sel('labelSelector=app%3Da')).toEqual(['a1', 'a2']);
    expect(await sel('labelSelector=app%3D%3Db')).toEqual(['b1']);
    expect(await sel('labelSelector=app!%3Da')).toEqual(['b1', 'n1']);
    expect(await sel('labelSelector=app+in+(a,b),tier')).toEqual(['a1', 'b1']);
    expect(await sel('labelSelector=app+notin+(a)')).toEqual(['b1', 'n1']);
    expect(await sel('labelSelector=tier')).toEqual(['a1', 'b1']);
    expect(await sel('labelSelector=!tier')).toEqual(['a2', 'n1']);
  });

  it('[API-LIST-019] field selectors: metadata.name and metadata.namespace everywhere, kind-specific fields, = == !=', async () => {
    expect(await sel('fieldSelector=metadata.name%3Da2')).toEqual(['a2']);
    expect(await sel('fieldSelector=metadata.name!%3Da2,metadata.namespace%3D%3Ddefault')).toEqual(['a1', 'b1', 'n1']);
    const all = await t.json('GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dkube-system');
    expect(all.body.items).toEqual([]);
    await t.json('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, type: 'Opaque' } });
    await t.json('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } } });
    const s = await t.json('GET', '/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque');
    expect(names(s.body.items)).toEqual(['s1']);
  });

  it('bad selectors are 400: label syntax, unsupported field', async () => {
    const l = await t.json('GET', `${NS}?labelSelector=app+in+(`);
    expect(l.status).toBe(400);
    expect(l.body.reason).toBe('BadRequest');
    const f = await t.json('GET', `${NS}?fieldSelector=spec.nodeName%3Dx`);
    expect(f.status).toBe(400);
    expect(f.body.message).toBe('"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const p = await t.json('GET', '/api/v1/pods?fieldSelector=spec.bogus%3Dx');
    expect(p.body.message).toBe('field label not supported: spec.bogus');
    const w = await t.json('GET', `${NS}?watch=1&fieldSelector=data.a%3D1`);
    expect(w.status).toBe(400);
  });
});

describe('watch', () => {
  it('[API-WATCH-001] [API-WATCH-005] [API-WATCH-008] [API-WATCH-012] [API-WATCH-021] watch=1 streams newline-delimited JSON events, one per chunk', async () => {
    const rv = await listRv();
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${rv}`);
    expect(w.response.status).toBe(200);
    expect(w.response.headers.get('content-type')).toBe('application/json');
    await create('c1');
    const [first] = await w.take(1);
    await create('c2');
    const [second] = await w.take(1);
    expect([first, second].map((e) => [e!.type, e!.object.metadata.name])).toEqual([['ADDED', 'c1'], ['ADDED', 'c2']]);
    // A reader that keeps up gets each write's event in its own chunk.
    expect(w.chunks).toBe(2);
    w.close();
  });

  it('[API-WATCH-021] writes made back to back reach a watcher together, after the writes have returned', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    const reading = w.take(3);
    let read = false;
    void reading.then(() => (read = true));
    // No write waits for its watchers: the fan-out runs once the writing task has finished.
    for (let i = 0; i < 3; i++) await create(`c${i}`);
    expect(read).toBe(false);
    const events = await reading;
    expect(events.map((e) => e.object.metadata.name)).toEqual(['c0', 'c1', 'c2']);
    // As kube-apiserver flushes a watch once its channel is empty: one chunk, still one JSON document per line.
    expect(w.chunks).toBe(1);
    w.close();
  });

  it('[API-WATCH-006] a bare ?watch flag is a watch', async () => {
    const w = await t.watch(`${NS}?watch&resourceVersion=${await listRv()}`);
    await create('c1');
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'c1' } } });
    w.close();
  });

  it('[API-WATCH-007] a watch on one object path sees only that object', async () => {
    await create('c1');
    const rv = await listRv();
    const w = await t.watch(`${NS}/c1?watch=1&resourceVersion=${rv}`);
    await create('c2');
    await mergePatch('c2', { data: { x: '1' } });
    await mergePatch('c1', { data: { x: '1' } });
    expect(await w.next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'c1' }, data: { x: '1' } } });
    w.close();
  });

  it('[API-WATCH-002] [API-WATCH-003] [API-WATCH-020] [API-WATCH-034] [API-WATCH-035] [API-WATCH-036] [API-WATCH-037] create, update, patch and delete: ADDED, MODIFIED, MODIFIED, DELETED with the last state', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    const c = await create('c1');
    const u = await t.json('PUT', `${NS}/c1`, { body: { ...cm('c1', undefined, { a: 'put' }), metadata: { name: 'c1', resourceVersion: c.metadata.resourceVersion } } });
    expect(u.status).toBe(200);
    const p = await mergePatch('c1', { data: { a: 'patched' } });
    const d = await t.json('DELETE', `${NS}/c1`);
    expect(d.status).toBe(200);
    const events = await w.take(4);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    for (const e of events) expect(e.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(events[1]!.object.data).toEqual({ a: 'put' });
    expect(events[2]!.object.metadata.resourceVersion).toBe(p.metadata.resourceVersion);
    expect(events[3]!.object.data).toEqual({ a: 'patched' });
    expect(Number(events[3]!.object.metadata.resourceVersion)).toBeGreaterThan(Number(p.metadata.resourceVersion));
    w.close();
  });

  it('[API-WATCH-038] server-side apply emits ADDED for a create and MODIFIED for a change', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    const apply = (data: Record<string, string>) =>
      t.json('PATCH', `${NS}/ssa?fieldManager=m`, { body: JSON.stringify(cm('ssa', undefined, data)), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect((await apply({ a: '1' })).status).toBe(201);
    expect((await apply({ a: '2' })).status).toBe(200);
    expect((await w.take(2)).map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    w.close();
  });

  it('[API-RV-032] [API-RV-048] unset: ADDED for every existing object, then live events', async () => {
    for (const n of ['c1', 'c2', 'c3']) await create(n);
    const w = await t.watch(`${NS}?watch=1`);
    await mergePatch('c2', { data: { b: '1' } });
    const events = await w.take(4);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c1'], ['ADDED', 'c2'], ['ADDED', 'c3'], ['MODIFIED', 'c2']]);
    w.close();
  });

  it('[API-RV-033] "0": ADDED for the existing objects (state at any version), then changes', async () => {
    await create('c1');
    const w = await t.watch(`${NS}?watch=1&resourceVersion=0`);
    await create('c2');
    expect((await w.take(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c1'], ['ADDED', 'c2']]);
    w.close();
  });

  it('[API-RV-034] [API-RV-050] [API-WATCH-019] non-zero: no synthetic events, only changes after that version', async () => {
    await create('c1');
    await create('c2');
    const x = await listRv();
    await mergePatch('c1', { data: { after: 'x' } });
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${x}`);
    await create('c3');
    const events = await w.take(2);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['MODIFIED', 'c1'], ['ADDED', 'c3']]);
    for (const e of events) expect(Number(e.object.metadata.resourceVersion)).toBeGreaterThan(Number(x));
    w.close();
  });

  it('[API-WATCH-031] a dropped watch resumes from the last version it saw without missing events', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    await create('c1');
    const last = (await w.next())!.object.metadata.resourceVersion;
    w.close();
    await create('c2');
    await mergePatch('c1', { data: { z: '1' } });
    const again = await t.watch(`${NS}?watch=1&resourceVersion=${last}`);
    expect((await again.take(2)).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c2'], ['MODIFIED', 'c1']]);
    again.close();
  });

  it('[API-WATCH-004] [API-WATCH-009] [API-WATCH-024] [API-WATCH-025] with allowWatchBookmarks a BOOKMARK comes about once a minute, carrying only the resourceVersion', async () => {
    const w = await t.watch(`${NS}?watch=1&allowWatchBookmarks=true&resourceVersion=${await listRv()}`);
    await create('c1');
    const added = (await w.next())!;
    await create('other', undefined, 'kube-system');
    t.clock.advance(60_000);
    const b = (await w.next())!;
    expect(b.type).toBe('BOOKMARK');
    expect(b.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
    expect(Number(b.object.metadata.resourceVersion)).toBeGreaterThan(Number(added.object.metadata.resourceVersion));
    await create('c2');
    const next = (await w.next())!;
    expect(Number(next.object.metadata.resourceVersion)).toBeGreaterThan(Number(b.object.metadata.resourceVersion));
    w.close();
  });

  it('[API-WATCH-026] no BOOKMARK without allowWatchBookmarks', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    await create('c1');
    await w.next();
    for (let i = 0; i < 5; i++) t.clock.advance(60_000);
    await flush();
    await create('c2');
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c2' } } });
    w.close();
  });

  it('[API-WATCH-010] [API-WATCH-014] [API-WATCH-015] [API-WATCH-016] [API-WATCH-017] streaming list: ADDED per object, a BOOKMARK marking the end of the initial events, then a normal watch', async () => {
    for (const n of ['c1', 'c2']) await create(n);
    await create('c5');
    const w = await t.watch(`${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const initial = await w.take(4);
    expect(initial.slice(0, 3).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c1'], ['ADDED', 'c2'], ['ADDED', 'c5']]);
    const list = (await t.json('GET', NS)).body;
    expect(initial[3]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: list.metadata.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    await create('c4');
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c4' } } });
    w.close();
  });

  it('[API-WATCH-018] streaming list from a given version: the bookmark is not older than it', async () => {
    await create('c1');
    const x = await listRv();
    const w = await t.watch(`${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${x}`);
    const [, b] = await w.take(2);
    expect(b!.type).toBe('BOOKMARK');
    expect(Number(b!.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(x));
    w.close();
  });

  it('a watch with no resourceVersion and bookmarks is a streaming list too (kube defaults)', async () => {
    await create('c1');
    const w = await t.watch(`${NS}?watch=1&allowWatchBookmarks=true`);
    const [a, b] = await w.take(2);
    expect(a!.type).toBe('ADDED');
    expect(b!.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    w.close();
  });

  it('sendInitialEvents=false starts at the most recent version without the state', async () => {
    await create('c1');
    const w = await t.watch(`${NS}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`);
    await flush();
    await create('c2');
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c2' } } });
    w.close();
  });

  it('[API-RV-004] sendInitialEvents with Exact (or without a match) is 422, as are other invalid watch options', async () => {
    const r = await t.json('GET', `${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1`);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    );
    const none = await t.json('GET', `${NS}?watch=1&sendInitialEvents=true`);
    expect(none.body.details.causes.map((c: any) => c.message)).toEqual(['Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan']);
    const noInitial = await t.json('GET', `${NS}?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=5`);
    expect(noInitial.body.details.causes.map((c: any) => c.message)).toEqual(['Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided']);
    // Any value but 0/false is true (the parameter codec), so this is sendInitialEvents=true without a match.
    const maybe = await t.json('GET', `${NS}?watch=1&sendInitialEvents=maybe`);
    expect(maybe.status).toBe(422);
  });

  it('[API-WATCH-032] a version not reached yet waits: changes after it arrive, nothing before, and the stream ends at timeoutSeconds', async () => {
    const rv = Number(await listRv());
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${rv + 2}&timeoutSeconds=5`);
    await create('c1'); // rv+1: not after rv+2
    await create('c2'); // rv+2
    await create('c3'); // rv+3
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c3' } } });
    t.clock.advance(5000);
    expect(await w.rest()).toEqual([]);
    expect(w.done).toBe(true);
  });

  it('without timeoutSeconds a watch ends cleanly within the server maximum (min-request-timeout, randomized up to 2x)', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    t.clock.advance(1799_000);
    await create('c1');
    expect((await w.next())?.type).toBe('ADDED');
    t.clock.advance(1801_000);
    expect(await w.rest()).toEqual([]);
  });

  it('[API-LIST-018] [API-LIST-019] selectors apply to events: starting to match is ADDED, stopping is DELETED, others are filtered', async () => {
    await create('c1', { app: 'b' });
    const w = await t.watch(`${NS}?watch=1&labelSelector=app%3Da&resourceVersion=${await listRv()}`);
    await create('other', { app: 'b' });
    await mergePatch('c1', { metadata: { labels: { app: 'a' } } });
    await mergePatch('c1', { data: { still: 'matching' } });
    await mergePatch('c1', { metadata: { labels: { app: 'c' } } });
    await create('c2', { app: 'a' });
    await t.json('DELETE', `${NS}/c2`);
    await t.json('DELETE', `${NS}/other`);
    const events = await w.take(5);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'c1'],
      ['MODIFIED', 'c1'],
      ['DELETED', 'c1'],
      ['ADDED', 'c2'],
      ['DELETED', 'c2'],
    ]);
    expect(events[2]!.object.metadata.labels).toEqual({ app: 'c' });
    w.close();
    const f = await t.watch(`${NS}?watch=1&fieldSelector=metadata.name%3Dc1&resourceVersion=${await listRv()}`);
    await create('c3');
    await mergePatch('c1', { data: { f: '1' } });
    expect(await f.next()).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'c1' } } });
    f.close();
  });

  it('Table watch (kubectl get -w): every event object is a one-row Table, columns in the first', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const w = await t.watch(`${NS}?watch=true&resourceVersion=${await listRv()}`, { accept });
    await create('c1');
    await mergePatch('c1', { data: { b: '2' } });
    const [a, m] = await w.take(2);
    expect(a).toMatchObject({ type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1' } });
    expect(a!.object.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(a!.object.rows).toHaveLength(1);
    expect(a!.object.rows[0].cells[0]).toBe('c1');
    expect(a!.object.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'c1' } });
    expect(m).toMatchObject({ type: 'MODIFIED', object: { kind: 'Table' } });
    expect(m!.object.rows[0].cells[1]).toBe(2);
    w.close();
  });

  it('fans out to many watchers: each gets every event in order', async () => {
    const rv = await listRv();
    const base = t.storage.stats().watchers;
    const watchers = await Promise.all(Array.from({ length: 100 }, () => t.watch(`${NS}?watch=1&resourceVersion=${rv}`)));
    for (let i = 0; i < 10; i++) await create(`c${i}`);
    for (const w of watchers) {
      const events = await w.take(10);
      expect(events.map((e) => e.object.metadata.name)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
    }
    expect(t.storage.stats().watchers).toBe(base + 100);
    for (const w of watchers) w.close();
    await flush();
    expect(t.storage.stats().watchers).toBe(base);
  });

  it('a watcher that stops reading is closed once it falls too far behind; writes and other watchers go on', async () => {
    const rv = await listRv();
    const base = t.storage.stats().watchers;
    const slow = await t.watch(`${NS}?watch=1&resourceVersion=${rv}`);
    const fast = await t.watch(`${NS}?watch=1&resourceVersion=${rv}`);
    const n = 1100; // more than a watcher may fall behind
    const fastNames: string[] = [];
    for (let i = 0; i < n; i++) {
      await create(`c${i}`);
      fastNames.push((await fast.next())!.object.metadata.name);
    }
    expect(fastNames).toHaveLength(n);
    // Closed while the writes went on, before it read anything: its watcher is no longer fanned out to.
    expect(t.storage.stats().watchers).toBe(base + 1);
    const slowEvents = await slow.rest();
    expect(slow.done).toBe(true);
    expect(slowEvents.length).toBeLessThan(n);
    // What a client that never reads holds on the server is bounded by the watcher's capacity, not by the writes.
    expect(slowEvents.length).toBeLessThanOrEqual(watcherCapacity + 1);
    // What it got is a prefix, so it can resume from its last resourceVersion.
    expect(slowEvents.map((e) => e.object.metadata.name)).toEqual(fastNames.slice(0, slowEvents.length));
    expect(t.storage.stats().watchers).toBe(base + 1);
    fast.close();
  });

  it('[API-WATCH-021] watchers of one collection in one encoding are sent the same bytes, encoded once', async () => {
    const rv = await listRv();
    const readers = await Promise.all([0, 1, 2].map(async () => (await t.request('GET', `${NS}?watch=1&resourceVersion=${rv}`)).body!.getReader()));
    await create('one');
    const single = await Promise.all(readers.map(async (r) => (await r.read()).value!));
    for (let i = 0; i < 3; i++) await create(`c${i}`);
    const run = await Promise.all(readers.map(async (r) => (await r.read()).value!));
    // One event's frame, then one chunk for the three written back to back: the same buffers for every watcher.
    expect(single[1]).toBe(single[0]);
    expect(single[2]).toBe(single[0]);
    expect(run[1]).toBe(run[0]);
    expect(run[2]).toBe(run[0]);
    const lines = new TextDecoder().decode(run[0]).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).object.metadata.name)).toEqual(['c0', 'c1', 'c2']);
    for (const r of readers) await r.cancel();
  });

  it('[API-WATCH-003] [API-WATCH-021] a JSON event is the compact JSON of the object a GET serves, whether a run of events is shared or a selector filters it', async () => {
    const rv = await listRv();
    const all = (await t.request('GET', `${NS}?watch=1&resourceVersion=${rv}`)).body!.getReader();
    const selected = (await t.request('GET', `${NS}?watch=1&resourceVersion=${rv}&labelSelector=app%3Dweb`)).body!.getReader();
    // Text a parse and a stringify would change if it were copied carelessly: non-ASCII, escapes, integer-like keys.
    const data = { b: 'ünïcödé ✓', '10': 'ten', '2': 'two', q: 'a "quoted" \\ line\nbreak' };
    const created = await t.json('POST', NS, { body: { ...cm('text', { app: 'web' }), data } });
    const patched = await mergePatch('text', { data: { b: 'ß' } });
    expect((await t.json('DELETE', `${NS}/text`)).status).toBe(200);
    const readLines = async (reader: ReadableStreamDefaultReader<Uint8Array>, n: number) => {
      const decoder = new TextDecoder();
      let text = '';
      while (text.split('\n').length <= n) text += decoder.decode((await reader.read()).value!, { stream: true });
      return text.split('\n').slice(0, n);
    };
    for (const lines of [await readLines(all, 3), await readLines(selected, 3)]) {
      const events = lines.map((l) => JSON.parse(l) as { type: string; object: any });
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      // Each line is exactly the compact encoding of the event: what JSON.stringify writes for the decoded object.
      for (let i = 0; i < 3; i++) expect(lines[i]).toBe(JSON.stringify(events[i]));
      expect(events[0]!.object).toEqual(created.body);
      expect(events[1]!.object).toEqual(patched);
      expect(events[2]!.object).toEqual({ ...patched, metadata: { ...patched.metadata, resourceVersion: events[2]!.object.metadata.resourceVersion } });
      expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThan(Number(patched.metadata.resourceVersion));
    }
    await all.cancel();
    await selected.cancel();
  });

  it('[API-WATCH-021] events a reader fell behind on arrive together, still one JSON document per line, in order', async () => {
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    for (let i = 0; i < 5; i++) {
      await create(`c${i}`);
      // Yield to the event loop: each write's event is handed to the stream on its own before the next write.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const events = await w.take(5);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual(Array.from({ length: 5 }, (_, i) => ['ADDED', `c${i}`]));
    // Nothing is buffered in the stream before the reader comes: the five queued events are written at once.
    expect(w.chunks).toBe(1);
    w.close();
  });

  it('aborting the request stops the watch and releases its watcher', async () => {
    const base = t.storage.stats().watchers;
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${await listRv()}`);
    await create('c1');
    await w.next();
    expect(t.storage.stats().watchers).toBe(base + 1);
    w.close();
    await flush();
    expect(t.storage.stats().watchers).toBe(base);
    expect(await w.rest()).toEqual([]);
  });
});

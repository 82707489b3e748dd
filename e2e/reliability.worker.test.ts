/**
 * The service-worker host in Chromium, stopped through the DevTools protocol
 * (ServiceWorker.stopAllWorkers) while the page writes and watches. Every
 * acknowledged write is in IndexedDB (a freshly started worker serves it at
 * its resourceVersion), and the page's watch, resumed from its last
 * resourceVersion after each stop, sees every write exactly once, in order.
 * And deterministically: a write held inside the worker (/debug/kubesim/
 * hold-write) before or after IndexedDB commits it, the worker stopped
 * there: the fresh worker's store has the object exactly when it was
 * committed, resourceVersions keep increasing, and the store keeps working.
 */
import type { CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, workbenchReady, type Workbench } from './support/browser';
import { recordFigures } from './support/reliability';

const STOPS = Number(process.env.KUBESIM_WORKER_STOPS ?? 3);
const WRITES = 60;

let wb: Workbench;
let cdp: CDPSession;
/** How many times the activated worker was seen stopped (the page's requests start it again at once). */
let stopped = 0;

beforeAll(async () => {
  wb = await openWorkbench();
  await wb.page.goto(wb.baseUrl);
  await workbenchReady(wb.page);
  cdp = await wb.context.newCDPSession(wb.page);
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    if (versions.some((v) => v.runningStatus === 'stopped' && v.status === 'activated')) stopped++;
  });
  await cdp.send('ServiceWorker.enable');
});

afterAll(async () => {
  await cdp?.detach().catch(() => undefined);
  await wb?.close();
});

async function stopWorker(): Promise<void> {
  const before = stopped;
  await cdp.send('ServiceWorker.stopAllWorkers');
  await expect.poll(() => stopped, { timeout: 30_000 }).toBeGreaterThan(before);
}

interface PageState {
  acks: { name: string; rv: number }[];
  failed: string[];
  events: { type: string; name: string; rv: number }[];
  lastRv: string;
  restarts: number;
  statuses: number[];
  writing: boolean;
}

describe('the service worker stopped mid-write and mid-watch', () => {
  it(`[API-WATCH-031] ${STOPS} stops: acknowledged writes survive in IndexedDB, the resumed watch loses and repeats nothing`, async () => {
    const page = wb.page;
    // In the page: a watcher that resumes from its last resourceVersion whenever its stream breaks, and a writer.
    await page.evaluate(async (writes) => {
      const state: PageState = { acks: [], failed: [], events: [], lastRv: '', restarts: 0, statuses: [], writing: true };
      (window as unknown as { rel: PageState }).rel = state;
      const list = await (await fetch('/api/v1/namespaces/default/configmaps?labelSelector=rel%3Dyes')).json();
      state.lastRv = list.metadata.resourceVersion;
      void (async () => {
        for (;;) {
          try {
            const res = await fetch(`/api/v1/namespaces/default/configmaps?watch=1&labelSelector=rel%3Dyes&allowWatchBookmarks=true&resourceVersion=${state.lastRv}`);
            state.statuses.push(res.status);
            if (res.status === 200) {
              const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
              let rest = '';
              for (;;) {
                const { done, value } = await reader.read();
                if (done) break;
                const lines = (rest + value).split('\n');
                rest = lines.pop()!;
                for (const line of lines.filter(Boolean)) {
                  const e = JSON.parse(line) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
                  state.lastRv = e.object.metadata.resourceVersion;
                  if (e.type !== 'BOOKMARK') state.events.push({ type: e.type, name: e.object.metadata.name, rv: Number(state.lastRv) });
                }
              }
            }
          } catch {
            // The stream broke with the worker.
          }
          state.restarts++;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      void (async () => {
        for (let i = 0; i < writes; i++) {
          const name = `rel-${i}`;
          try {
            const res = await fetch('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name, labels: { rel: 'yes' } }, data: { i: String(i) } }) });
            if (res.status === 201) state.acks.push({ name, rv: Number((await res.json()).metadata.resourceVersion) });
            else state.failed.push(`${name}: ${res.status}`);
          } catch {
            state.failed.push(`${name}: network`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        state.writing = false;
      })();
    }, WRITES);

    const state = () => page.evaluate(() => (window as unknown as { rel: PageState }).rel);
    // Stop the worker at spread points of the run, each time once more writes were acknowledged.
    for (let s = 1; s <= STOPS; s++) {
      await expect.poll(async () => (await state()).acks.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(Math.floor((s * WRITES) / (STOPS + 1)));
      await stopWorker();
    }
    await expect.poll(async () => (await state()).writing, { timeout: 120_000 }).toBe(false);
    const written = await state();
    // The watch catches up with every acknowledged write.
    const lastAck = Math.max(...written.acks.map((a) => a.rv));
    await expect.poll(async () => Math.max(0, ...(await state()).events.map((e) => e.rv)), { timeout: 60_000 }).toBeGreaterThanOrEqual(lastAck);
    const final = await state();

    // Exactly once, in revision order.
    for (let i = 1; i < final.events.length; i++) expect(final.events[i]!.rv).toBeGreaterThan(final.events[i - 1]!.rv);
    const seen = new Map(final.events.map((e) => [e.name, e]));
    for (const ack of final.acks) expect(seen.get(ack.name), ack.name).toMatchObject({ type: 'ADDED', rv: ack.rv });
    expect(final.events.every((e) => e.type === 'ADDED')).toBe(true);
    expect(final.statuses.every((s) => s === 200), `watch answers: ${final.statuses.join(',')}`).toBe(true);

    // Acknowledged writes are in IndexedDB: a worker started after one more stop serves each at its resourceVersion.
    await stopWorker();
    const stored = await page.evaluate(async () => {
      const list = await (await fetch('/api/v1/namespaces/default/configmaps?labelSelector=rel%3Dyes')).json();
      return (list.items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => ({ name: i.metadata.name, rv: Number(i.metadata.resourceVersion) }));
    });
    const byName = new Map(stored.map((s) => [s.name, s.rv]));
    for (const ack of final.acks) expect(byName.get(ack.name), ack.name).toBe(ack.rv);

    recordFigures(
      'worker',
      { stopsSurvived: STOPS + 1, acknowledgedWrites: final.acks.length, writesCutOff: final.failed.length, watchRestarts: final.restarts, eventsSeen: final.events.length, eventsLost: 0, eventsRepeated: 0 },
      `KUBESIM_WORKER_STOPS=${STOPS} npx vitest run --project e2e e2e/reliability.worker.test.ts`,
    );
  }, 300_000);
});

describe('the service worker stopped with a write held open inside it', () => {
  // Chromium dispatches a fetch event again to a restarted worker when the worker handling it stops before
  // answering, so the page's create is retried once, transparently: what the retry meets shows what the
  // stopped worker left in IndexedDB.
  it.each([
    ['before-commit', 'status 201', 'nothing: the retry creates the object'],
    ['after-commit', 'status 409 AlreadyExists', 'the committed object: the retry finds it'],
  ] as const)('held %s, worker stopped: the page gets %s (%s), revisions go on', async (phase, answer, _why) => {
    const page = wb.page;
    const name = `held-${phase}`;
    const key = `/registry/configmaps/default/${name}`;
    const before = await page.evaluate(async () => Number((await (await fetch('/api/v1/namespaces/default/configmaps')).json()).metadata.resourceVersion));
    const armed = await page.evaluate(async ({ phase, key }) => (await fetch(`/debug/kubesim/hold-write?phase=${phase}&key=${key}`, { method: 'POST' })).status, { phase, key });
    expect(armed).toBe(200);
    // The page sends the create; it stays unanswered while the worker holds it.
    await page.evaluate((name) => {
      const w = window as unknown as { heldWrite?: Promise<string> };
      w.heldWrite = fetch('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { a: 'b' } }) })
        .then(async (r) => `status ${r.status}${r.status === 201 ? '' : ` ${((await r.json()) as { reason: string }).reason}`}`, (e: unknown) => `network error: ${String(e)}`);
    }, name);
    await expect.poll(() => page.evaluate(async () => ((await (await fetch('/debug/kubesim/hold-write')).json()) as { held?: string }).held), { timeout: 30_000 }).toBe(key);
    // The object is in IndexedDB now exactly when the hold is after the commit.
    const whileHeld = await page.evaluate(async (key) => (await fetch(`/debug/kubesim/storage${key}`)).status, key);
    expect(whileHeld).toBe(phase === 'after-commit' ? 200 : 404);

    await stopWorker();
    expect(await page.evaluate(() => (window as unknown as { heldWrite: Promise<string> }).heldWrite)).toBe(answer);

    // A fresh worker reads IndexedDB: one object, stored once, at a revision after the run's start.
    const got = await page.evaluate(async (name) => {
      const r = await fetch(`/api/v1/namespaces/default/configmaps/${name}`);
      return { status: r.status, body: (await r.json()) as { metadata: { resourceVersion: string }; data: Record<string, string> } };
    }, name);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ a: 'b' });
    const rv = Number(got.body.metadata.resourceVersion);
    expect(rv).toBeGreaterThan(before);
    // The hold did not survive the restart, and writes go on at later revisions.
    expect(await page.evaluate(async () => (await fetch('/debug/kubesim/hold-write')).json())).toEqual({});
    const next = await page.evaluate(async (name) => {
      const r = await fetch('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: `${name}-next` }, data: { a: 'c' } }) });
      return { status: r.status, rv: Number(((await r.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion) };
    }, name);
    expect(next.status).toBe(201);
    expect(next.rv).toBeGreaterThan(rv);
  }, 120_000);
});

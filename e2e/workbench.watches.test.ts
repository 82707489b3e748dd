/**
 * Watches served by the service worker end when their page stops reading, in
 * real Chromium on the production build: when the page closes, navigates
 * away or aborts its fetch, Chromium cancels the worker's response body (and
 * aborts the FetchEvent's request), and the fetch handler turns that into an
 * abort of the core's Request, which stops its watcher
 * (src/sw/fetchHandler.ts), as a closed socket does under the Node host.
 *
 * Two things are checked: that the worker cancelled the core's watch body
 * (the fetch handler's reader of it, counted by a wrapper installed in the
 * worker: without the cancel the core's watcher would stay registered), and
 * that no event reaches a watch any more (the worker's
 * apiserver_watch_events_total for configmaps counts every event written to
 * a watch response as its reader pulls it). The driving page is a document the worker controls that
 * is not the workbench (the favicon: any other path of the app, /api/...
 * included, navigates to the workbench itself), so it holds no watch.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, workbenchReady, type Workbench } from './support/browser';

let workbench: Workbench;
let driver: Page;
let created = 0;

/** ConfigMap watch events the worker has sent so far. */
async function configMapWatchEvents(): Promise<number> {
  const text = await driver.evaluate(async () => (await fetch('/metrics')).text());
  const match = /^apiserver_watch_events_total\{group="",version="v1",resource="configmaps"\} (\d+)$/m.exec(text);
  return Number(match?.[1] ?? 0);
}

/** Creates one ConfigMap in default and returns how many watch events it caused. */
async function eventsForOneCreate(): Promise<number> {
  const before = await configMapWatchEvents();
  const status = await driver.evaluate(async (name) => {
    const res = await fetch('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
    await res.text();
    return res.status;
  }, `watched-${created++}`);
  expect(status).toBe(201);
  // Let the worker deliver the event to whatever still watches before counting.
  await driver.waitForTimeout(250);
  return (await configMapWatchEvents()) - before;
}

/** Watch bodies of the core the worker's fetch handler cancelled so far. */
async function watchesEndedInWorker(): Promise<number> {
  return workbench.context.serviceWorkers()[0]!.evaluate(() => (globalThis as { cancelledBodies?: number }).cancelledBodies ?? -1);
}

/** Waits until count more core watch bodies were cancelled than before, and no create reaches a watch. */
async function expectWatchesEnded(before: number, count: number): Promise<void> {
  await expect.poll(watchesEndedInWorker, { timeout: 30_000 }).toBeGreaterThanOrEqual(before + count);
  await expect.poll(eventsForOneCreate, { timeout: 30_000 }).toBe(0);
}

async function openWorkbenchPage(): Promise<Page> {
  const page = await workbench.context.newPage();
  await page.goto(workbench.baseUrl);
  await workbenchReady(page);
  await page.getByTestId('namespace-item').and(page.locator('[data-name="default"]')).click();
  await page.getByTestId('kind-select').selectOption('/v1/configmaps');
  // Its list of ConfigMaps in default is followed by a watch: a create reaches it.
  await expect.poll(eventsForOneCreate, { timeout: 30_000 }).toBeGreaterThan(0);
  return page;
}

beforeAll(async () => {
  workbench = await openWorkbench();
  driver = workbench.page;
  await driver.goto(workbench.baseUrl);
  await workbenchReady(driver);
  await driver.goto(`${workbench.baseUrl}/favicon.svg`);
  expect(await driver.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  // Counts cancels of stream readers in the worker: the fetch handler reads every streaming body of the core (watches).
  await workbench.context.serviceWorkers()[0]!.evaluate(() => {
    const g = globalThis as { cancelledBodies?: number };
    g.cancelledBodies = 0;
    const cancel = ReadableStreamDefaultReader.prototype.cancel;
    ReadableStreamDefaultReader.prototype.cancel = function (this: ReadableStreamDefaultReader, reason?: unknown) {
      g.cancelledBodies!++;
      return cancel.call(this, reason);
    };
  });
});

afterAll(async () => {
  await workbench?.close();
});

describe('watches through the service worker', () => {
  it('the watches of a closed workbench page end in the worker', async () => {
    const page = await openWorkbenchPage();
    const before = await watchesEndedInWorker();
    await page.close();
    // Its watches: namespaces and the ConfigMaps of default.
    await expectWatchesEnded(before, 2);
  });

  it('the watches of a page that navigated away end in the worker', async () => {
    const page = await openWorkbenchPage();
    const before = await watchesEndedInWorker();
    await page.goto(`${workbench.baseUrl}/favicon.svg`);
    await expectWatchesEnded(before, 2);
    await page.close();
  });

  it('a watch the workbench drops (another namespace) ends in the worker while the page stays open', async () => {
    const page = await openWorkbenchPage();
    const before = await watchesEndedInWorker();
    await page.getByTestId('namespace-item').and(page.locator('[data-name="kube-system"]')).click();
    await page.locator('[data-testid="resource-row"][data-name="kube-root-ca.crt"]').waitFor();
    // Creates in default reach no watch: the dropped one is gone, the new one is on kube-system.
    await expectWatchesEnded(before, 1);
    await page.close();
  });

  it('a watch a page aborts with fetch ends in the worker while the page stays open', async () => {
    const page = await workbench.context.newPage();
    await page.goto(`${workbench.baseUrl}/favicon.svg`);
    await page.evaluate(async () => {
      const stop = new AbortController();
      (globalThis as { stopWatch?: () => void }).stopWatch = () => stop.abort();
      await fetch('/api/v1/namespaces/default/configmaps?watch=1', { signal: stop.signal });
    });
    await expect.poll(eventsForOneCreate, { timeout: 30_000 }).toBe(1);
    const before = await watchesEndedInWorker();
    await page.evaluate(() => (globalThis as { stopWatch?: () => void }).stopWatch?.());
    await expectWatchesEnded(before, 1);
    await page.close();
  });

  it('a watch whose reader the page cancels ends in the worker', async () => {
    const page = await workbench.context.newPage();
    await page.goto(`${workbench.baseUrl}/favicon.svg`);
    await page.evaluate(async () => {
      const res = await fetch('/api/v1/namespaces/default/configmaps?watch=1');
      (globalThis as { reader?: ReadableStreamDefaultReader }).reader = res.body!.getReader();
    });
    await expect.poll(eventsForOneCreate, { timeout: 30_000 }).toBe(1);
    const before = await watchesEndedInWorker();
    await page.evaluate(() => (globalThis as { reader?: ReadableStreamDefaultReader }).reader?.cancel());
    await expectWatchesEnded(before, 1);
    await page.close();
  });
});

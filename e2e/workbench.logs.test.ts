/**
 * The Logs view in real Chromium, on a tab whose server runs a simulated
 * node: a Pod's container log as `kubectl logs` reads it, through the
 * service worker. kubectl's default container first in the picker, a
 * container picked from Describe, follow on by default and the request
 * aborted when the view closes, refusals as kubectl prints them (no
 * previous run, a kubelet that is down) and the log read again once the
 * container starts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';

let wb: Workbench;
let sim: BrowserProfile;
let page: Page;

beforeAll(async () => {
  wb = await openWorkbench();
  sim = await wb.openProfile({ 'kubesim.simulatedNodes': '1' });
  page = sim.page;
  await page.goto(wb.baseUrl);
  await workbenchReady(page);
});

afterAll(async () => {
  await wb?.close();
});

/** A request made by the page itself (through the worker), as the workbench's user. */
function pageRequest(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<number> {
  return page.evaluate(
    async ({ method, path, body, contentType }) => (await fetch(path, { method, headers: { 'Content-Type': contentType }, body: body === undefined ? undefined : JSON.stringify(body) })).status,
    { method, path, body, contentType },
  );
}

const pod = (name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec });
const PAIR_POD = pod('pair', { containers: [{ name: 'web', image: 'nginx:1.27' }, { name: 'tail', image: 'busybox', command: ['sleep', '3600'] }], initContainers: [{ name: 'setup', image: 'busybox' }] }, { 'kubectl.kubernetes.io/default-container': 'tail' });

const pods = '/api/v1/namespaces/default/pods';
const logsOutput = () => page.getByTestId('logs-output');
const logsPhase = () => page.getByTestId('logs-state').getAttribute('data-phase');
const logsCommand = () => page.getByTestId('logs-command').textContent();
const logsError = () => page.getByTestId('logs-error').textContent();
const pickerOptions = () => page.getByTestId('logs-container').locator('option').allTextContents();

async function openPod(name: string): Promise<void> {
  await page.getByTestId('tab-resources').click();
  await page.getByTestId('kind-select').selectOption('/v1/pods');
  const row = page.locator(`[data-testid="resource-row"][data-name="${name}"]`);
  await row.waitFor({ timeout: 30_000 });
  await row.getByTestId('open-object').click();
  await page.locator(`[data-testid="object-detail"][data-name="${name}"]`).waitFor();
}

async function setKubelet(stopped: boolean): Promise<void> {
  const body = { metadata: { annotations: { 'kubesim.io/kubelet': stopped ? 'stopped' : null } } };
  expect(await pageRequest('PATCH', '/api/v1/nodes/node-1', body, 'application/merge-patch+json')).toBe(200);
}

describe('Logs view of a Pod', () => {
  it('picks kubectl\'s default container (the default-container annotation\'s) and lists the rest as kubectl does; follow is on and the stream opens', async () => {
    await expect.poll(() => pageRequest('GET', '/api/v1/namespaces/default/serviceaccounts/default'), { timeout: 30_000 }).toBe(200);
    expect(await pageRequest('POST', pods, PAIR_POD)).toBe(201);
    await openPod('pair');
    await page.getByTestId('view-logs').click();
    expect(await page.getByTestId('view-logs').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(pickerOptions, { timeout: 30_000 }).toEqual(['tail', 'web', 'setup (init)']);
    expect(await page.getByTestId('logs-container').inputValue()).toBe('tail');
    expect(await page.getByTestId('logs-follow').isChecked()).toBe(true);
    expect(await logsCommand()).toBe('kubectl logs pair -n default -c tail -f');
    // Running, writing nothing yet: the follow stream is open and the log empty.
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('open');
    expect(await logsOutput().textContent()).toBe('');
  });

  it('a completed init container is not followed; its log reads to the end', async () => {
    await page.getByTestId('logs-container').selectOption('setup');
    expect(await page.getByTestId('logs-follow').isChecked()).toBe(false);
    expect(await logsCommand()).toBe('kubectl logs pair -n default -c setup');
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('ended');
  });

  it('previous for a container that never ended is refused as kubectl prints it, and asks again when the options change', async () => {
    await page.getByTestId('logs-container').selectOption('web');
    await page.getByTestId('logs-previous').check();
    await expect.poll(logsError, { timeout: 30_000 }).toBe('Error from server (BadRequest): previous terminated container "web" in pod "pair" not found');
    expect(await logsCommand()).toBe('kubectl logs pair -n default -c web -f -p');
    await page.getByTestId('logs-previous').uncheck();
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('open');
    expect(await page.getByTestId('logs-error').count()).toBe(0);
  });

  it('the logs action of a container in Describe opens that container\'s log; closing the view aborts the follow stream', async () => {
    await page.getByTestId('view-describe').click();
    const aborted = page.waitForEvent('requestfailed', { predicate: (r) => r.url().includes('/pods/pair/log?container=web'), timeout: 30_000 });
    await page.locator('[data-testid="container"][data-name="web"]').getByTestId('container-logs').click();
    expect(await page.getByTestId('view-logs').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('logs-container').inputValue()).toBe('web');
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('open');
    await page.getByTestId('view-yaml').click();
    expect((await aborted).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
  });

  it('a pod on a node whose kubelet is down shows the API server\'s error; once the kubelet runs the container, the log is read again', async () => {
    await setKubelet(true);
    try {
      expect(await pageRequest('POST', pods, pod('late', { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] }))).toBe(201);
      await openPod('late');
      await page.getByTestId('view-logs').click();
      await expect.poll(logsError, { timeout: 30_000 }).toMatch(/^Error from server: Get "https:\/\/node-1:10250\/containerLogs\/default\/late\/app\?follow=true": dial tcp/);
    } finally {
      await setKubelet(false);
    }
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('open');
    expect(await page.getByTestId('logs-error').count()).toBe(0);
  });

  it('fits 1280 wide, and no console errors or page errors', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });
});

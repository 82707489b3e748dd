/**
 * The Logs view in real Chromium, on a tab whose server runs a simulated
 * node: a Pod's container log as `kubectl logs` reads it, through the
 * service worker. kubectl's default container first in the picker, a
 * container picked from Describe, follow on by default and the request
 * aborted when the view closes, refusals as kubectl prints them (no
 * previous run, a kubelet that is down) and the log read again once the
 * container starts. Then, on a fake clock moved by the test, what the user
 * sees of a container writing a line a second: lines arriving while
 * following, follow off and on, timestamps as `kubectl logs --timestamps`
 * prints them, a tail typed in (one request for the number typed), the
 * output kept scrolled to the newest line until the user scrolls up, and a
 * crashed container's previous run.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, pageRequest, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';

let wb: Workbench;
let sim: BrowserProfile;
/** The page the helpers act on: the simulated nodes' profile, then the fake clock's. */
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
  expect(await pageRequest(page, 'PATCH', '/api/v1/nodes/node-1', body, 'application/merge-patch+json')).toBe(200);
}

describe('Logs view of a Pod', () => {
  it('picks kubectl\'s default container (the default-container annotation\'s) and lists the rest as kubectl does; follow is on and the stream opens', async () => {
    await expect.poll(() => pageRequest(page, 'GET', '/api/v1/namespaces/default/serviceaccounts/default'), { timeout: 30_000 }).toBe(200);
    expect(await pageRequest(page, 'POST', pods, PAIR_POD)).toBe(201);
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
      expect(await pageRequest(page, 'POST', pods, pod('late', { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] }))).toBe(201);
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

/** The fake clock's start: a whole second, so the lines' times are whole milliseconds after it. */
const CLOCK_START = '2026-03-01T10:00:00Z';
const COUNTER = pod('counter', { containers: [{ name: 'count', image: 'busybox', command: ['sh', '-c', 'i=0; while true; do echo line $i; i=$((i+1)); sleep 1; done'] }] });
const CRASHER = pod('crasher', { containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'echo first run; exit 3'] }] });

/** The first n lines the counter writes. */
const counted = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`).join('\n');

/** Moves the tab's server clock (the containers' time) forward. */
async function advance(duration: string): Promise<void> {
  expect(await pageRequest(page, 'POST', `/debug/kubesim/clock?advance=${duration}`)).toBe(200);
}

/** A GET's body as the server answers it to the page (a log as `kubectl logs` would print it). */
function serverLog(path: string): Promise<string> {
  return page.evaluate(async (p) => (await fetch(p)).text(), path);
}

/** The pods/log requests the Logs view made for a pod (it asks for JSON errors, the test's own fetches do not), in order, as their query strings. */
function logRequests(p: Page, name: string): string[] {
  const seen: string[] = [];
  p.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === `/api/v1/namespaces/default/pods/${name}/log` && r.headers()['accept'] === 'application/json, */*') seen.push(url.search);
  });
  return seen;
}

async function restartCount(name: string): Promise<number> {
  const pod = JSON.parse(await serverLog(`/api/v1/namespaces/default/pods/${name}`)) as { status?: { containerStatuses?: { restartCount: number }[] } };
  return pod.status?.containerStatuses?.[0]?.restartCount ?? -1;
}

const outputText = () => logsOutput().textContent();
const scrollGap = () => logsOutput().evaluate((el) => ({ overflow: el.scrollHeight - el.clientHeight, fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, top: el.scrollTop }));

describe('What the Logs view shows of a container writing a line a second (fake clock)', () => {
  let clk: BrowserProfile;
  let counterRequests: string[];

  beforeAll(async () => {
    clk = await wb.openProfile({ 'kubesim.simulatedNodes': '1', 'kubesim.fakeClock': CLOCK_START });
    page = clk.page;
    counterRequests = logRequests(page, 'counter');
    await page.goto(wb.baseUrl);
    await workbenchReady(page);
  });

  it('following, each line shows as the container writes it, over the one request', async () => {
    await expect.poll(() => pageRequest(page, 'GET', '/api/v1/namespaces/default/serviceaccounts/default'), { timeout: 30_000 }).toBe(200);
    expect(await pageRequest(page, 'POST', pods, COUNTER)).toBe(201);
    await openPod('counter');
    await page.getByTestId('view-logs').click();
    await expect.poll(logsPhase, { timeout: 30_000 }).toBe('open');
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count -f');
    // The first line is written as the container starts; the next ones a second and a few commands apart, so half a second on each line is due at a whole second.
    await expect.poll(outputText).toBe(counted(0, 1));
    await advance('500ms');
    await advance('1s');
    await expect.poll(outputText).toBe(counted(0, 2));
    await advance('1s');
    await expect.poll(outputText).toBe(counted(0, 3));
    await advance('2s');
    await expect.poll(outputText).toBe(counted(0, 5));
    expect(await logsPhase()).toBe('open');
    expect(counterRequests).toEqual(['?container=count&follow=true']);
  });

  it('follow off aborts the stream and reads the log to its end: no more lines arrive; on again it reads it all and follows', async () => {
    const aborted = page.waitForEvent('requestfailed', { predicate: (r) => r.url().endsWith('/pods/counter/log?container=count&follow=true'), timeout: 30_000 });
    await page.getByTestId('logs-follow').uncheck();
    expect((await aborted).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count');
    await expect.poll(logsPhase).toBe('ended');
    expect(await outputText()).toBe(counted(0, 5));
    await advance('2s');
    // The container wrote two more lines (the server has them); the view, not following, shows none of them.
    await expect.poll(() => serverLog('/api/v1/namespaces/default/pods/counter/log?container=count')).toBe(`${counted(0, 7)}\n`);
    expect(await outputText()).toBe(counted(0, 5));
    expect(await logsPhase()).toBe('ended');
    expect(await page.getByTestId('logs-state').textContent()).toBe('End of the log.');

    await page.getByTestId('logs-follow').check();
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count -f');
    await expect.poll(outputText).toBe(counted(0, 7));
    await expect.poll(logsPhase).toBe('open');
    await advance('1s');
    await expect.poll(outputText).toBe(counted(0, 8));
    expect(counterRequests).toEqual(['?container=count&follow=true', '?container=count', '?container=count&follow=true']);
  });

  it('timestamps: each line after the RFC 3339 time it was written, as kubectl logs --timestamps prints it, and off again', async () => {
    // Clicked, the view shows nothing of the log it read without timestamps (the output is read in the same task as the click).
    const shownAtClick = await page.evaluate(() => {
      document.querySelector<HTMLInputElement>('[data-testid="logs-timestamps"]')!.click();
      return document.querySelector('[data-testid="logs-output"]')?.textContent;
    });
    expect(shownAtClick).toBe('');
    expect(await page.getByTestId('logs-timestamps').isChecked()).toBe(true);
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count -f --timestamps');
    const expected = (await serverLog('/api/v1/namespaces/default/pods/counter/log?container=count&timestamps=true')).trimEnd();
    await expect.poll(outputText).toBe(expected);
    const lines = expected.split('\n');
    expect(lines).toHaveLength(8);
    // The container started as the clock did: its first line has the start's time, a whole second (no fraction).
    expect(lines[0]).toBe(`${CLOCK_START} line 0`);
    const times = lines.map((line, i) => {
      const [time, ...rest] = line.split(' ');
      expect(rest.join(' ')).toBe(`line ${i}`);
      // RFC3339Nano: UTC, a fraction without trailing zeros (none at all on a whole second).
      expect(time).toMatch(/^2026-03-01T10:00:\d\d(\.\d*[1-9])?Z$/);
      return Date.parse(time!);
    });
    // A second's sleep and a few commands between lines, on the clock that started at CLOCK_START.
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
    expect(times[0]).toBeGreaterThanOrEqual(Date.parse(CLOCK_START));
    await advance('1s');
    await expect.poll(async () => (await outputText())?.split('\n').at(-1)).toMatch(/^2026-03-01T10:00:\d\d(\.\d*[1-9])?Z line 8$/);
    await page.getByTestId('logs-timestamps').uncheck();
    await expect.poll(outputText).toBe(counted(0, 9));
  });

  it('tail: one request for the number typed, not one a keystroke; only its last lines, then new ones as they come; Enter applies at once; empty is all', async () => {
    const before = counterRequests.length;
    await page.getByTestId('logs-tail').pressSequentially('10');
    await expect.poll(() => counterRequests.slice(before)).toEqual(['?container=count&follow=true&tailLines=10']);
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count -f --tail=10');
    await expect.poll(outputText).toBe(counted(0, 9));
    await advance('4s');
    await expect.poll(outputText).toBe(counted(0, 13));
    await page.getByTestId('logs-tail').fill('3');
    await page.getByTestId('logs-tail').press('Enter');
    await expect.poll(outputText).toBe(counted(10, 13));
    expect(await logsCommand()).toBe('kubectl logs counter -n default -c count -f --tail=3');
    await advance('1s');
    await expect.poll(outputText).toBe(counted(10, 14));
    await page.getByTestId('logs-tail').fill('');
    await page.getByTestId('logs-tail').blur();
    await expect.poll(outputText).toBe(counted(0, 14));
    expect(counterRequests.slice(before)).toEqual(['?container=count&follow=true&tailLines=10', '?container=count&follow=true&tailLines=3', '?container=count&follow=true']);
  });

  it('the output stays scrolled to the newest line as lines arrive; scrolled up, it stays put and offers the way back with the count of new lines', async () => {
    await advance('60s');
    await expect.poll(outputText).toBe(counted(0, 74));
    const filled = await scrollGap();
    expect(filled.overflow).toBeGreaterThan(0);
    expect(filled.fromBottom).toBeLessThanOrEqual(1);
    await advance('5s');
    await expect.poll(outputText).toBe(counted(0, 79));
    expect((await scrollGap()).fromBottom).toBeLessThanOrEqual(1);
    expect(await page.getByTestId('logs-to-newest').count()).toBe(0);

    // Scrolled up at once (a wheel may scroll smoothly, still moving when the position is read).
    await logsOutput().evaluate((el) => el.scrollBy({ top: -300, behavior: 'instant' }));
    await expect.poll(() => page.getByTestId('logs-to-newest').textContent()).toBe('↓ Newest line');
    expect(await page.getByTestId('logs-output-box').getAttribute('data-pinned')).toBe('false');
    const readingAt = (await scrollGap()).top;
    expect((await scrollGap()).fromBottom).toBeGreaterThan(100);
    await advance('3s');
    await expect.poll(outputText).toBe(counted(0, 82));
    await expect.poll(() => page.getByTestId('logs-to-newest').textContent()).toBe('↓ 3 new lines');
    expect((await scrollGap()).top).toBe(readingAt);

    await page.getByTestId('logs-to-newest').click();
    await expect.poll(async () => (await scrollGap()).fromBottom).toBeLessThanOrEqual(1);
    expect(await page.getByTestId('logs-to-newest').count()).toBe(0);
    expect(await page.getByTestId('logs-output-box').getAttribute('data-pinned')).toBe('true');
    await advance('2s');
    await expect.poll(outputText).toBe(counted(0, 84));
    expect((await scrollGap()).fromBottom).toBeLessThanOrEqual(1);

    // Scrolling back down with the wheel follows again too.
    await logsOutput().hover();
    await page.mouse.wheel(0, -300);
    await page.getByTestId('logs-to-newest').waitFor();
    await page.mouse.wheel(0, 1000);
    await page.getByTestId('logs-to-newest').waitFor({ state: 'detached' });
    await advance('1s');
    await expect.poll(outputText).toBe(counted(0, 85));
    expect((await scrollGap()).fromBottom).toBeLessThanOrEqual(1);
  });

  it('previous: a crashed container\'s last run, read again after each restart (its time tells the runs apart); without previous, the log of the run that ended', async () => {
    expect(await pageRequest(page, 'POST', pods, CRASHER)).toBe(201);
    await openPod('crasher');
    await page.getByTestId('view-logs').click();
    await page.getByTestId('logs-timestamps').check();
    await page.getByTestId('logs-previous').check();
    expect(await logsCommand()).toBe('kubectl logs crasher -n default -c app -f -p --timestamps');
    // The script ends as it starts: the container crashes at once, and the kubelet backs off 10s before running it again.
    // The run's time as the output shows it (read where the poll reads it: a watch event may have the view ask again).
    const runTime = async () => /^(\S+Z) first run$/.exec((await outputText()) ?? '')?.[1] ?? '';
    let firstRun = '';
    await expect.poll(async () => (firstRun = await runTime()), { timeout: 30_000 }).toMatch(/^2026-03-01T10:0\d:\d\d(\.\d*[1-9])?Z$/);
    expect(await page.getByTestId('logs-error').count()).toBe(0);
    await expect.poll(logsPhase).toBe('ended');
    await advance('10s');
    await expect.poll(() => restartCount('crasher'), { timeout: 30_000 }).toBe(2);
    // The view asks again for the run that ended last: the same line, written after the back-off.
    await expect.poll(async () => Date.parse(await runTime()) - Date.parse(firstRun), { timeout: 30_000 }).toBeGreaterThanOrEqual(10_000);
    await page.getByTestId('logs-timestamps').uncheck();
    await expect.poll(outputText).toBe('first run');
    await page.getByTestId('logs-previous').uncheck();
    expect(await logsCommand()).toBe('kubectl logs crasher -n default -c app -f');
    await expect.poll(outputText).toBe('first run');
    expect(await page.getByTestId('logs-error').count()).toBe(0);
  });

  it('no console errors or page errors', async () => {
    expect(clk.errors, clk.errors.join('\n')).toEqual([]);
  });
});

/**
 * The Describe view in real Chromium, on a tab whose server runs a simulated
 * node: a Pod opens described as `kubectl describe pod` shows it (a sidecar
 * init container, states, the kubelet's events, live), an ephemeral
 * container added as `kubectl debug` adds it appears Running, a crashing
 * container shows its restarts, Last State and BackOff; then the same
 * words checked against real kubectl's describe on the Node host.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import type { KubeList, KubeObject } from '../src/ui/api';
import { eventRow, sortEvents } from '../src/ui/features/resources/describe/events';
import { containerGroups } from '../src/ui/features/resources/describe/podDescription';
import { openWorkbench, pageRequest, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';
import { startTestHost, type TestHost } from './support/host';

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

const pod = (name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec });
const SIDECAR_POD = pod('side', { initContainers: [{ name: 'setup', image: 'busybox' }, { name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'nginx:1.27' }] }, { 'example.com/owner': 'team-web' });
const CRASHING_POD = pod('crashes', { containers: [{ name: 'app', image: 'busybox' }] }, { 'kubesim.io/exit-code': '1' });

const container = (name: string) => page.locator(`[data-testid="container"][data-name="${name}"]`);
const eventReasons = () => page.getByTestId('event-row').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-reason')} ${r.querySelectorAll('td')[3]?.textContent} ${r.querySelectorAll('td')[4]?.textContent}`));

async function openPod(name: string): Promise<void> {
  await page.getByTestId('tab-resources').click();
  await page.getByTestId('kind-select').selectOption('/v1/pods');
  const row = page.locator(`[data-testid="resource-row"][data-name="${name}"]`);
  await row.waitFor({ timeout: 30_000 });
  await row.getByTestId('open-object').click();
  await page.locator(`[data-testid="object-detail"][data-name="${name}"]`).waitFor();
}

describe('Describe view of a Pod', () => {
  it('opens first for a Pod: the sidecar is marked among the Init Containers, states, READY 2/2 and the kubelet\'s Started events, live', async () => {
    await expect.poll(() => pageRequest(page, 'GET', '/api/v1/namespaces/default/serviceaccounts/default'), { timeout: 30_000 }).toBe(200);
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/pods', SIDECAR_POD)).toBe(201);
    await openPod('side');
    expect(await page.getByTestId('view-describe').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('object-yaml').count()).toBe(0);
    // The describe view follows the pod's watch: the kubelet's work arrives without a reload.
    await expect.poll(() => page.getByTestId('pod-ready').textContent(), { timeout: 30_000 }).toMatch(/^2\/2 \(Running\)$/);
    expect(await page.getByTestId('container-group').evaluateAll((groups) => groups.map((g) => g.getAttribute('data-title')))).toEqual(['Init Containers', 'Containers']);
    expect(await container('proxy').getByTestId('sidecar').textContent()).toBe('sidecar (restartPolicy: Always)');
    expect(await container('setup').getByTestId('sidecar').count()).toBe(0);
    expect(await container('setup').getByTestId('container-state').getAttribute('data-state')).toBe('Terminated');
    expect(await container('setup').getByTestId('container-state').textContent()).toContain('Completed');
    expect(await container('proxy').getByTestId('container-state').getAttribute('data-state')).toBe('Running');
    expect(await container('app').getByTestId('container-state').getAttribute('data-state')).toBe('Running');
    expect(await container('app').getByTestId('container-ready').textContent()).toBe('True');
    expect(await container('app').getByTestId('container-restarts').textContent()).toBe('0');
    expect(await page.getByTestId('pod-node').textContent()).toMatch(/^node-1\/\S+$/);
    expect(await page.getByTestId('pod-qos').textContent()).toBe('BestEffort');
    await expect.poll(() => page.getByTestId('pod-condition').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-type')}=${r.getAttribute('data-status')}`)), { timeout: 30_000 }).toEqual(
      expect.arrayContaining(['PodScheduled=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True']),
    );
    await expect.poll(async () => (await eventReasons()).filter((r) => r.startsWith('Started ')), { timeout: 30_000 }).toEqual([
      'Started kubelet Started container setup',
      'Started kubelet Started container proxy',
      'Started kubelet Started container app',
    ]);
    expect((await eventReasons())[0]).toMatch(/^Scheduled default-scheduler Successfully assigned default\/side to node-1$/);
    expect(await page.getByTestId('describe-annotations').textContent()).toBe('example.com/owner: team-web');
  });

  it('an ephemeral container patched in as kubectl debug does appears under Ephemeral Containers, Running', async () => {
    const patch = { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } };
    expect(await pageRequest(page, 'PATCH', '/api/v1/namespaces/default/pods/side/ephemeralcontainers', patch, 'application/strategic-merge-patch+json')).toBe(200);
    await expect.poll(() => page.getByTestId('container-group').evaluateAll((groups) => groups.map((g) => g.getAttribute('data-title'))), { timeout: 30_000 }).toEqual(['Init Containers', 'Containers', 'Ephemeral Containers']);
    const debuggerCard = page.locator('[data-testid="container"][data-group="Ephemeral Containers"][data-name="debugger"]');
    await expect.poll(() => debuggerCard.getAttribute('data-state'), { timeout: 30_000 }).toBe('Running');
    // READY still counts the pod's own containers only.
    expect(await page.getByTestId('pod-ready').textContent()).toBe('2/2 (Running)');
    await expect.poll(async () => (await eventReasons()).includes('Started kubelet Started container debugger'), { timeout: 30_000 }).toBe(true);
  });

  it('a crashing container shows its restart count, Last State Terminated Error with exit code 1, and the kubelet\'s BackOff warning', async () => {
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/pods', CRASHING_POD)).toBe(201);
    await openPod('crashes');
    await expect.poll(async () => Number(await container('app').getByTestId('container-restarts').textContent()), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const last = container('app').getByTestId('container-last-state');
    expect(await last.getAttribute('data-state')).toBe('Terminated');
    const details = await last.getByTestId('state-detail').evaluateAll((ds) => ds.map((d) => `${d.getAttribute('data-label')}: ${d.querySelector('dd')?.textContent}`));
    expect(details.slice(0, 2)).toEqual(['Reason: Error', 'Exit Code: 1']);
    expect(details[2]).toMatch(/^Started: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/);
    await expect.poll(() => page.locator('[data-testid="event-row"][data-reason="BackOff"]').getAttribute('data-type'), { timeout: 30_000 }).toBe('Warning');
    expect(await page.locator('[data-testid="event-row"][data-reason="BackOff"] td').nth(4).textContent()).toMatch(/^Back-off restarting failed container app in pod crashes_default\(/);
    expect(await page.getByTestId('pod-ready').textContent()).toMatch(/^0\/1 \((CrashLoopBackOff|Error|Running)\)$/);
  });

  it('the YAML switch shows the object as before; a ConfigMap opens as YAML, its Describe says Events <none>', async () => {
    await page.getByTestId('view-yaml').click();
    expect(await page.getByTestId('object-yaml').textContent()).toContain('name: crashes');
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', labels: { tier: 'web', app: 'shop' } } })).toBe(201);
    await page.getByTestId('kind-select').selectOption('/v1/configmaps');
    const row = page.locator('[data-testid="resource-row"][data-name="settings"]');
    await row.waitFor({ timeout: 30_000 });
    await row.getByTestId('open-object').click();
    await expect.poll(() => page.getByTestId('object-yaml').textContent()).toContain('name: settings');
    expect(await page.getByTestId('view-yaml').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('view-describe').click();
    await page.getByTestId('events-none').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('describe-labels').textContent()).toBe('app=shoptier=web');
    expect(await page.getByTestId('describe-labels').locator('span > span').allTextContents()).toEqual(['app=shop', 'tier=web']);
    expect(await page.getByTestId('pod-description').count()).toBe(0);
  });

  it('fits 1280 wide, and no console errors or page errors', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });
});

describe('the Describe view\'s words, judged by kubectl describe pod', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await startTestHost({ flags: { simulatedNodes: 1 } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('container groups, states, Last State, Ready, Restart Count and the events\' Reason and From match kubectl\'s', async () => {
    await eventually(async () => (await t.kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [SIDECAR_POD, CRASHING_POD] }));
    await eventually(() => t.kubectlOk(['get', 'pods', '--no-headers']), (o) => /^crashes\s+0\/1\s+\S+\s+[1-9]/m.test(o) && /^side\s+2\/2\s+Running/m.test(o), 'side running, crashes restarted');
    for (const name of ['side', 'crashes']) {
      const described = await eventually(() => t.kubectlOk(['describe', 'pod', name]), (o) => /Events:\n[\s\S]*Started/.test(o), `${name}'s events`);
      const object = JSON.parse(await t.kubectlOk(['get', 'pod', name, '-o', 'json'])) as KubeObject;
      // The state lines kubectl prints per container, in order, against the view's.
      const kubectlStates = [...described.matchAll(/^ {4}(State|Last State|Ready|Restart Count):\s+(\S+)/gm)].map((m) => `${m[1]} ${m[2]}`);
      const ours = containerGroups(object).flatMap((g) =>
        g.containers.flatMap((c) => (c.status ? [`State ${c.status.state.state}`, ...(c.status.lastState ? [`Last State ${c.status.lastState.state}`] : []), `Ready ${c.status.ready ? 'True' : 'False'}`, `Restart Count ${c.status.restartCount}`] : [])),
      );
      expect(ours, name).toEqual(kubectlStates);
      const headings = [...described.matchAll(/^(Init Containers|Containers|Ephemeral Containers):/gm)].map((m) => m[1]);
      expect(containerGroups(object).map((g) => g.title)).toEqual(headings);
      const events = (JSON.parse(await t.kubectlOk(['get', 'events', '--field-selector', `involvedObject.uid=${object.metadata!.uid}`, '-o', 'json'])) as KubeList).items;
      const kubectlEvents = [...described.slice(described.indexOf('Events:')).matchAll(/^ {2}(Normal|Warning)\s+(\S+)\s+.+?\s{2,}(\S+)\s{2,}/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
      expect(sortEvents(events).map((e) => eventRow(e, new Date())).map((r) => `${r.type} ${r.reason} ${r.from}`), name).toEqual(kubectlEvents);
    }
  });
});

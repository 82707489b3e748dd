/**
 * The Nodes panel in real Chromium: with no nodes it says how to get
 * simulated ones; switched to two simulated nodes (and a fake clock) over the
 * Access panel, it shows where a Deployment's pods landed, a cordon, a pod
 * that fits nowhere under Pending with the scheduler's message (and its
 * FailedScheduling event in the pod's Describe view), and a node
 * whose kubelet stopped turning Unknown once the clock passes the grace period.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import type { KubeList, KubeObject } from '../src/ui/api';
import { allocatedResources, summarizeNode } from '../src/ui/features/nodes';
import { openWorkbench, pageRequest, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';
import { startTestHost, type TestHost } from './support/host';

let wb: Workbench;
let sim: BrowserProfile;
let page: Page;

beforeAll(async () => {
  wb = await openWorkbench();
  await wb.page.goto(wb.baseUrl);
  await workbenchReady(wb.page);
  // The second profile's server runs on a fake clock, so the node lifecycle controller's 50s grace passes at once.
  sim = await wb.openProfile({ 'kubesim.fakeClock': 'true' });
  page = sim.page;
  await page.goto(wb.baseUrl);
  await workbenchReady(page);
});

afterAll(async () => {
  await wb?.close();
});

const card = (name: string) => page.locator(`[data-testid="node-card"][data-name="${name}"]`);
const boundPods = () => page.locator('[data-testid="node-pod"]').evaluateAll((items) => items.map((i) => `${i.closest('[data-testid="node-card"]')?.getAttribute('data-name')} ${i.getAttribute('data-name')} ${i.getAttribute('data-status')}`));

describe('Nodes panel', () => {
  it('with no nodes, says so and points to the Access panel setting', async () => {
    const p = wb.page;
    await p.getByTestId('tab-nodes').click();
    const empty = p.getByTestId('nodes-empty');
    await empty.waitFor({ timeout: 30_000 });
    expect(await empty.textContent()).toContain('No nodes.');
    expect(await empty.textContent()).toContain('Access panel');
    expect(await empty.textContent()).toContain('Simulated nodes');
    expect(await p.getByTestId('node-card').count()).toBe(0);
    await p.getByTestId('nodes-open-access').click();
    await p.getByTestId('access-nodes').waitFor();
    expect(wb.errors, wb.errors.join('\n')).toEqual([]);
  });

  it('[API-PATH-013] switched to two simulated nodes, shows a card per node, Ready, with only kubeadm\'s coredns pod allocated', async () => {
    await page.getByTestId('tab-access').click();
    await page.getByTestId('access-nodes').selectOption('2');
    await Promise.all([page.waitForEvent('load'), page.getByTestId('access-apply').click()]);
    await workbenchReady(page);
    await page.getByTestId('tab-nodes').click();
    await expect.poll(() => page.getByTestId('node-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-name'))), { timeout: 30_000 }).toEqual(['node-1', 'node-2']);
    for (const name of ['node-1', 'node-2']) {
      await expect.poll(() => card(name).getByTestId('node-ready').getAttribute('data-status'), { timeout: 30_000 }).toBe('Ready');
      expect(await card(name).getByTestId('node-ready-reason').textContent()).toBe('KubeletReady');
      // One of CoreDNS's two pods (100m, 70Mi) on each node; kube-proxy requests nothing.
      await expect.poll(() => card(name).getByTestId('node-cpu').textContent(), { timeout: 30_000 }).toContain('100m (2%) of 4');
      expect(await card(name).getByTestId('node-memory').textContent()).toContain('70Mi (0%) of 16Gi');
    }
  });

  it('[API-OTHER-001] a Deployment\'s pods appear on the node cards as the scheduler binds them and the kubelets run them, their requests counted', async () => {
    expect(
      await pageRequest(page, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '500m', memory: '128Mi' } } }] } },
        },
      }),
    ).toBe(201);
    // Live: the cards follow the pods' watch without a reload.
    await expect.poll(async () => (await boundPods()).filter((p) => /^node-[12] web-\S+ Running$/.test(p)).length, { timeout: 30_000 }).toBe(2);
    // The default spreading puts one replica on each node, beside its coredns pod: 600m of 4 cpu is 15%.
    await expect.poll(() => card('node-1').getByTestId('node-cpu').textContent(), { timeout: 30_000 }).toContain('600m (15%) of 4');
    expect(await card('node-2').getByTestId('node-cpu').textContent()).toContain('600m (15%) of 4');
    expect(await card('node-2').getByTestId('node-memory').textContent()).toContain('198Mi (1%) of 16Gi');
  });

  it('a pod whose container keeps exiting shows the kubelet\'s CrashLoopBackOff on its node, coloured as trouble', async () => {
    expect(
      await pageRequest(page, 'POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'crashes', annotations: { 'kubesim.io/exit-code': '1' } },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      }),
    ).toBe(201);
    const crashing = page.locator('[data-testid="node-pod"][data-name="crashes"]');
    await expect.poll(() => crashing.getAttribute('data-status'), { timeout: 30_000 }).toBe('CrashLoopBackOff');
    expect(await crashing.getAttribute('data-tone')).toBe('bad');
    expect(await crashing.locator('.pod-status').textContent()).toBe('CrashLoopBackOff 0/1');
    expect(await page.locator('[data-testid="node-pod"][data-name^="web-"]').first().getAttribute('data-tone')).toBe('ok');
  });

  it('[API-PATCH-006] cordon patches spec.unschedulable: the card shows SchedulingDisabled; uncordon clears it', async () => {
    await card('node-1').getByTestId('node-cordon').click();
    await card('node-1').getByTestId('node-cordoned').waitFor({ timeout: 30_000 });
    expect(await card('node-1').getByTestId('node-cordoned').textContent()).toBe('SchedulingDisabled');
    expect(await card('node-1').getByTestId('node-command').textContent()).toBe('$ kubectl cordon node-1');
    expect(await card('node-1').getByTestId('node-cordon').textContent()).toBe('Uncordon');
    expect(await card('node-2').getByTestId('node-cordoned').count()).toBe(0);
  });

  it('a pod that fits on no node waits under Pending with the scheduler\'s message, and opens in the Resources panel', async () => {
    expect(
      await pageRequest(page, 'POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'huge' },
        spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100' } } }] },
      }),
    ).toBe(201);
    const pending = page.locator('[data-testid="pending-pod"][data-name="huge"]');
    await pending.waitFor({ timeout: 30_000 });
    await expect.poll(() => pending.getByTestId('pending-message').textContent(), { timeout: 30_000 }).toMatch(/^0\/2 nodes are available: /);
    const message = (await pending.getByTestId('pending-message').textContent()) ?? '';
    // node-1 is cordoned, node-2 is too small.
    expect(message).toContain('1 Insufficient cpu');
    expect(message).toContain("1 node(s) were unschedulable");
    expect(await pending.textContent()).toContain('Unschedulable');
    await pending.getByTestId('open-pod').click();
    expect(await page.getByTestId('tab-resources').getAttribute('aria-selected')).toBe('true');
    // A Pod opens described, with the scheduler's FailedScheduling warning among its events.
    await expect.poll(() => page.locator('[data-testid="object-detail"][data-name="huge"] [data-testid="event-row"][data-reason="FailedScheduling"]').getAttribute('data-type'), { timeout: 30_000 }).toBe('Warning');
    expect(await page.getByTestId('pod-node').textContent()).toBe('<none>');
    await page.getByTestId('view-yaml').click();
    await expect.poll(() => page.getByTestId('object-yaml').textContent(), { timeout: 30_000 }).toContain('name: huge');
    await page.getByTestId('tab-nodes').click();
    await card('node-1').getByTestId('node-cordon').click();
    await expect.poll(() => card('node-1').getByTestId('node-cordoned').count(), { timeout: 30_000 }).toBe(0);
  });

  it('stopping a kubelet annotates the node; once the clock passes the 50s grace the node is Unknown and tainted unreachable', async () => {
    await card('node-2').getByTestId('node-kubelet').click();
    await card('node-2').getByTestId('node-kubelet-stopped').waitFor({ timeout: 30_000 });
    expect(await card('node-2').getByTestId('node-command').textContent()).toBe('$ kubectl annotate node node-2 kubesim.io/kubelet=stopped');
    expect(await card('node-2').getByTestId('node-ready').getAttribute('data-status')).toBe('Ready');
    expect(await pageRequest(page, 'POST', '/debug/kubesim/clock?advance=60s')).toBe(200);
    await expect.poll(() => card('node-2').getByTestId('node-ready').getAttribute('data-status'), { timeout: 30_000 }).toBe('Unknown');
    expect(await card('node-2').getByTestId('node-ready-reason').textContent()).toBe('NodeStatusUnknown');
    await expect.poll(() => card('node-2').getByTestId('node-taint').allTextContents(), { timeout: 30_000 }).toEqual(expect.arrayContaining(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']));
    expect(await card('node-1').getByTestId('node-ready').getAttribute('data-status')).toBe('Ready');
    // Its pods stay bound to it (no kubelet is left to report on them).
    expect((await boundPods()).some((p) => p.startsWith('node-2 web-'))).toBe(true);
  });

  it('[AC-AUTHZ-002] under RBAC, a user who may watch nodes but not patch them sees the 403 Status of the refused cordon', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    // Granted while the server still allows everything; RBAC reads the stored objects after the switch.
    expect(await pageRequest(page, 'POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'node-viewer' }, rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] }] })).toBe(201);
    expect(
      await pageRequest(page, 'POST', `${rbac}/clusterrolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'alice-node-viewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-viewer' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      }),
    ).toBe(201);
    await page.getByTestId('tab-access').click();
    await page.getByTestId('access-tokens').fill('alice-token,alice,2,developers\n');
    await page.getByTestId('access-mode').selectOption('RBAC');
    await page.getByTestId('access-as').selectOption({ label: 'alice' });
    await Promise.all([page.waitForEvent('load'), page.getByTestId('access-apply').click()]);
    await workbenchReady(page);
    await page.getByTestId('tab-nodes').click();
    await card('node-1').waitFor({ timeout: 30_000 });
    await card('node-1').getByTestId('node-cordon').click();
    const error = card('node-1').getByTestId('node-action-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.getAttribute('data-reason')).toBe('Forbidden');
    expect(await error.locator('.status-message').textContent()).toBe('nodes "node-1" is forbidden: User "alice" cannot patch resource "nodes" in API group "" at the cluster scope');
    expect(await card('node-1').getByTestId('node-cordoned').count()).toBe(0);
  });

  it('fits 1280 wide, and no console errors or page errors', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });
});

describe('the node cards\' numbers, judged by kubectl', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await startTestHost({ flags: { simulatedNodes: 1 } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('allocated cpu and memory match `kubectl describe node`\'s Allocated resources, and the ready reason its Conditions', async () => {
    await eventually(async () => (await t.kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    await eventually(() => t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={.items[*].spec.nodeName}']), (o) => o === 'node-1 node-1', 'both coredns pods bound');
    const pod = (name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } } }], ...spec } });
    await t.kubectlOk(['create', '-f', '-'], pod('two', { containers: [{ name: 'a', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } } }, { name: 'b', image: 'nginx', resources: { requests: { cpu: '0.25', memory: '100M' } } }] }));
    await t.kubectlOk(['create', '-f', '-'], pod('init', { initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '333m', memory: '1Gi' } } }], overhead: { cpu: '10m', memory: '5Mi' } }));
    await t.kubectlOk(['create', '-f', '-'], pod('done', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox', resources: { requests: { cpu: '2' } } }] }, { 'kubesim.io/exit-code': '0' }));
    await eventually(() => t.kubectlOk(['get', 'pods', '--no-headers']), (o) => /^done\s+0\/1\s+Completed/m.test(o) && (o.match(/Running/g) ?? []).length === 2, 'two running, one completed');
    const nodeJson = JSON.parse(await t.kubectlOk(['get', 'node', 'node-1', '-o', 'json'])) as KubeObject;
    const pods = (JSON.parse(await t.kubectlOk(['get', 'pods', '-A', '-o', 'json'])) as KubeList).items;
    const described = await t.kubectlOk(['describe', 'node', 'node-1']);
    const allocated = described.slice(described.indexOf('Allocated resources:'));
    for (const a of allocatedResources(nodeJson, pods)) {
      const row = new RegExp(`^\\s+${a.resource}\\s+(\\S+ \\(\\d+%\\))`, 'm').exec(allocated);
      expect(row?.[1], a.resource).toBe(`${a.requests} (${a.percent}%)`);
    }
    // Mi and M summed print as plain bytes, and an init container and overhead count as PodRequests counts them, in both;
    // the cluster's one node also runs both coredns pods (200m, 140Mi).
    expect(allocatedResources(nodeJson, pods).map((a) => `${a.resource} ${a.requests} (${a.percent}%)`)).toEqual(['cpu 1043m (26%)', 'memory 1392894208 (8%)']);
    const ready = summarizeNode(nodeJson).ready;
    expect(described).toMatch(new RegExp(`\\n\\s+Ready\\s+True\\s.*${ready.reason}\\s+${ready.message}`));
  });
});

/**
 * The Network panel in real Chromium: labelled pods in a namespace of their
 * own (no nodes, so no addresses: the label rules decide), a matrix that
 * starts all allowed, a default-deny ingress policy and an allow rule
 * changing the cells as they are created, a cell's explanation naming the
 * policy and rule, a port typed in (over TCP, then UDP as a UDP rule
 * allows), and default-deny egress dropping the cluster DNS column. Then,
 * on a simulated node, a pod that runs to completion leaves the matrix, and
 * the DNS column is judged at kubeadm's coredns pods, as the queries reach them.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, pageRequest, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';

let wb: Workbench;
let page: Page;
const NS = 'shop';
const policies = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;

beforeAll(async () => {
  wb = await openWorkbench();
  page = wb.page;
  await page.goto(wb.baseUrl);
  await workbenchReady(page);
});

afterAll(async () => {
  await wb?.close();
});

const cell = (source: string, target: string) => page.locator(`[data-testid="network-cell"][data-source="${source}"][data-target="${target}"]`);
/** Every cell as `source>target allowed|dropped`. */
const cells = () => page.getByTestId('network-cell').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-source')}>${e.getAttribute('data-target')} ${e.getAttribute('data-allowed') === 'true' ? 'allowed' : 'dropped'}`));
const summary = () => page.getByTestId('network-summary').textContent();

function pod(name: string, labels: Record<string, string>, ports?: { name: string; containerPort: number; protocol: string }[]) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'app', image: 'busybox', ...(ports ? { ports } : {}) }] } };
}

function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec };
}

describe('Network panel', () => {
  it('with no policy every pod of the namespace reaches every other pod and the cluster DNS', async () => {
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).toBe(201);
    for (const p of [pod('web', { app: 'web' }, [{ name: 'http', containerPort: 8080, protocol: 'TCP' }]), pod('frontend', { role: 'frontend' }), pod('client', { role: 'client' })]) {
      expect(await pageRequest(page, 'POST', `/api/v1/namespaces/${NS}/pods`, p)).toBe(201);
    }
    await page.getByTestId('tab-network').click();
    expect(await page.getByTestId('tab-network').textContent()).toBe('Network');
    await page.getByTestId('namespace-item').and(page.locator(`[data-name="${NS}"]`)).click();
    await expect.poll(() => page.getByTestId('network-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-target'))), { timeout: 30_000 }).toEqual(['client', 'frontend', 'web', 'cluster-dns']);
    expect(await cells()).toHaveLength(12);
    expect((await cells()).every((c) => c.endsWith(' allowed'))).toBe(true);
    // Each column starts on its pod's first declared TCP port, 80 when it declares none.
    expect(await page.locator('[data-testid="network-port"][data-target="web"]').inputValue()).toBe('8080/TCP');
    expect(await page.locator('[data-testid="network-port-number"][data-target="client"]').inputValue()).toBe('80');
    expect(await page.getByTestId('network-policies').textContent()).toContain('None: no pod is isolated');
    await cell('client', 'web').click();
    expect(await summary()).toBe(
      'Allowed: client is not isolated for egress: no policy selects it with policyType Egress, so nothing is held back. web is not isolated for ingress: no policy selects it with policyType Ingress, so nothing is held back.',
    );
  });

  it('a default-deny ingress policy drops every connection between the pods; an allow rule lets frontend back into web on its named port', async () => {
    expect(await pageRequest(page, 'POST', policies, policy('default-deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }))).toBe(201);
    await expect.poll(() => cell('client', 'web').getAttribute('data-allowed'), { timeout: 30_000 }).toBe('false');
    expect(await cells()).toEqual([
      'client>client allowed',
      'client>frontend dropped',
      'client>web dropped',
      'client>cluster-dns allowed',
      'frontend>client dropped',
      'frontend>frontend allowed',
      'frontend>web dropped',
      'frontend>cluster-dns allowed',
      'web>client dropped',
      'web>frontend dropped',
      'web>web allowed',
      'web>cluster-dns allowed',
    ]);
    expect(
      await pageRequest(
        page,
        'POST',
        policies,
        policy('web-from-frontend', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }] }),
      ),
    ).toBe(201);
    await expect.poll(() => cell('frontend', 'web').getAttribute('data-allowed'), { timeout: 30_000 }).toBe('true');
    expect(await cell('client', 'web').getAttribute('data-allowed')).toBe('false');
  });

  it('a dropped cell names the isolating policies and checks each rule; an allowed one names the rule that allows it', async () => {
    await cell('client', 'web').click();
    await expect.poll(summary).toBe('Dropped: web is isolated for ingress by default-deny-ingress and web-from-frontend; no rule allows it.');
    const rules = page.locator('[data-testid="network-end"][data-direction="Ingress"] [data-testid="network-rule"]');
    expect(await rules.allTextContents()).toEqual([
      'default-deny-ingress: no ingress rules, so it only isolates web',
      'web-from-frontend rule 1: from matches client? no (podSelector role=frontend in shop); ports: http/TCP matches 8080/TCP? yes',
    ]);
    // Each policy's summary beside it.
    expect(await page.locator('[data-testid="network-explanation"] [data-testid="network-policy"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['default-deny-ingress', 'web-from-frontend']);
    expect(await page.locator('[data-testid="network-policy"][data-name="web-from-frontend"] pre').textContent()).toBe(
      'name: web-from-frontend\npodSelector: app=web\npolicyTypes: [Ingress]\ningress:\n- from: podSelector role=frontend in shop\n  ports: http/TCP',
    );
    await cell('frontend', 'web').click();
    await expect.poll(summary).toContain('web is isolated for ingress by default-deny-ingress and web-from-frontend; web-from-frontend rule 1 allows it.');
    expect(await page.locator('[data-testid="network-rule"][data-allows="true"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-policy')} ${e.getAttribute('data-rule')}`))).toEqual(['web-from-frontend 1']);
  });

  it('another port typed in for a column is judged on that port: the named-port rule does not cover it', async () => {
    await page.locator('[data-testid="network-port"][data-target="web"]').selectOption('custom');
    const number = page.locator('[data-testid="network-port-number"][data-target="web"]');
    await number.fill('9000');
    await expect.poll(() => cell('frontend', 'web').getAttribute('data-allowed')).toBe('false');
    await expect.poll(summary).toBe('Dropped: web is isolated for ingress by default-deny-ingress and web-from-frontend; no rule allows it.');
    expect(await page.locator('[data-testid="network-rule"][data-policy="web-from-frontend"]').textContent()).toContain('ports: http/TCP matches 9000/TCP? no');
    await page.locator('[data-testid="network-port"][data-target="web"]').selectOption('8080/TCP');
    await expect.poll(() => cell('frontend', 'web').getAttribute('data-allowed')).toBe('true');
  });

  it('a typed port\'s protocol can be picked: a UDP rule lets frontend into web on that port over UDP only', async () => {
    const statsd = { from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 8125, protocol: 'UDP' }] };
    expect(await pageRequest(page, 'POST', policies, policy('web-statsd', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [statsd] }))).toBe(201);
    const portSelect = page.getByLabel('Port on web', { exact: true });
    expect(await portSelect.locator('option').allTextContents()).toEqual(['http 8080/TCP', 'other port…']);
    await portSelect.selectOption('custom');
    const protocol = page.getByLabel('Protocol on web', { exact: true });
    // The typed port starts as the connection it replaces: 8080 over TCP.
    expect(await protocol.inputValue()).toBe('TCP');
    expect(await protocol.locator('option').allTextContents()).toEqual(['TCP', 'UDP', 'SCTP']);
    expect(await protocol.getAttribute('data-testid')).toBe('network-port-protocol');
    await page.getByLabel('Port number on web', { exact: true }).fill('8125');
    await expect.poll(() => cell('frontend', 'web').getAttribute('aria-label')).toBe('frontend to web on 8125/TCP: dropped');
    await protocol.selectOption('UDP');
    await expect.poll(() => cell('frontend', 'web').getAttribute('aria-label')).toBe('frontend to web on 8125/UDP: allowed');
    expect(await cell('client', 'web').getAttribute('data-allowed')).toBe('false');
    await cell('frontend', 'web').click();
    await expect.poll(summary).toContain('web-statsd rule 1 allows it.');
    expect(await page.locator('[data-testid="network-rule"][data-policy="web-statsd"]').textContent()).toContain('ports: 8125/UDP matches 8125/UDP? yes');
    // Another column's port is its own: client's typed port is still TCP.
    expect(await page.getByLabel('Protocol on client', { exact: true }).inputValue()).toBe('TCP');
    await protocol.selectOption('SCTP');
    await expect.poll(() => cell('frontend', 'web').getAttribute('aria-label')).toBe('frontend to web on 8125/SCTP: dropped');
    await portSelect.selectOption('8080/TCP');
    await expect.poll(() => cell('frontend', 'web').getAttribute('data-allowed')).toBe('true');
    expect(await page.getByLabel('Protocol on web', { exact: true }).count()).toBe(0);
  });

  it('default-deny egress for client drops its DNS column (kube-dns, UDP 53) until a rule allows DNS', async () => {
    expect(await pageRequest(page, 'POST', policies, policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] }))).toBe(201);
    await expect.poll(() => cell('client', 'cluster-dns').getAttribute('data-allowed'), { timeout: 30_000 }).toBe('false');
    expect(await cell('frontend', 'cluster-dns').getAttribute('data-allowed')).toBe('true');
    await cell('client', 'cluster-dns').click();
    await expect.poll(summary).toBe('Dropped: client is isolated for egress by default-deny-egress; no rule allows it.');
    expect(await page.locator('[data-testid="network-end"][data-direction="Egress"] [data-testid="network-rule"]').textContent()).toBe('default-deny-egress: no egress rules, so it only isolates client');
    const dns = { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] };
    expect(await pageRequest(page, 'PUT', `${policies}/default-deny-egress`, policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [dns] }))).toBe(200);
    await expect.poll(() => cell('client', 'cluster-dns').getAttribute('data-allowed'), { timeout: 30_000 }).toBe('true');
    await expect.poll(summary).toContain('client is isolated for egress by default-deny-egress; default-deny-egress rule 1 allows it.');
    // Other connections from client still need rules of their own.
    expect(await cell('client', 'frontend').getAttribute('data-allowed')).toBe('false');
  });

  it('a policy opens in the Resources panel; the panel fits 1280 wide; no console errors', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await page.locator('[data-testid="network-explanation"] [data-testid="network-policy"][data-name="default-deny-egress"] [data-testid="network-open-policy"]').click();
    expect(await page.getByTestId('tab-resources').getAttribute('aria-selected')).toBe('true');
    await page.locator('[data-testid="object-detail"][data-name="default-deny-egress"]').waitFor({ timeout: 30_000 });
    expect(wb.errors, wb.errors.join('\n')).toEqual([]);
  });
});

describe('Network panel on a simulated node', () => {
  let sim: BrowserProfile;
  const BATCH = 'batch';
  beforeAll(async () => {
    sim = await wb.openProfile({ 'kubesim.simulatedNodes': '1' });
    await sim.page.goto(wb.baseUrl);
    await workbenchReady(sim.page);
  });

  it('a pod that runs to completion (Succeeded) leaves the matrix; the pod itself is still there', async () => {
    const p = sim.page;
    expect(await pageRequest(p, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BATCH } })).toBe(201);
    await expect.poll(() => pageRequest(p, 'GET', `/api/v1/namespaces/${BATCH}/serviceaccounts/default`), { timeout: 30_000 }).toBe(200);
    const running = (name: string, command: string[], restartPolicy: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { restartPolicy, containers: [{ name: 'app', image: 'busybox', command }] } });
    // The job runs long enough to be seen in the matrix, then exits 0 and is not restarted.
    for (const body of [running('server', ['sleep', '3600'], 'Always'), running('job', ['sleep', '8'], 'Never')]) {
      expect(await pageRequest(p, 'POST', `/api/v1/namespaces/${BATCH}/pods`, body)).toBe(201);
    }
    await p.getByTestId('tab-network').click();
    await p.getByTestId('namespace-item').and(p.locator(`[data-name="${BATCH}"]`)).click();
    const columns = () => p.getByTestId('network-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-target')));
    const rows = () => p.getByTestId('network-cell').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-source')))]);
    // Running, it is a pod of the network like any other.
    await expect.poll(columns, { timeout: 30_000 }).toEqual(['job', 'server', 'cluster-dns']);
    expect(await rows()).toEqual(['job', 'server']);
    await expect.poll(columns, { timeout: 30_000 }).toEqual(['server', 'cluster-dns']);
    expect(await rows()).toEqual(['server']);
    const phase = await p.evaluate(async (path) => ((await (await fetch(path)).json()) as { status?: { phase?: string } }).status?.phase, `/api/v1/namespaces/${BATCH}/pods/job`);
    expect(phase).toBe('Succeeded');
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });

  it("the DNS column is kube-dns's coredns pod, as kube-proxy delivers the queries: egress to the Service address alone is dropped, egress to the coredns pods is allowed", async () => {
    const p = sim.page;
    const dnsCell = () => p.locator('[data-testid="network-cell"][data-source="server"][data-target="cluster-dns"]');
    const egress = (to: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'dns-only' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [to], ports: [{ port: 53, protocol: 'UDP' }] }] } });
    const path = `/apis/networking.k8s.io/v1/namespaces/${BATCH}/networkpolicies`;
    expect(await pageRequest(p, 'POST', path, egress({ ipBlock: { cidr: '10.96.0.10/32' } }))).toBe(201);
    await expect.poll(() => dnsCell().getAttribute('data-allowed'), { timeout: 30_000 }).toBe('false');
    expect(await pageRequest(p, 'DELETE', `${path}/dns-only`)).toBe(200);
    expect(await pageRequest(p, 'POST', path, egress({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }))).toBe(201);
    await expect.poll(() => dnsCell().getAttribute('data-allowed'), { timeout: 30_000 }).toBe('true');
    // Who answers: kube-dns's two ready CoreDNS pods; scaled to zero, none, whatever the cell says.
    const servers = p.getByTestId('network-dns-servers');
    await expect.poll(() => servers.getAttribute('data-ready'), { timeout: 30_000 }).toBe('2');
    expect(await servers.textContent()).toMatch(/^Cluster DNS: kube-system\/kube-dns \(10\.96\.0\.10\) sends queries to 2 ready pods: coredns-\w+-\w{5}, coredns-\w+-\w{5}\.$/);
    const scale = (replicas: number) => pageRequest(p, 'PATCH', '/apis/apps/v1/namespaces/kube-system/deployments/coredns', { spec: { replicas } }, 'application/merge-patch+json');
    expect(await scale(0)).toBe(200);
    await expect.poll(() => servers.getAttribute('data-ready'), { timeout: 30_000 }).toBe('0');
    expect(await servers.textContent()).toBe('Cluster DNS: kube-system/kube-dns (10.96.0.10) has no ready pod behind it (0 selected, none ready): every lookup times out, whatever the policies allow.');
    expect(await scale(2)).toBe(200);
    await expect.poll(() => servers.getAttribute('data-ready'), { timeout: 30_000 }).toBe('2');
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });
});

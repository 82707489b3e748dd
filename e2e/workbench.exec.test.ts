/**
 * The Exec view in real Chromium, on a tab whose server runs a simulated
 * node: `kubectl exec` into a Pod's container through the service worker,
 * which cannot take a WebSocket upgrade and streams over messages instead.
 * A shell with a terminal (prompt, echo, editing by the container's line
 * discipline), the exit code printed as kubectl prints it, a command run with
 * -i alone (the line edited in the page as a canonical tty does, ^D ending
 * the input, ^C leaving), a refusal,
 * the stream left when the view closes, and a Service opened in a tab
 * through the API server's proxy.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, pageRequest, workbenchReady, type BrowserProfile, type Workbench } from './support/browser';

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

const pods = '/api/v1/namespaces/default/pods';
/** The terminal's screen as xterm.js renders it, rows joined by newlines, trailing blanks dropped. */
const screen = () => page.locator('[data-testid="exec-terminal"] .xterm-rows').evaluate((rows) => [...rows.children].map((r) => (r.textContent ?? '').replace(/\s+$/, '')).join('\n').replace(/\n+$/, ''));
const phase = () => page.getByTestId('exec-state').getAttribute('data-phase');
const stateText = () => page.getByTestId('exec-state').textContent();

async function openExec(name: string): Promise<void> {
  await page.getByTestId('tab-resources').click();
  await page.getByTestId('kind-select').selectOption('/v1/pods');
  const row = page.locator(`[data-testid="resource-row"][data-name="${name}"]`);
  await row.waitFor({ timeout: 30_000 });
  await row.getByTestId('open-object').click();
  await page.locator(`[data-testid="object-detail"][data-name="${name}"]`).waitFor();
  await page.getByTestId('view-exec').click();
}

/** Types into the terminal as a user does (xterm.js reads its hidden textarea). */
async function typeLine(text: string): Promise<void> {
  await page.locator('[data-testid="exec-terminal"] .xterm-helper-textarea').focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

describe('Exec view of a Pod', () => {
  it('runs sh with -it in kubectl\'s default container: the prompt, echo, output and the exit code as kubectl prints it', async () => {
    await expect.poll(() => pageRequest(page, 'GET', '/api/v1/namespaces/default/serviceaccounts/default'), { timeout: 30_000 }).toBe(200);
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shell', annotations: { 'kubectl.kubernetes.io/default-container': 'tools' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', command: ['sleep', '3600'] }, { name: 'tools', image: 'busybox:1.36', command: ['sleep', '3600'], env: [{ name: 'GREETING', value: 'hello from tools' }] }] } };
    expect(await pageRequest(page, 'POST', pods, body)).toBe(201);
    await expect.poll(async () => page.evaluate(async (p) => ((await (await fetch(p)).json()) as { status?: { phase?: string } }).status?.phase, `${pods}/shell`), { timeout: 30_000 }).toBe('Running');
    await openExec('shell');
    await expect.poll(() => page.getByTestId('exec-container').locator('option').allTextContents(), { timeout: 30_000 }).toEqual(['tools', 'web']);
    expect(await page.getByTestId('exec-command').textContent()).toBe('kubectl exec -it shell -n default -c tools -- sh');
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    await expect.poll(screen, { timeout: 30_000 }).toBe('/ #');
    await typeLine('echo "$GREETING" $((6*7))');
    await expect.poll(screen, { timeout: 30_000 }).toBe('/ # echo "$GREETING" $((6*7))\nhello from tools 42\n/ #');
    // The container's terminal edits the line: a backspace takes back the typed character.
    await page.keyboard.type('hostnamx');
    await page.keyboard.press('Backspace');
    await typeLine('e');
    await expect.poll(screen, { timeout: 30_000 }).toBe('/ # echo "$GREETING" $((6*7))\nhello from tools 42\n/ # hostname\nshell\n/ #');
    await typeLine('exit 3');
    await expect.poll(phase, { timeout: 30_000 }).toBe('ended');
    expect(await stateText()).toBe('command terminated with exit code 3');
    expect(await page.getByTestId('exec-connect').isVisible()).toBe(true);
  });

  it('-i without -t: the page edits the line, the command reads it, ^D ends its input; stderr is shown too', async () => {
    await page.getByTestId('exec-container').selectOption('web');
    await page.getByTestId('exec-tty').uncheck();
    await page.getByTestId('exec-command-input').fill(`sh -c 'while read l; do echo "got $l"; done; echo bye >&2'`);
    expect(await page.getByTestId('exec-command').textContent()).toBe(`kubectl exec -i shell -n default -c web -- sh -c 'while read l; do echo "got $l"; done; echo bye >&2'`);
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    await typeLine('one');
    await expect.poll(screen, { timeout: 30_000 }).toBe('one\ngot one');
    // As a tty in canonical mode: ^U takes back the line, ^W a word; ^D hands over a partial line, which the next line completes.
    await page.keyboard.type('junk');
    await page.keyboard.press('Control+u');
    await page.keyboard.type('two three');
    await page.keyboard.press('Control+w');
    await typeLine('four');
    await expect.poll(screen, { timeout: 30_000 }).toBe('one\ngot one\ntwo four\ngot two four');
    await page.keyboard.type('fi');
    await page.keyboard.press('Control+d');
    await page.keyboard.press('Backspace');
    await typeLine('ve');
    await expect.poll(screen, { timeout: 30_000 }).toBe('one\ngot one\ntwo four\ngot two four\nfive\ngot five');
    await page.keyboard.press('Control+d');
    await expect.poll(phase, { timeout: 30_000 }).toBe('ended');
    // The terminal draws what came last on its own frame: the phase may change first.
    await expect.poll(screen, { timeout: 30_000 }).toBe('one\ngot one\ntwo four\ngot two four\nfive\ngot five\nbye');
    expect(await stateText()).toBe('The command ended.');
  });

  it('-i without -t: ^C kills kubectl, which leaves the stream', async () => {
    await page.getByTestId('exec-command-input').fill('cat');
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    await typeLine('hi');
    await expect.poll(screen, { timeout: 30_000 }).toBe('hi\nhi');
    await page.keyboard.type('bye');
    await page.keyboard.press('Control+c');
    await expect.poll(phase, { timeout: 30_000 }).toBe('ended');
    await expect.poll(screen, { timeout: 30_000 }).toBe('hi\nhi\nbye^C');
    expect(await stateText()).toBe('Disconnected.');
  });

  it('a command the container does not have is refused as the runtime refuses it', async () => {
    await page.getByTestId('exec-command-input').fill('no-such-tool --help');
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('ended');
    expect(await stateText()).toMatch(/^Error from server \(InternalError\): Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "no-such-tool": executable file not found in \$PATH: unknown$/);
  });

  it('leaving the view leaves the stream; coming back runs a new shell in a new terminal', async () => {
    await page.getByTestId('exec-tty').check();
    await page.getByTestId('exec-command-input').fill('sh');
    await page.getByTestId('exec-connect').click();
    // The web container is nginx's, a Debian image: its sh is dash, whose prompt is a bare `# `.
    await expect.poll(screen, { timeout: 30_000 }).toBe('#');
    await typeLine('sleep 1000');
    await page.getByTestId('view-yaml').click();
    await page.getByTestId('view-exec').click();
    await page.getByTestId('exec-connect').click();
    await expect.poll(screen, { timeout: 30_000 }).toBe('#');
    // Not the shell left sleeping: a new one, which answers at once.
    await typeLine('echo $$ is new');
    await expect.poll(screen, { timeout: 30_000 }).toMatch(/^# echo \$\$ is new\n\d+ is new\n#$/);
  });

  it('attach -it joins the container\'s own shell: kubectl\'s hint, the same process on a second attach, and how to resume', async () => {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'console' }, spec: { containers: [{ name: 'console', image: 'busybox:1.36', command: ['sh'], stdin: true, tty: true }] } };
    expect(await pageRequest(page, 'POST', pods, body)).toBe(201);
    await expect.poll(async () => page.evaluate(async (p) => ((await (await fetch(p)).json()) as { status?: { phase?: string } }).status?.phase, `${pods}/console`), { timeout: 30_000 }).toBe('Running');
    await openExec('console');
    await page.getByTestId('exec-mode').selectOption('attach');
    expect(await page.getByTestId('exec-command-input').count()).toBe(0);
    expect(await page.getByTestId('exec-command').textContent()).toBe('kubectl attach -it console -n default -c console');
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    expect(await stateText()).toBe("If you don't see a command prompt, try pressing enter.");
    // The prompt was written before anyone attached: attach shows what comes from now on.
    expect(await screen()).toBe('');
    await typeLine('X=kept; echo set');
    await expect.poll(screen, { timeout: 30_000 }).toBe('X=kept; echo set\nset\n/ #');
    await page.getByTestId('exec-disconnect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('ended');
    expect(await stateText()).toBe("Session ended, resume using 'kubectl attach console -c console -i -t' command when the pod is running");
    await page.getByTestId('exec-connect').click();
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    await typeLine('echo $X');
    await expect.poll(screen, { timeout: 30_000 }).toBe('echo $X\nkept\n/ #');
    await page.getByTestId('exec-disconnect').click();
  });

  it('debug -it adds an ephemeral container as kubectl debug does, waits for it to run and attaches to its shell', async () => {
    await openExec('shell');
    await page.getByTestId('exec-mode').selectOption('debug');
    expect(await page.getByTestId('exec-container').count()).toBe(0);
    await page.getByTestId('exec-target').selectOption('web');
    // No command: the image's own (busybox's Cmd, sh), which reads the terminal.
    await page.getByTestId('exec-command-input').fill('');
    expect(await page.getByTestId('exec-command').textContent()).toBe('kubectl debug -it shell -n default --image=busybox:1.36 --target=web');
    const patch = page.waitForRequest((r) => r.url().endsWith('/api/v1/namespaces/default/pods/shell/ephemeralcontainers') && r.method() === 'PATCH');
    await page.getByTestId('exec-connect').click();
    const sent = await patch;
    expect(sent.headers()['content-type']).toBe('application/strategic-merge-patch+json');
    const name = (JSON.parse(sent.postData() ?? '{}') as { spec: { ephemeralContainers: { name: string }[] } }).spec.ephemeralContainers[0]!.name;
    expect(name).toMatch(/^debugger-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(JSON.parse(sent.postData() ?? '{}')).toEqual({ spec: { ephemeralContainers: [{ image: 'busybox:1.36', name, resources: {}, stdin: true, targetContainerName: 'web', terminationMessagePolicy: 'File', tty: true }] } });
    await expect.poll(phase, { timeout: 30_000 }).toBe('open');
    // The terminal is 100 columns wide: the long notice wraps.
    const notices = [
      'Targeting container "web". If you don\'t see processes from this container it may be because the container runtime doesn\'t support this feature.',
      `Defaulting debug container name to ${name}.`,
      "If you don't see a command prompt, try pressing enter.",
    ]
      .map((line) => line.match(/.{1,100}/g)!.join('\n'))
      .join('\n');
    await expect.poll(screen, { timeout: 30_000 }).toBe(notices);
    await typeLine('echo debugging $HOSTNAME');
    await expect.poll(screen, { timeout: 30_000 }).toBe(`${notices}\necho debugging $HOSTNAME\ndebugging shell\n/ #`);
    // The view now offers the ephemeral container, as kubectl lists it.
    await page.getByTestId('exec-disconnect').click();
    await page.getByTestId('exec-mode').selectOption('attach');
    await expect.poll(() => page.getByTestId('exec-container').locator('option').allTextContents()).toEqual(['tools', 'web', `${name} (ephem)`]);
    expect(await page.getByTestId('exec-container').inputValue()).toBe(name);
  });

  it('a Service opens in a browser tab through the API server proxy: the page the server in its pod writes', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'site', labels: { app: 'site' } }, spec: { containers: [{ name: 'httpd', image: 'busybox:1.36', command: ['sh', '-c', 'mkdir -p /www; echo "<h1>served by $HOSTNAME</h1>" > /www/index.html; httpd -f -p 8080 -h /www'], ports: [{ name: 'http', containerPort: 8080 }] }] } };
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'site' }, spec: { selector: { app: 'site' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
    expect(await pageRequest(page, 'POST', pods, pod)).toBe(201);
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/services', svc)).toBe(201);
    await expect.poll(() => page.evaluate(async () => ((await (await fetch('/api/v1/namespaces/default/endpoints/site')).json()) as { subsets?: { addresses?: unknown[] }[] }).subsets?.[0]?.addresses?.length ?? 0), { timeout: 30_000 }).toBe(1);
    await page.getByTestId('tab-resources').click();
    await page.getByTestId('kind-select').selectOption('/v1/services');
    const row = page.locator('[data-testid="resource-row"][data-name="site"]');
    await row.waitFor({ timeout: 30_000 });
    await row.getByTestId('open-object').click();
    const link = page.getByTestId('open-proxy');
    expect(await link.getAttribute('href')).toBe('/api/v1/namespaces/default/services/site:http/proxy/');
    const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await tab.waitForLoadState();
    expect(await tab.locator('h1').textContent()).toBe('served by site');
    await tab.close();
  });

  it('fits 1280 wide, and no console errors or page errors', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(sim.errors, sim.errors.join('\n')).toEqual([]);
  });
});

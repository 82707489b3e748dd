/**
 * The workbench in real Chromium against the production build served by
 * `vite preview`: the service worker takes control, answers the API from
 * IndexedDB, and what the UI creates survives reloads, a hard reload that
 * bypasses the worker, and the browser stopping the worker. A last check runs
 * the dev server (`npm start`), where the worker is served from source.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createServer as createViteServer, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, freePort, pasteInEditor, root, stopServiceWorkers, workbenchReady } from './support/browser';


let outDir: string;
let profileDir: string;
let server: PreviewServer | undefined;
let context: BrowserContext;
let browser: Browser | undefined;
let page: Page;
let baseUrl: string;


interface FetchResult {
  status: number;
  contentType: string | null;
  body: Record<string, unknown>;
}

/** A fetch issued by the page itself, so it goes through the service worker. */
function pageFetch(p: Page, path: string): Promise<FetchResult> {
  return p.evaluate(async (url) => {
    const response = await fetch(url, { headers: { Accept: 'application/json' } });
    return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
  }, path);
}

function itemNames(list: Record<string, unknown>): string[] {
  return (list.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
}

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-dist-'));
  profileDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-profile-'));
  // Build in a child process, exactly as `npm run build` does (a production NODE_ENV, not vitest's).
  await promisify(execFile)(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const port = await freePort();
  server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  baseUrl = `http://127.0.0.1:${port}`;
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    serviceWorkers: 'allow',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  browser = context.browser() ?? undefined;
  // Records, for every document this tab loads, whether the worker controlled it from the start.
  await context.addInitScript(() => {
    const log = JSON.parse(sessionStorage.getItem('e2e.controlledAtStart') ?? '[]') as boolean[];
    log.push(navigator.serviceWorker?.controller != null);
    sessionStorage.setItem('e2e.controlledAtStart', JSON.stringify(log));
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => console.error('page error:', error));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

describe('workbench in Chromium', () => {
  it('loads, and the service worker takes control of the page', async () => {
    await page.goto(baseUrl);
    await workbenchReady(page);
    const controller = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);
    expect(controller).toBe(`${baseUrl}/sw.js`);
  });

  it('[API-PATH-001] the page reaches the API through the worker: namespaces, /api/v1 and /apis', async () => {
    const namespaces = await pageFetch(page, '/api/v1/namespaces');
    expect(namespaces.status).toBe(200);
    expect(namespaces.contentType).toMatch(/^application\/json/);
    expect(namespaces.body).toMatchObject({ kind: 'NamespaceList', apiVersion: 'v1' });
    expect(itemNames(namespaces.body)).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));

    const core = await pageFetch(page, '/api/v1');
    expect(core.status).toBe(200);
    expect(core.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const groups = await pageFetch(page, '/apis');
    expect(groups.status).toBe(200);
    expect(groups.body).toMatchObject({ kind: 'APIGroupList' });
  });

  it('lists the namespaces in the sidebar', async () => {
    await expect.poll(() => page.getByTestId('namespace-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-public']),
    );
  });

  it('creates a ConfigMap from YAML and lists it', async () => {
    await page.getByTestId('namespace-item').and(page.locator('[data-name="default"]')).click();
    await page.getByTestId('kind-select').selectOption('/v1/configmaps');
    await page.getByTestId('tab-editor').click();
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-settings\ndata:\n  mode: teaching\n');
    await page.getByTestId('create-button').click();
    await expect.poll(() => page.getByTestId('write-result').textContent()).toBe('configmap/e2e-settings created');
    await page.getByTestId('tab-resources').click();
    await page.locator('[data-testid="resource-row"][data-name="e2e-settings"]').waitFor();
    expect(await page.locator('[data-testid="resource-row"][data-name="e2e-settings"]').getAttribute('data-namespace')).toBe('default');
  });

  it('[API-META-002] creating the same ConfigMap again shows the whole 409 AlreadyExists Status', async () => {
    await page.getByTestId('tab-editor').click();
    await page.getByTestId('create-button').click();
    const error = page.getByTestId('write-error');
    await error.waitFor();
    expect(await error.getAttribute('data-reason')).toBe('AlreadyExists');
    expect(await error.textContent()).toContain('409');
    expect(await error.textContent()).toContain('configmaps "e2e-settings" already exists');
  });

  it('a ConfigMap created outside the UI appears in the list through the watch stream', async () => {
    const status = await page.evaluate(async () => {
      const response = await fetch('/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-live' } }),
      });
      return response.status;
    });
    expect(status).toBe(201);
    await page.getByTestId('tab-resources').click();
    await page.locator('[data-testid="resource-row"][data-name="e2e-live"]').waitFor();
  });

  it('after a reload the ConfigMap is still listed (served from IndexedDB through the worker)', async () => {
    await page.reload();
    await workbenchReady(page);
    await page.locator('[data-testid="resource-row"][data-name="e2e-settings"]').waitFor();
  });

  it('recovers from a hard reload that bypasses the service worker', async () => {
    await page.evaluate(() => sessionStorage.removeItem('e2e.controlledAtStart'));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.reload', { ignoreCache: true });
    await page.waitForLoadState('load');
    await workbenchReady(page);
    // The hard-reloaded document started without a controller; the page then got one (by claim or one normal reload).
    const loads = await page.evaluate(() => JSON.parse(sessionStorage.getItem('e2e.controlledAtStart') ?? '[]') as boolean[]);
    expect(loads[0]).toBe(false);
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await page.locator('[data-testid="resource-row"][data-name="e2e-settings"]').waitFor();
    await cdp.detach();
  });

  it('[API-OTHER-003] the ConfigMap survives the browser stopping the worker (same uid after restart)', async () => {
    const before = await pageFetch(page, '/api/v1/namespaces/default/configmaps/e2e-settings');
    expect(before.status).toBe(200);
    await stopServiceWorkers(context, page);
    const after = await pageFetch(page, '/api/v1/namespaces/default/configmaps/e2e-settings');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      kind: 'ConfigMap',
      data: { mode: 'teaching' },
      metadata: { uid: (before.body.metadata as { uid: string }).uid },
    });
  });

  it('the open list keeps updating after the worker restarted', async () => {
    const status = await page.evaluate(async () => {
      const response = await fetch('/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-after-restart' } }),
      });
      return response.status;
    });
    expect(status).toBe(201);
    await page.locator('[data-testid="resource-row"][data-name="e2e-after-restart"]').waitFor();
  });

  // Last in this suite: it stops the server that serves the build.
  it('opens offline after the first load: the page and its files come from the worker\'s cache', async () => {
    await server?.close();
    server = undefined;
    expect(await page.evaluate(async () => (await fetch('/', { cache: 'no-store' })).ok)).toBe(true);
    await page.reload();
    await workbenchReady(page);
    await page.locator('[data-testid="resource-row"][data-name="e2e-after-restart"]').waitFor();
  });
});

describe('workbench under the dev server', () => {
  it('serves the worker from source with root scope, and the page reaches the API', async () => {
    const port = await freePort();
    const dev = await createViteServer({ root, logLevel: 'warn', server: { host: '127.0.0.1', port, strictPort: true, hmr: false } });
    await dev.listen();
    const devProfile = await mkdtemp(join(tmpdir(), 'kubesim-e2e-dev-profile-'));
    const devContext = await chromium.launchPersistentContext(devProfile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const devPage = devContext.pages()[0] ?? (await devContext.newPage());
      await devPage.goto(`http://127.0.0.1:${port}/`);
      await workbenchReady(devPage);
      expect(await devPage.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`http://127.0.0.1:${port}/src/sw/worker.ts`);
      const namespaces = await pageFetch(devPage, '/api/v1/namespaces');
      expect(namespaces.body).toMatchObject({ kind: 'NamespaceList' });
      expect(itemNames(namespaces.body)).toContain('kube-system');
    } finally {
      await devContext.close();
      await dev.close();
      await rm(devProfile, { recursive: true, force: true });
    }
  });
});

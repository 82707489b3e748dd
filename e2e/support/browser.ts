/**
 * The workbench in real Chromium: builds it as `npm run build` does, serves
 * the build with `vite preview`, and opens a persistent Chromium profile
 * (service workers need one). Console errors and page errors are collected
 * so a suite can assert there were none.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { expect } from 'vitest';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Builds the workbench into a fresh directory, in a child process with a production NODE_ENV. */
export async function buildWorkbench(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-dist-'));
  await promisify(execFile)(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return outDir;
}

export interface BrowserProfile {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far, as text. */
  errors: string[];
  close(): Promise<void>;
}

export interface Workbench extends BrowserProfile {
  baseUrl: string;
  /** Another Chromium profile (its own service worker and IndexedDB) on the same build; `localStorage` is set before the first load. */
  openProfile(localStorage?: Record<string, string>): Promise<BrowserProfile>;
}

async function launchProfile(baseUrl: string, viewport: { width: number; height: number }, storage: Record<string, string> = {}): Promise<BrowserProfile> {
  const profileDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    serviceWorkers: 'allow',
    viewport,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  if (Object.keys(storage).length > 0) {
    await context.addInitScript((entries) => {
      for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, value);
    }, storage);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Chromium logs every 4xx/5xx response as a console error; the suites provoke those on purpose (a 409, a 404) and check them.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) {
      errors.push(`console error: ${message.text()}`);
    }
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/** Serves a build and opens it in Chromium at 1280x720. */
export async function openWorkbench(options: { viewport?: { width: number; height: number } } = {}): Promise<Workbench> {
  const viewport = options.viewport ?? { width: 1280, height: 720 };
  const outDir = await buildWorkbench();
  const port = await freePort();
  const server: PreviewServer = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const first = await launchProfile(baseUrl, viewport);
  const others: BrowserProfile[] = [];
  return {
    ...first,
    baseUrl,
    async openProfile(storage) {
      const profile = await launchProfile(baseUrl, viewport, storage);
      others.push(profile);
      return profile;
    },
    async close() {
      for (const profile of others) await profile.close();
      await first.close();
      await server.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

/** Waits until the service worker controls the page and the first screen is up. */
/**
 * A request made by the page itself (through its service worker, as the workbench's user): the answer's status.
 * A string body is sent as it is, anything else as JSON.
 */
export function pageRequest(page: Page, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<number> {
  return page.evaluate(
    async ({ method, path, body, contentType }) => {
      const response = await fetch(path, { method, headers: { 'Content-Type': contentType }, body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body) });
      return response.status;
    },
    { method, path, body, contentType },
  );
}

export async function workbenchReady(page: Page): Promise<void> {
  await page.getByTestId('workbench').waitFor({ timeout: 30_000 });
}

/**
 * Replaces the text of a Monaco editor as a user pastes a manifest: focus
 * it, select all, paste from the clipboard (typing would auto-indent every
 * new line under the previous one).
 */
export async function pasteInEditor(page: Page, testId: string, text: string): Promise<void> {
  const editor = page.locator(`[data-testid="${testId}"][data-ready="true"]`);
  await editor.waitFor({ timeout: 30_000 });
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await editor.locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+V');
  await expect.poll(() => editorText(page, testId)).toBe(text.replace(/\n$/, ''));
}

/** The text a Monaco editor shows (its rendered lines; enough for the short manifests the tests use). */
export async function editorText(page: Page, testId: string): Promise<string> {
  const lines = await page.locator(`[data-testid="${testId}"] .view-line`).evaluateAll((els) =>
    els
      .map((el) => ({ top: parseFloat((el as HTMLElement).style.top), text: (el.textContent ?? '').replaceAll('\u00a0', ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
  return lines.join('\n').replace(/\n+$/, '');
}

/**
 * Stops the page's service workers as the browser does when idle (DevTools protocol), and waits until none runs.
 * Each event reports some versions only, so their states are kept by id. A stop asked while a worker is still
 * starting can be dropped, so the stop is asked again until every activated version reports stopped.
 */
export async function stopServiceWorkers(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const versions = new Map<string, { runningStatus: string; status: string }>();
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
    for (const v of event.versions) versions.set(v.versionId, { runningStatus: v.runningStatus, status: v.status });
  });
  // No report yet means not known to be stopped.
  const running = () => versions.size === 0 || [...versions.values()].some((v) => v.runningStatus !== 'stopped' && v.status === 'activated');
  await cdp.send('ServiceWorker.enable');
  // A loaded machine can take seconds to stop a worker: up to 30 s in all, asking again each second while one runs.
  await expect
    .poll(
      async () => {
        if (running()) await cdp.send('ServiceWorker.stopAllWorkers');
        return running();
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(false);
  await cdp.detach();
}

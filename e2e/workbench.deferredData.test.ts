/**
 * The service worker's deferred data in real Chromium, on the production
 * build: the kinds' schemas (with the OpenAPI operation parameters), the
 * protobuf descriptors and the printers' column descriptions are files of
 * their own (assets/registry.definitions-*, registry.operationParameters-*,
 * descriptor-*, descriptions-*.json). The workbench's first API answers come
 * before any is fetched (the preview server records every request it
 * serves); the first write fetches the schemas, the first protobuf request
 * the descriptors, the first Table the descriptions, and all are kept in
 * Cache Storage, so a restarted worker serves them with the server gone.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkbench, CHROMIUM, CHROMIUM_ARGS, freePort, root, stopServiceWorkers, workbenchReady } from './support/browser';

let outDir: string;
let profileDir: string;
let server: PreviewServer | undefined;
let context: BrowserContext;
let page: Page;
let baseUrl: string;
/** Paths of every request the preview server answered, in order. */
const served: string[] = [];
let definitionsPath: string;
let operationParametersPath: string;
let descriptorPath: string;
let descriptionsPath: string;

/** Every data file the worker fetched (the build emits no other JSON under assets/). */
const dataRequests = () => served.filter((p) => /^\/assets\/[^/]+\.json$/.test(p));
/** What a write or /openapi loads: the kinds' schemas and the operation parameters. */
const schemas = () => [definitionsPath, operationParametersPath];
const cachedData = () => page.evaluate(async () => (await (await caches.open('kubesim-data')).keys()).map((r) => new URL(r.url).pathname).sort());

interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

/** A request issued by the page, so the worker answers it. */
function pageFetch(path: string, init: { method?: string; body?: unknown; accept?: string } = {}): Promise<Answer> {
  return page.evaluate(
    async ({ path, init }) => {
      const headers: Record<string, string> = { Accept: init.accept ?? 'application/json' };
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, contentType: response.headers.get('content-type'), body: String.fromCharCode(...bytes.subarray(0, 4096)) };
    },
    { path, init },
  );
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra });

beforeAll(async () => {
  outDir = await buildWorkbench();
  const assets = await readdir(join(outDir, 'assets'));
  definitionsPath = `/assets/${assets.find((f) => /^registry\.definitions-[0-9a-f]+\.json$/.test(f))}`;
  operationParametersPath = `/assets/${assets.find((f) => /^registry\.operationParameters-[0-9a-f]+\.json$/.test(f))}`;
  descriptorPath = `/assets/${assets.find((f) => /^descriptor-[0-9a-f]+\.json$/.test(f))}`;
  descriptionsPath = `/assets/${assets.find((f) => /^descriptions-[0-9a-f]+\.json$/.test(f))}`;
  const port = await freePort();
  server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
    plugins: [
      {
        name: 'record-requests',
        configurePreviewServer(s) {
          s.middlewares.use((req, _res, next) => {
            served.push(new URL(req.url ?? '/', 'http://x').pathname);
            next();
          });
        },
      },
    ],
  });
  baseUrl = `http://127.0.0.1:${port}`;
  profileDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-profile-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'allow' });
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

describe('service worker deferred data', () => {
  it('the build ships the schemas and the descriptors apart from sw.js', () => {
    expect(definitionsPath).toMatch(/^\/assets\/registry\.definitions-[0-9a-f]+\.json$/);
    expect(operationParametersPath).toMatch(/^\/assets\/registry\.operationParameters-[0-9a-f]+\.json$/);
    expect(descriptorPath).toMatch(/^\/assets\/descriptor-[0-9a-f]+\.json$/);
    expect(descriptionsPath).toMatch(/^\/assets\/descriptions-[0-9a-f]+\.json$/);
  });

  it('serves the first API answers before fetching any data file but the Resources list\'s column descriptions', async () => {
    await page.goto(baseUrl);
    await workbenchReady(page);
    await page.getByTestId('namespace-item').first().waitFor();
    const list = await pageFetch('/api/v1/namespaces/default/configmaps');
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    // The worker script itself was served: the recorder sees the worker's requests.
    expect(served).toContain('/sw.js');
    // The Resources panel shows the kubectl columns of its list, a Table, whose column descriptions are
    // the one data file a first visit fetches: no schema, no protobuf descriptor.
    await page.getByTestId('resource-table').first().waitFor();
    await expect.poll(() => dataRequests(), { timeout: 30_000 }).toEqual([descriptionsPath]);
    expect(await cachedData()).toEqual([descriptionsPath]);
  });

  it('fetches the schemas on the first write and the descriptors on the first protobuf request, once each, into Cache Storage; a Table reads the descriptions already cached', async () => {
    const created = await pageFetch('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('first-write') });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ metadata: { name: 'first-write', managedFields: [{ fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } } }] } });
    expect(dataRequests()).toEqual([descriptionsPath, ...schemas()]);
    expect(await cachedData()).toEqual([descriptionsPath, ...schemas()].sort());

    const pb = await pageFetch('/api/v1/namespaces/default/configmaps/first-write', { accept: 'application/vnd.kubernetes.protobuf' });
    expect(pb.status).toBe(200);
    expect(pb.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(pb.body.slice(0, 4)).toBe('k8s\0');
    expect((await pageFetch('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('second-write') })).status).toBe(201);
    expect(dataRequests()).toEqual([descriptionsPath, ...schemas(), descriptorPath]);
    expect(await cachedData()).toEqual([descriptionsPath, ...schemas(), descriptorPath].sort());

    // `kubectl get`'s Table: its column descriptions were fetched once already, for the Resources list.
    const table = await pageFetch('/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(table.status).toBe(200);
    expect(JSON.parse(table.body)).toMatchObject({ kind: 'Table', columnDefinitions: [{ name: 'Name', description: expect.stringMatching(/^Name must be unique within a namespace/) }, { name: 'Data' }, { name: 'Age' }] });
    expect(dataRequests()).toEqual([descriptionsPath, ...schemas(), descriptorPath]);
    expect(await cachedData()).toEqual([...schemas(), descriptorPath, descriptionsPath].sort());
  });

  it('a restarted worker reads them from Cache Storage with the server gone', async () => {
    await server?.close();
    server = undefined;
    await stopServiceWorkers(context, page);
    const served0 = served.length;
    // Strict field validation reads the ConfigMap schema: the unknown field is refused by name.
    const strict = await pageFetch('/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { method: 'POST', body: configMap('offline', { spec: {} }) });
    expect(strict.status).toBe(400);
    expect(JSON.parse(strict.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"' });
    expect((await pageFetch('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('offline') })).status).toBe(201);
    const pb = await pageFetch('/api/v1/namespaces/default/configmaps/offline', { accept: 'application/vnd.kubernetes.protobuf' });
    expect(pb.status).toBe(200);
    expect(pb.body.slice(0, 4)).toBe('k8s\0');
    const table = await pageFetch('/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(JSON.parse(table.body)).toMatchObject({ kind: 'Table', columnDefinitions: [{ name: 'Name', description: expect.stringMatching(/^Name must be unique/) }, {}, {}] });
    expect(served.length).toBe(served0);
  });
});

/**
 * The service worker's code parts in real Chromium, on the production build.
 * sw.js is a classic worker: every start evaluates sw.js and the core chunks;
 * the parts (validation, CEL, RE2, YAML, protobuf, printers, field manager,
 * patch...) are imported while the worker installs and run the first time a
 * request calls into them, from the worker's installed scripts, so with no
 * network (src/sw/chunkLoader.ts, scripts/vite/serviceWorkerBuild.ts).
 *
 * Which chunks ran is read from the running worker (`kubesimChunks.loaded()`);
 * which files were fetched, from the preview server's log of every request.
 */
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkbench, CHROMIUM, CHROMIUM_ARGS, freePort, root, stopServiceWorkers, workbenchReady } from './support/browser';

let outDir: string;
let profileDir: string;
let server: PreviewServer | undefined;
let port: number;
let context: BrowserContext;
let page: Page;
let baseUrl: string;
/** Paths of every request the preview server answered, in order. */
const served: string[] = [];
let manifest: { core: string[]; parts: string[] };

async function serve(dir: string): Promise<void> {
  server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir: dir },
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
}

async function readManifest(dir: string): Promise<{ core: string[]; parts: string[] }> {
  const sw = await readFile(join(dir, 'sw.js'), 'utf8');
  return JSON.parse(/createChunkLoader\(self, (\{[^\n]*\})\);/.exec(sw)![1]!) as { core: string[]; parts: string[] };
}

const part = (name: string) => manifest.parts.find((p) => p.startsWith(`assets/sw-${name}-`))!;
/** What a write runs beyond the core, as the control plane's Lease renewals do after the first answer: the field manager, validation and quota admission. */
const leaseWriteParts = () => ['fieldmanager', 'validation', 'quota'].map(part);
/** Chunk files the worker fetched (the workbench's own files are assets/ too, but never assets/sw-*). */
const chunkRequests = () => served.filter((p) => p === '/sw.js' || p.startsWith('/assets/sw-'));

/** The running worker (a restart is a new one). */
async function runningWorker(): Promise<Worker> {
  await expect.poll(() => context.serviceWorkers().length).toBeGreaterThan(0);
  return context.serviceWorkers().at(-1)!;
}

/** The worker's performance marks since it started: each chunk's run (`kubesim:chunk <path>`) and `kubesim:first-answer`. */
async function marks(): Promise<string[]> {
  const worker = await runningWorker();
  return worker.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name).filter((n) => n.startsWith('kubesim:')));
}

/** The chunks that ran in the running worker since it started. */
async function loadedChunks(): Promise<string[]> {
  const worker = await runningWorker();
  return worker.evaluate(() => (self as unknown as { kubesimChunks: { loaded(): string[] } }).kubesimChunks.loaded());
}

interface Answer {
  status: number;
  body: string;
}

/** A request issued by the page, so the worker answers it. */
function pageFetch(path: string, init: { method?: string; body?: unknown; accept?: string; contentType?: string } = {}): Promise<Answer> {
  return page.evaluate(
    async ({ path, init }) => {
      const headers: Record<string, string> = { Accept: init.accept ?? 'application/json' };
      if (init.body !== undefined) headers['Content-Type'] = init.contentType ?? 'application/json';
      const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      const response = await fetch(path, { method: init.method ?? 'GET', headers, body });
      return { status: response.status, body: await response.text() };
    },
    { path, init },
  );
}

const widgetsCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [
                  { rule: 'self.replicas <= 10', message: 'at most 10 replicas' },
                  { rule: "self.color.matches('^[a-z]+$')", message: 'color must be lower case' },
                ],
                properties: { replicas: { type: 'integer' }, color: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, replicas: number, color: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { replicas, color } });

beforeAll(async () => {
  outDir = await buildWorkbench();
  manifest = await readManifest(outDir);
  port = await freePort();
  await serve(outDir);
  baseUrl = `http://127.0.0.1:${port}`;
  profileDir = await mkdtemp(join(tmpdir(), 'kubesim-e2e-profile-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'allow' });
  page = context.pages()[0] ?? (await context.newPage());
}, 120_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

describe('service worker code parts', () => {
  it('the build splits the worker into sw.js, core chunks and the parts', () => {
    expect(manifest.parts.map((p) => /^assets\/sw-(.+)-[\w-]{8}\.js$/.exec(p)?.[1]).sort()).toEqual(
      ['cbor', 'cel', 'controllers', 'fieldmanager', 'jose', 'node', 'openapi', 'patch', 'podsecurity', 'printers', 'protobuf', 'quota', 're2', 'reviews', 'subresources', 'upgrade', 'validation', 'webhooks', 'x509', 'yaml'].sort(),
    );
  });

  it('the script every start evaluates before its first answer (sw.js and the core chunks) is within 150 KiB gzip', async () => {
    const start = await Promise.all(['sw.js', ...manifest.core].map(async (path) => gzipSync(await readFile(join(outDir, path))).byteLength));
    expect(start.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(150 * 1024);
  });

  it('installs with every chunk fetched once, and the first answers after a restart run only the core; the controllers run after the first', async () => {
    await page.goto(baseUrl);
    await workbenchReady(page);
    await page.getByTestId('namespace-item').first().waitFor();
    // The install imported every part into the installed scripts, each once.
    expect(chunkRequests().sort()).toEqual(['/sw.js', ...[...manifest.core, ...manifest.parts].map((p) => `/${p}`)].sort());
    // A quiet page in the worker's scope, so only this test's requests reach the worker (the workbench watches and lists).
    await page.goto(`${baseUrl}/favicon.svg`);
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${baseUrl}/sw.js`);

    await stopServiceWorkers(context, page);
    const list = await pageFetch('/api/v1/namespaces/default/configmaps');
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect((await pageFetch('/api/v1/namespaces')).status).toBe(200);
    expect((await pageFetch('/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).status).toBe(200);
    const ran = await loadedChunks();
    expect(ran[0]).toBe('sw.js');
    // kube-controller-manager's controllers are a part, started once the first answer is out (src/sw/afterFirstAnswer.ts);
    // with them the control plane renews its Leases, writes that run the write path's parts.
    await expect.poll(async () => (await loadedChunks()).filter((c) => manifest.parts.includes(c)).sort()).toEqual([part('controllers'), ...leaseWriteParts()].sort());
    const timeline = await marks();
    expect(timeline[0]).toBe('kubesim:chunk sw.js');
    const afterCore = timeline.filter((m) => !manifest.core.some((c) => m === `kubesim:chunk ${c}`));
    expect(afterCore.slice(0, 3)).toEqual(['kubesim:chunk sw.js', 'kubesim:first-answer', `kubesim:chunk ${part('controllers')}`]);
    expect(afterCore.slice(3).sort()).toEqual(leaseWriteParts().map((p) => `kubesim:chunk ${p}`).sort());
  });

  it('the controllers run from their part after a restart: a Deployment gets its ReplicaSet; scale and reviews run their parts', async () => {
    const created = await pageFetch('/apis/apps/v1/namespaces/default/deployments', {
      method: 'POST',
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    expect(created.status).toBe(201);
    await expect
      .poll(async () => (JSON.parse((await pageFetch('/apis/apps/v1/namespaces/default/replicasets')).body) as { items: { metadata: { ownerReferences?: { name: string }[] } }[] }).items.map((rs) => rs.metadata.ownerReferences?.[0]?.name), { timeout: 10_000 })
      .toEqual(['web']);
    // The scale subresource and access reviews are parts of their own, run by the first request that reads them.
    expect(await loadedChunks()).not.toContain(part('subresources'));
    const scale = await pageFetch('/apis/apps/v1/namespaces/default/deployments/web/scale');
    expect(scale.status).toBe(200);
    expect(JSON.parse(scale.body)).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1 } });
    expect(await loadedChunks()).toContain(part('subresources'));
    expect(await loadedChunks()).not.toContain(part('reviews'));
    const review = await pageFetch('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } } },
    });
    expect(review.status).toBe(201);
    expect(JSON.parse(review.body)).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    expect(await loadedChunks()).toContain(part('reviews'));
    expect((await pageFetch('/apis/apps/v1/namespaces/default/deployments/web', { method: 'DELETE' })).status).toBe(200);
  });

  it('runs a part on the first request that needs it: a YAML answer runs the YAML part alone', async () => {
    await stopServiceWorkers(context, page);
    const yaml = await pageFetch('/api/v1/namespaces/default/configmaps', { accept: 'application/yaml' });
    expect(yaml.status).toBe(200);
    expect(yaml.body).toMatch(/^apiVersion: v1\nitems:\n/);
    // The YAML part ran inside the first answer; the controllers' part after it, then the parts of the Lease renewals' writes.
    const partsAndAnswer = (timeline: string[]) => timeline.filter((m) => m === 'kubesim:first-answer' || manifest.parts.some((p) => m === `kubesim:chunk ${p}`));
    const leaseParts = leaseWriteParts().map((p) => `kubesim:chunk ${p}`);
    const timeline = await expect.poll(async () => partsAndAnswer(await marks())).toHaveLength(3 + leaseParts.length).then(async () => partsAndAnswer(await marks()));
    expect(timeline.slice(0, 3)).toEqual([`kubesim:chunk ${part('yaml')}`, 'kubesim:first-answer', `kubesim:chunk ${part('controllers')}`]);
    expect(timeline.slice(3).sort()).toEqual([...leaseParts].sort());
    // A write: validation, the field manager. The schemas it reads are cached for offline use (dataCache.ts).
    const created = await pageFetch('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'online' }, data: { k: 'v' } } });
    expect(created.status).toBe(201);
    expect((await loadedChunks()).filter((c) => manifest.parts.includes(c))).toEqual(expect.arrayContaining([part('yaml'), part('validation'), part('fieldmanager')]));
  });

  it('[API-CEL-001] after a restart with the server gone, writes run validation, CEL and RE2, and the controllers run, from the installed scripts', async () => {
    await server?.close();
    server = undefined;
    await stopServiceWorkers(context, page);

    const pod = await pageFetch('/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [{ name: 'Bad_Name' }] } } });
    expect(pod.status).toBe(422);
    const nameMessage =
      "Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    expect(JSON.parse(pod.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Pod "bad" is invalid: [spec.containers[0].name: ${nameMessage}, spec.containers[0].image: Required value]`,
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'bad',
        kind: 'Pod',
        causes: [
          { reason: 'FieldValueInvalid', message: nameMessage, field: 'spec.containers[0].name' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' },
        ],
      },
    });
    expect(await loadedChunks()).toContain(part('validation'));
    expect(await loadedChunks()).not.toContain(part('cel'));
    // The controllers' part runs offline too, from the installed scripts.
    await expect.poll(loadedChunks).toContain(part('controllers'));

    expect((await pageFetch('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: widgetsCrd })).status).toBe(201);
    await expect
      .poll(async () => (await pageFetch('/apis/example.com/v1/namespaces/default/widgets')).status, { timeout: 10_000 })
      .toBe(200);
    const invalid = await pageFetch('/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: widget('w', 11, 'Red') });
    expect(invalid.status).toBe(422);
    expect(JSON.parse(invalid.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Widget.example.com "w" is invalid: [spec: Invalid value: "object": at most 10 replicas, spec: Invalid value: "object": color must be lower case]',
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'w',
        group: 'example.com',
        kind: 'Widget',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "object": at most 10 replicas', field: 'spec' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "object": color must be lower case', field: 'spec' },
        ],
      },
    });
    expect((await pageFetch('/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: widget('w', 3, 'red') })).status).toBe(201);
    expect(await loadedChunks()).toEqual(expect.arrayContaining([part('cel'), part('re2')]));
  });

  it('an update of the worker installs the new build, parts included, and its restarts run them offline', async () => {
    // A new build in which the CEL part changed: the same build, its CEL chunk renamed (as a changed hash renames it).
    const next = await mkdtemp(join(tmpdir(), 'kubesim-e2e-dist-next-'));
    try {
      await cp(outDir, next, { recursive: true });
      const oldCel = part('cel');
      const newCel = oldCel.replace(/-([\w-]{8})\.js$/, '-NEXTBUILD.js');
      await rename(join(next, oldCel), join(next, newCel));
      for (const file of ['sw.js', ...(await readdir(join(next, 'assets'))).filter((f) => /^sw-.*\.js$/.test(f)).map((f) => `assets/${f}`)]) {
        const text = await readFile(join(next, file), 'utf8');
        const base = oldCel.slice('assets/'.length);
        if (text.includes(base)) await writeFile(join(next, file), text.replaceAll(base, newCel.slice('assets/'.length)));
      }
      await serve(next);
      const before = served.length;
      const updated = await page.evaluate(async () => {
        const registration = (await navigator.serviceWorker.getRegistration())!;
        await registration.update();
        const incoming = registration.installing ?? registration.waiting;
        if (!incoming) return 'no update';
        await new Promise<void>((resolve) => {
          const check = () => incoming.state === 'activated' && resolve();
          incoming.addEventListener('statechange', check);
          check();
        });
        return incoming.state;
      });
      expect(updated).toBe('activated');
      // The new worker fetched its script and every chunk, the renamed part among them.
      const fetched = served.slice(before).filter((p) => p === '/sw.js' || p.startsWith('/assets/sw-'));
      expect(fetched).toContain(`/${newCel}`);
      expect(fetched).not.toContain(`/${oldCel}`);
      expect(fetched.filter((p) => p !== '/sw.js').sort()).toEqual([...manifest.core, ...manifest.parts.map((p) => (p === oldCel ? newCel : p))].map((p) => `/${p}`).sort());

      await server?.close();
      server = undefined;
      await stopServiceWorkers(context, page);
      const invalid = await pageFetch('/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: widget('w2', 12, 'red') });
      expect(invalid.status).toBe(422);
      expect(JSON.parse(invalid.body)).toMatchObject({ reason: 'Invalid', details: { causes: [{ message: 'Invalid value: "object": at most 10 replicas', field: 'spec' }] } });
      expect(await loadedChunks()).toContain(newCel);
    } finally {
      await rm(next, { recursive: true, force: true });
    }
  });
  it('with --authorization-mode=Node,RBAC the worker runs the Node authorizer part as it starts', async () => {
    await serve(outDir);
    // Settings reach the worker in its script URL (settings.ts): a new URL installs a new worker.
    const state = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.register('/sw.js?authorizationMode=Node,RBAC', { scope: '/' });
      const incoming = registration.installing ?? registration.waiting ?? registration.active!;
      await new Promise<void>((resolve) => {
        const check = () => incoming.state === 'activated' && resolve();
        incoming.addEventListener('statechange', check);
        check();
      });
      return incoming.scriptURL;
    });
    expect(state).toBe(`${baseUrl}/sw.js?authorizationMode=Node,RBAC`);
    await stopServiceWorkers(context, page);
    // Anonymous, under RBAC: forbidden, with kube's Status.
    const list = await pageFetch('/api/v1/namespaces');
    expect(list.status).toBe(403);
    expect(JSON.parse(list.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, details: { kind: 'namespaces' } });
    expect(await loadedChunks()).toContain(part('node'));
  });
});

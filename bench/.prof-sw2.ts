import { writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM, CHROMIUM_ARGS, freePort, root } from '../e2e/support/browser';
const out = process.env.OUT!;
const port = await freePort();
const server = await preview({ root, logLevel: 'error', build: { outDir: out }, preview: { host: '127.0.0.1', port, strictPort: true } });
const url = `http://127.0.0.1:${port}/`;
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const context = await browser.newContext({ serviceWorkers: 'allow' });
const page = await context.newPage();
await page.goto(url);
await page.locator('[data-testid="namespace-item"]').first().waitFor({ timeout: 60_000 });
await page.goto(url + 'api/v1/namespaces/default');
const cdp = await browser.newBrowserCDPSession();
const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string }[] };
const swt = targetInfos.find((t) => t.type === 'service_worker')!;
const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: swt.targetId, flatten: false })) as { sessionId: string };
const pending = new Map<number, (v: any) => void>();
let next = 1;
cdp.on('Target.receivedMessageFromTarget', (e: any) => {
  const m = JSON.parse(e.message);
  if (m.id && pending.has(m.id)) { pending.get(m.id)!(m.result ?? m.error); pending.delete(m.id); }
});
const send = (method: string, params: object = {}) => new Promise<any>((resolve) => { const id = next++; pending.set(id, resolve); void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) } as any); });
await send('Profiler.enable');
await send('Profiler.setSamplingInterval', { interval: 200 });
await send('Profiler.start');
await page.evaluate('globalThis.__name = (f) => f');
const r = await page.evaluate(async () => {
  const path = '/api/v1/namespaces/default/configmaps';
  let t = performance.now();
  for (let i = 0; i < 60; i++) {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${i}` }, data: { a: 'x' } }) });
    await res.text();
  }
  const createMs = (performance.now() - t) / 60;
  t = performance.now();
  for (let i = 0; i < 60; i++) await (await fetch(path + '/b-' + i)).text();
  return { createMs, getMs: (performance.now() - t) / 60 };
});
console.log(r);
const { profile } = await send('Profiler.stop');
await writeFile('/tmp/perf/sw/sw.cpuprofile', JSON.stringify(profile));
await browser.close(); await server.close();

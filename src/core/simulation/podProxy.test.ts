/** kube-apiserver's pod and service proxies reaching a simulated pod's listening socket. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { parseBackendResponse } from './podProxy';
import { upgradeSessionOf } from '../http/upgrade';
import { runStreamSession } from '../testing/streamSession';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const serve = `mkdir -p /www/docs; echo hello from $HOSTNAME > /www/index.html; echo guide > /www/docs/guide.txt; httpd -f -p 8080 -h /www`;

async function clusterWithServer(): Promise<TestServer> {
  const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
  await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'httpd', image: 'busybox:1.36', command: ['sh', '-c', serve], ports: [{ name: 'http', containerPort: 8080 }] }] } };
  expect((await s.json('POST', `${ns}/pods`, { body: pod })).status).toBe(201);
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
  expect((await s.json('POST', `${ns}/services`, { body: svc })).status).toBe(201);
  await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).body, (p: any) => p?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'), 'pod web ready');
  await eventually(async () => (await s.json('GET', `${ns}/endpoints/web`)).body, (e: any) => e?.subsets?.[0]?.addresses?.length === 1, 'the endpoints');
  return s;
}

describe('the apiserver proxy to simulated pods', () => {
  it('pods/proxy reaches the pod port (given, or its first container port) and passes the server answer back', async () => {
    const s = await clusterWithServer();
    const root = await s.request('GET', `${ns}/pods/web:8080/proxy/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toBe('text/html');
    expect(await root.text()).toBe('hello from web\n');
    // No port: the first container port, as the pod ResourceLocation picks it.
    const guide = await s.request('GET', `${ns}/pods/web/proxy/docs/guide.txt`);
    expect(guide.status).toBe(200);
    expect(await guide.text()).toBe('guide\n');
    const missing = await s.request('GET', `${ns}/pods/web:8080/proxy/nope.html`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('404 Not Found');
  });

  it('services/proxy reaches a ready endpoint through the named port; a port nothing listens on is the refused dial', async () => {
    const s = await clusterWithServer();
    const byName = await s.request('GET', `${ns}/services/web:http/proxy/`);
    expect(byName.status).toBe(200);
    expect(await byName.text()).toBe('hello from web\n');
    const byNumber = await s.request('GET', `${ns}/services/web:80/proxy/docs/guide.txt`);
    expect(await byNumber.text()).toBe('guide\n');
    const pod = (await s.json('GET', `${ns}/pods/web`)).body;
    const refused = await s.json('GET', `${ns}/pods/web:9090/proxy/`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', message: `error trying to reach service: dial tcp ${pod.status.podIP}:9090: connect: connection refused` });
    const tls = await s.json('GET', `${ns}/pods/https:web:8080/proxy/`);
    expect(tls.status).toBe(503);
    expect(tls.body.message).toBe('error trying to reach service: tls: first record does not look like a TLS handshake');
  });

  it("nginx and httpd images serve their default pages on port 80, with their own headers and 404 pages", async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    for (const [name, image] of [['web', 'nginx:1.27'], ['apache', 'httpd:2.4']]) {
      expect((await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name, image, ports: [{ containerPort: 80 }] }] } } })).status).toBe(201);
      await eventually(async () => (await s.json('GET', `${ns}/pods/${name}`)).body, (p: any) => p?.status?.phase === 'Running', `pod ${name} running`);
    }
    const welcome = await s.request('GET', `${ns}/pods/web/proxy/`);
    expect(welcome.status).toBe(200);
    expect(welcome.headers.get('server')).toBe('nginx/1.27.3');
    expect(welcome.headers.get('content-length')).toBe('615');
    expect(await welcome.text()).toContain('<h1>Welcome to nginx!</h1>');
    const missing = await s.request('GET', `${ns}/pods/web/proxy/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<hr><center>nginx/1.27.3</center>');
    const works = await s.request('GET', `${ns}/pods/apache:80/proxy/`);
    expect(works.headers.get('server')).toBe('Apache/2.4.62 (Unix)');
    expect(await works.text()).toBe('<html><body><h1>It works!</h1></body></html>\n');
  });

  it('nginx serves its web root from the container files: a ConfigMap mounted there replaces the welcome page', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    const site = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'site' }, data: { 'index.html': '<h1>my site</h1>\n', 'app.js': 'console.log(1)\n' } };
    expect((await s.json('POST', `${ns}/configmaps`, { body: site })).status).toBe(201);
    const html = '/usr/share/nginx/html';
    const pods = [
      { name: 'plain', mounts: [] as object[], volumes: [] as object[] },
      { name: 'mounted', mounts: [{ name: 'site', mountPath: html }], volumes: [{ name: 'site', configMap: { name: 'site' } }] },
      { name: 'nested', mounts: [{ name: 'site', mountPath: `${html}/docs` }, { name: 'empty', mountPath: `${html}/empty` }], volumes: [{ name: 'site', configMap: { name: 'site' } }, { name: 'empty', emptyDir: {} }] },
    ];
    for (const p of pods) {
      const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: p.name }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], volumeMounts: p.mounts }], volumes: p.volumes } };
      expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
      await eventually(async () => (await s.json('GET', `${ns}/pods/${p.name}`)).body, (b: any) => b?.status?.phase === 'Running', `pod ${p.name} running`);
    }
    const get = async (pod: string, path: string) => {
      const r = await s.request('GET', `${ns}/pods/${pod}/proxy${path}`);
      return { status: r.status, type: r.headers.get('content-type'), location: r.headers.get('location'), body: await r.text() };
    };
    // The image's own pages.
    expect(await get('plain', '/50x.html')).toMatchObject({ status: 200, type: 'text/html', body: expect.stringContaining('<h1>An error occurred.</h1>') });
    // The mount hides what the image had there: its index.html is the ConfigMap's, its 50x.html is gone.
    expect(await get('mounted', '/')).toMatchObject({ status: 200, type: 'text/html', body: '<h1>my site</h1>\n' });
    expect(await get('mounted', '/app.js')).toMatchObject({ status: 200, type: 'application/javascript', body: 'console.log(1)\n' });
    expect((await get('mounted', '/50x.html')).status).toBe(404);
    // A directory: redirected to its slash, served by its index, forbidden without one (autoindex is off).
    expect((await get('nested', '/')).body).toContain('<h1>Welcome to nginx!</h1>');
    expect(await get('nested', '/docs/')).toMatchObject({ status: 200, body: '<h1>my site</h1>\n' });
    expect(await get('nested', '/empty/')).toMatchObject({ status: 403, body: expect.stringContaining('<center><h1>403 Forbidden</h1></center>') });
    expect(await get('nested', '/../../etc/passwd')).toMatchObject({ status: 404 });
  });

  it('nginx logs each request on stdout as its access log: the client pod\'s address, the request line, status, bytes and agent', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    for (const body of [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }] } },
    ]) {
      expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
      await eventually(async () => (await s.json('GET', `${ns}/pods/${body.metadata.name}`)).body, (p: any) => p?.status?.phase === 'Running', `pod ${body.metadata.name} running`);
    }
    const web = (await s.json('GET', `${ns}/pods/web`)).body;
    const client = (await s.json('GET', `${ns}/pods/client`)).body;
    const logBefore = await (await s.request('GET', `${ns}/pods/web/log`)).text();
    // A request from the client pod, through busybox wget, then one through the API server's proxy.
    const exec = new URLSearchParams([['command', 'wget'], ['command', '-qO-'], ['command', `http://${web.status.podIP}/nope`], ['stdout', 'true'], ['stderr', 'true']]);
    const request = new Request(`http://127.0.0.1:8080${ns}/pods/client/exec?${exec}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    await s.server.handle(request);
    const session = upgradeSessionOf(request);
    if (!session) throw new Error('no exec session');
    await runStreamSession(session, '');
    expect((await s.request('GET', `${ns}/pods/web/proxy/`, { headers: { 'user-agent': 'curl/8.5.0' } })).status).toBe(200);
    const added = (await (await s.request('GET', `${ns}/pods/web/log`)).text()).slice(logBefore.length).split('\n').filter(Boolean);
    const stamp = '\\[\\d{2}/[A-Z][a-z]{2}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000\\]';
    expect(added).toHaveLength(2);
    expect(added[0]).toMatch(new RegExp(`^${client.status.podIP.replace(/\./g, '\\.')} - - ${stamp} "GET /nope HTTP/1\\.1" 404 153 "-" "Wget" "-"$`));
    expect(added[1]).toMatch(new RegExp(`^${web.status.hostIP.replace(/\./g, '\\.')} - - ${stamp} "GET / HTTP/1\\.1" 200 615 "-" "curl/8\\.5\\.0" "127\\.0\\.0\\.1"$`));
  });

  it('a backend answer is parsed as the reverse proxy reads it', () => {
    const r = parseBackendResponse('HTTP/1.1 302 Found\r\nLocation: /x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')!;
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/x');
    expect(r.headers.get('connection')).toBeNull();
    expect(parseBackendResponse('hello\n')).toBeUndefined();
    expect(parseBackendResponse('')).toBeUndefined();
  });
});

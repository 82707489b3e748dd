/**
 * kubectl 1.32 against a Node host, with every exchange recorded on the wire
 * by a pass-through proxy (the media types a real client sent and got):
 * - discovery: kubectl's Accept list gets aggregated discovery v2;
 * - CBOR: with client-go's gates ClientsAllowCBOR and ClientsPreferCBOR
 *   (KUBE_FEATURE_* environment variables) and the host's
 *   CBORServingAndStorage gate, kubectl's dynamic-client paths (wait, delete's
 *   wait for deletion, client-side apply --prune) read lists, watches, objects
 *   and errors in CBOR and send a DeleteOptions body in CBOR. Its typed and
 *   resource-builder paths (create, get, list, apply) stay protobuf / JSON in
 *   1.32, and keep working beside them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plain, readCbor, readCborSequence } from '../src/core/http/serializers/cbor/cborReader.test-data';
import { run, startTestHost, type RunResult, type TestHost } from './support/host';

interface Exchange {
  method: string;
  path: string;
  accept: string;
  contentType: string;
  requestBody: Buffer;
  status: number;
  responseType: string;
  response: Buffer[];
}

/** Forwards every request to `target` unchanged, keeping both sides' headers and bodies. */
async function startRecordingProxy(target: string): Promise<{ url: string; exchanges: Exchange[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const x: Exchange = {
        method: req.method ?? '',
        path: req.url ?? '',
        accept: req.headers.accept ?? '',
        contentType: req.headers['content-type'] ?? '',
        requestBody: Buffer.concat(body),
        status: 0,
        responseType: '',
        response: [],
      };
      exchanges.push(x);
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        x.status = up.statusCode ?? 0;
        x.responseType = String(up.headers['content-type'] ?? '');
        res.writeHead(x.status, up.headers);
        up.on('data', (c: Buffer) => {
          x.response.push(c);
          res.write(c);
        });
        up.on('end', () => res.end());
      });
      res.on('close', () => out.destroy());
      out.on('error', () => res.destroy());
      out.end(x.requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const CBOR_GATES = { KUBE_FEATURE_ClientsAllowCBOR: 'true', KUBE_FEATURE_ClientsPreferCBOR: 'true' };

let h: TestHost;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  h = await startTestHost({ flags: { featureGates: { CBORServingAndStorage: true } } });
  proxy = await startRecordingProxy(h.host.url);
  dir = mkdtempSync(join(tmpdir(), 'kubesim-kubectl-enc-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, readFileSync(h.host.kubeconfigPath, 'utf8').replaceAll(h.host.url, proxy.url));
});
afterAll(async () => {
  await proxy?.close();
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function kubectl(args: string[], env: Record<string, string> = {}, input = ''): Promise<RunResult> {
  return run('kubectl', args, { HOME: h.home, KUBECONFIG: kubeconfig, ...env }, input);
}

/** The exchanges a command made: those recorded while it ran. */
async function recorded(command: () => Promise<RunResult>): Promise<{ result: RunResult; exchanges: Exchange[] }> {
  const from = proxy.exchanges.length;
  const result = await command();
  return { result, exchanges: proxy.exchanges.slice(from) };
}

const resourceRequests = (xs: Exchange[]) => xs.filter((x) => /^\/api(s)?\/[^?]*\/namespaces\//.test(x.path));
const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: ${JSON.stringify(labels)}\ndata: ${JSON.stringify(data)}\n`;

describe('kubectl discovery', () => {
  it('[API-ENC-012] [API-ENC-013] kubectl api-resources reads aggregated discovery v2 from /api and /apis', async () => {
    const { result, exchanges } = await recorded(() => kubectl(['api-resources']));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    for (const path of ['/api', '/apis']) {
      const x = exchanges.find((e) => e.path.split('?')[0] === path)!;
      expect(x.accept.split(',')).toEqual([V2, 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList', 'application/json']);
      expect([x.status, x.responseType]).toEqual([200, V2]);
    }
  });
});

describe('kubectl with ClientsAllowCBOR and ClientsPreferCBOR', () => {
  it('[API-ENC-023] create, get, list and server-side apply work; typed and builder paths stay protobuf or JSON', async () => {
    const create = await recorded(() => kubectl(['create', 'configmap', 'c1', '--from-literal=a=1'], CBOR_GATES));
    expect(create.result.code, create.result.stderr).toBe(0);
    expect(resourceRequests(create.exchanges).map((x) => [x.method, x.contentType, x.responseType])).toEqual([['POST', 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf']]);

    const get = await kubectl(['get', 'configmap', 'c1', '-o', 'jsonpath={.data.a}'], CBOR_GATES);
    expect(get.stdout).toBe('1');
    const apply = await recorded(() => kubectl(['apply', '--server-side', '-f', '-'], CBOR_GATES, cm('c1', { b: '2' })));
    expect(apply.result.stdout.trim(), apply.result.stderr).toBe('configmap/c1 serverside-applied');
    expect(resourceRequests(apply.exchanges).find((x) => x.method === 'PATCH')?.contentType).toBe('application/apply-patch+yaml');
    const list = await kubectl(['get', 'configmaps', '-o', 'name'], CBOR_GATES);
    expect(list.stdout).toContain('configmap/c1');
  });

  it('[API-ENC-023] kubectl wait lists in CBOR and watches an application/cbor-seq stream', async () => {
    await kubectl(['create', 'configmap', 'w1', '--from-literal=phase=pending']);
    const from = proxy.exchanges.length;
    const wait = kubectl(['wait', '--for=jsonpath={.data.phase}=done', 'configmap/w1', '--timeout=60s'], CBOR_GATES);
    // Change the object once the watch is open, so the condition is met by a watch event.
    for (let i = 0; i < 600 && !proxy.exchanges.slice(from).some((x) => x.path.includes('watch=true') && x.status === 200); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const patched = await fetch(`${h.host.url}/api/v1/namespaces/default/configmaps/w1`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { phase: 'done' } }),
    });
    expect(patched.status).toBe(200);
    const result = await wait;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('configmap/w1 condition met');

    const xs = resourceRequests(proxy.exchanges.slice(from));
    // kubectl reads the named object first (the resource builder, JSON), then lists and watches it through the dynamic client.
    const list = xs.find((x) => x.method === 'GET' && x.path.includes('fieldSelector=') && !x.path.includes('watch=true'))!;
    expect(list.accept).toBe('application/json;q=0.9,application/cbor;q=1');
    expect([list.status, list.responseType]).toEqual([200, 'application/cbor']);
    const listed = plain(readCbor(Buffer.concat(list.response))) as { kind: string; items: { metadata: { name: string } }[] };
    expect([listed.kind, listed.items.map((i) => i.metadata.name)]).toEqual(['ConfigMapList', ['w1']]);

    const watch = xs.find((x) => x.path.includes('watch=true'))!;
    expect(watch.responseType).toBe('application/cbor-seq');
    const events = readCborSequence(Buffer.concat(watch.response)).map(plain) as { type: string; object: { data: { phase: string } } }[];
    expect(events.some((e) => e.type === 'MODIFIED' && e.object.data.phase === 'done')).toBe(true);
  });

  it('[API-ENC-023] delete waits with a CBOR GET and reads the 404 Status in CBOR', async () => {
    await kubectl(['create', 'configmap', 'd1', '--from-literal=a=1']);
    const { result, exchanges } = await recorded(() => kubectl(['delete', 'configmap', 'd1'], CBOR_GATES));
    expect(result.stdout.trim()).toBe('configmap "d1" deleted');
    const gone = resourceRequests(exchanges).find((x) => x.method === 'GET' && x.status === 404)!;
    expect(gone.responseType).toBe('application/cbor');
    expect(plain(readCbor(Buffer.concat(gone.response)))).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('[API-ENC-014] [API-ENC-023] client-side apply --prune deletes with a DeleteOptions body in CBOR', async () => {
    const both = cm('p1', { a: '1' }, { app: 'prune' }) + '---\n' + cm('p2', { a: '1' }, { app: 'prune' });
    expect((await kubectl(['apply', '-f', '-'], {}, both)).code).toBe(0);
    const { result, exchanges } = await recorded(() => kubectl(['apply', '--prune', '-l', 'app=prune', '-f', '-'], CBOR_GATES, cm('p1', { a: '1' }, { app: 'prune' })));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('configmap/p2 pruned');
    const del = resourceRequests(exchanges).find((x) => x.method === 'DELETE')!;
    expect(del.path).toMatch(/\/configmaps\/p2$/);
    expect([del.contentType, del.status, del.responseType]).toEqual(['application/cbor', 200, 'application/cbor']);
    expect(plain(readCbor(del.requestBody))).toMatchObject({ kind: 'DeleteOptions', apiVersion: 'v1' });
    const listed = resourceRequests(exchanges).filter((x) => x.method === 'GET' && x.path.includes('labelSelector=app%3Dprune'));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((x) => x.responseType === 'application/cbor')).toBe(true);
    expect((await kubectl(['get', 'configmap', 'p2'])).stderr).toContain('NotFound');
  });
});

/**
 * HTTP benchmark: GET throughput of one ConfigMap from the Node host, beside a
 * bare `node:http` server answering every request with the same status,
 * headers and body bytes (captured from the host's own response). Both are
 * driven by the same client, so the ratio is what kubesim's host and core add
 * on top of Node's HTTP stack.
 *
 * Each server runs in its own child process (this file re-run with `serve`),
 * so the load generator and the server each get a core. The client is
 * `node:http` with a keep-alive Agent: C requesters each send their share of
 * a fixed request count, one request at a time. Each round sends its
 * requests in up to 10 batches, the servers taking turns batch by batch; one
 * short warm-up pass each is discarded, and the median of the rounds is
 * reported.
 *
 * One client process tops out at a few thousand requests per second, which
 * caps the bare server and compresses the throughput ratio. So each server
 * also reports its own CPU time, and the bench prints server CPU per
 * request. That ratio is not capped by the client.
 *
 * A third server splits kubesim's overhead: the host's own adaptor
 * (server/adaptor) answering every request with the same captured bytes,
 * without the core. Its CPU beyond bare is the adaptor's share (Request in,
 * Response out); kubesim's beyond it is the core's (handler chain and GET).
 *
 * Run: npx tsx bench/http.bench.ts [requests=20000] [concurrency=16] [rounds=3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { reportFigure } from './figures';

/** What the bare server replays. */
interface Canned {
  status: number;
  headers: Record<string, string>;
  /** base64 of the body bytes. */
  body: string;
}

/** Headers that describe one response or connection rather than the resource. */
const perResponseHeaders = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'app-config', namespace: 'default', labels: { app: 'web', tier: 'frontend' } },
  data: {
    'app.properties': 'mode=production\nlog.level=info\ncache.size=512\nfeature.flags=a,b,c\n',
    'nginx.conf': 'server {\n  listen 8080;\n  location / { proxy_pass http://127.0.0.1:3000; }\n}\n',
    REPLICAS: '3',
  },
};
const objectPath = '/api/v1/namespaces/default/configmaps/app-config';

// ---- server side (child process) -------------------------------------------

async function serveKubesim(): Promise<void> {
  const { startHost } = await import('../server/host');
  const dataDir = mkdtempSync(join(tmpdir(), 'kubesim-http-bench-'));
  const host = await startHost({ port: 0, bindAddress: '127.0.0.1', dataDir, store: 'memory', tls: false, securePort: 0, help: false });
  const res = await fetch(`${host.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(configMap),
  });
  if (res.status !== 201) throw new Error(`create ConfigMap: ${res.status} ${await res.text()}`);
  announce(host.url, async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

/** The host's adaptor answering with the canned response, as the core's response writer would build it. */
async function serveAdaptor(): Promise<void> {
  const { createHostServer } = await import('../server/adaptor/listener');
  const { LightResponse } = await import('../src/core/http/lightResponse');
  const canned = JSON.parse(process.env['BENCH_CANNED'] ?? '') as Canned;
  const body = Buffer.from(canned.body, 'base64');
  const headers = { ...canned.headers, 'content-length': String(body.byteLength) };
  // The core's response writer answers with a LightResponse: the same kind of object here.
  const server = createHostServer({ hostname: '127.0.0.1', fetch: async () => new LightResponse(body, { status: canned.status, headers: { ...headers } }) as unknown as Response });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    announce(`http://127.0.0.1:${port}`, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  });
}

function serveBare(): void {
  const canned = JSON.parse(process.env['BENCH_CANNED'] ?? '') as Canned;
  const body = Buffer.from(canned.body, 'base64');
  const headers = { ...canned.headers, 'content-length': String(body.byteLength) };
  const server = createServer((req, res) => {
    // Drain the (empty) request the way any server must before answering.
    req.resume();
    req.on('end', () => {
      res.writeHead(canned.status, headers);
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    announce(`http://127.0.0.1:${port}`, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  });
}

/**
 * Tells the parent where to connect, answers each `cpu` line on stdin with
 * this process's CPU microseconds so far, and shuts down when stdin closes.
 */
function announce(url: string, close: () => Promise<void>): void {
  process.stdout.write(JSON.stringify({ url }) + '\n');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.stdout.write(JSON.stringify({ cpu: user + system }) + '\n');
  });
  lines.on('close', () => void close().then(() => process.exit(0)));
}

// ---- client side (parent process) ------------------------------------------

interface Child {
  url: string;
  process: ChildProcess;
  lines: Interface;
}

function startChild(kind: 'kubesim' | 'adaptor' | 'bare', env: Record<string, string> = {}): Promise<Child> {
  const self = fileURLToPath(import.meta.url);
  // Re-run this file under the same tsx loader the parent runs with.
  const child = spawn(process.execPath, [...process.execArgv, self, 'serve', kind], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    const early = (code: number | null) => reject(new Error(`${kind} server exited with ${code} before listening`));
    child.once('exit', early);
    lines.once('line', (line) => {
      child.off('exit', early);
      resolve({ url: (JSON.parse(line) as { url: string }).url, process: child, lines });
    });
  });
}

/** The child's CPU time so far, in microseconds. */
async function cpuOf(child: Child): Promise<number> {
  const reply = once(child.lines, 'line');
  child.process.stdin!.write('cpu\n');
  const [line] = (await reply) as [string];
  return (JSON.parse(line) as { cpu: number }).cpu;
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
  child.process.stdin!.end();
  await exited;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function get(agent: Agent, url: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Requests per second for `total` GETs spread over `concurrency` requesters. */
async function load(url: string, total: number, concurrency: number, expected: Buffer): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    let remaining = total;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (remaining > 0) {
          remaining--;
          const reply = await get(agent, url);
          if (reply.status !== 200 || reply.body.byteLength !== expected.byteLength) {
            throw new Error(`${url}: ${reply.status}, ${reply.body.byteLength} bytes`);
          }
        }
      }),
    );
    return total / ((performance.now() - start) / 1000);
  } finally {
    agent.destroy();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 20000);
  const concurrency = Number(process.argv[3] ?? 16);
  const rounds = Number(process.argv[4] ?? 3);

  const kubesim = await startChild('kubesim');
  let bare: Child | undefined;
  let adaptor: Child | undefined;
  try {
    const captureAgent = new Agent({ keepAlive: false });
    const sample = await get(captureAgent, kubesim.url + objectPath);
    captureAgent.destroy();
    if (sample.status !== 200) throw new Error(`GET ConfigMap: ${sample.status} ${sample.body.toString()}`);
    const headers = Object.fromEntries(Object.entries(sample.headers).filter(([k]) => !perResponseHeaders.has(k)));
    const canned: Canned = { status: sample.status, headers, body: sample.body.toString('base64') };
    bare = await startChild('bare', { BENCH_CANNED: JSON.stringify(canned) });
    adaptor = await startChild('adaptor', { BENCH_CANNED: JSON.stringify(canned) });

    const sides = ['kubesim', 'adaptor', 'bare'] as const;
    type Side = (typeof sides)[number];
    const children: Record<Side, Child> = { kubesim, adaptor, bare };
    const targets = { kubesim: kubesim.url + objectPath, adaptor: adaptor.url + objectPath, bare: bare.url + objectPath };
    const warmup = Math.min(total, 2000);
    for (const side of sides) await load(targets[side], warmup, concurrency, sample.body);

    const rate: Record<Side, number[]> = { kubesim: [], adaptor: [], bare: [] };
    const cpu: Record<Side, number[]> = { kubesim: [], adaptor: [], bare: [] };
    // Each round's requests go in batches, the sides taking turns (in a rotating order), so load from
    // elsewhere on a shared machine falls on all alike; a side's figures sum its batches.
    const batches = Math.max(1, Math.min(10, Math.floor(total / 1000)));
    for (let round = 0; round < rounds; round++) {
      const seconds: Record<Side, number> = { kubesim: 0, adaptor: 0, bare: 0 };
      const micros: Record<Side, number> = { kubesim: 0, adaptor: 0, bare: 0 };
      for (let b = 0; b < batches; b++) {
        const n = Math.floor(total / batches) + (b < total % batches ? 1 : 0);
        const shift = (round + b) % sides.length;
        for (const side of [...sides.slice(shift), ...sides.slice(0, shift)]) {
          const before = await cpuOf(children[side]);
          seconds[side] += n / (await load(targets[side], n, concurrency, sample.body));
          micros[side] += (await cpuOf(children[side])) - before;
        }
      }
      for (const side of sides) {
        rate[side].push(total / seconds[side]);
        cpu[side].push(micros[side] / total);
      }
    }

    const k = median(rate.kubesim);
    const b = median(rate.bare);
    const kc = median(cpu.kubesim);
    const ac = median(cpu.adaptor);
    const bc = median(cpu.bare);
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(`http: GET one ConfigMap (${sample.body.byteLength} B), ${total} requests x ${rounds} rounds, ${concurrency} keep-alive requesters; median`);
    console.log(`                        req/s     server CPU us/req`);
    console.log(`kubesim host          ${fmt(k).padStart(8)}  ${kc.toFixed(1).padStart(8)}`);
    console.log(`host adaptor, canned  ${fmt(median(rate.adaptor)).padStart(8)}  ${ac.toFixed(1).padStart(8)}`);
    console.log(`bare node:http        ${fmt(b).padStart(8)}  ${bc.toFixed(1).padStart(8)}`);
    console.log(`server CPU beyond bare: adaptor ${(ac - bc).toFixed(1)} us/req, core ${(kc - ac).toFixed(1)} us/req`);
    console.log(`throughput ratio kubesim/bare ${(k / b).toFixed(2)}  (share of the bare server's req/s; capped by the client)`);
    console.log(`server CPU ratio bare/kubesim ${(bc / kc).toFixed(2)}  (share of the bare server's efficiency; 1 = no overhead)`);
    reportFigure({ id: 'http.cpu.bare', label: 'Node host GET of one ConfigMap, server CPU per request: bare node:http / kubesim', value: bc / kc, unit: 'ratio', baseline: `kubesim ${kc.toFixed(1)} µs/req, bare ${bc.toFixed(1)} µs/req` });
    reportFigure({ id: 'http.cpu.adaptor', label: "Node host GET of one ConfigMap, server CPU per request: bare node:http / the host's adaptor answering canned bytes", value: bc / ac, unit: 'ratio', baseline: `adaptor ${ac.toFixed(1)} µs/req, bare ${bc.toFixed(1)} µs/req` });
    reportFigure({ id: 'http.throughput.bare', label: 'Node host GET of one ConfigMap, req/s: kubesim / bare node:http (capped by the client)', value: k / b, unit: 'ratio', baseline: `kubesim ${fmt(k)} req/s, bare ${fmt(b)} req/s` });
  } finally {
    await Promise.all([stopChild(kubesim), bare && stopChild(bare), adaptor && stopChild(adaptor)]);
  }
}

if (process.argv[2] === 'serve') {
  if (process.argv[3] === 'kubesim') await serveKubesim();
  else if (process.argv[3] === 'adaptor') await serveAdaptor();
  else serveBare();
} else {
  await main();
}

/**
 * Foundation benchmark: Pod creates/s, gets/s and the time to list 2,000 Pods
 * through kubesim's in-process `handle()`, beside the same workload through
 * @ngrok/webernetes' typed client (`cluster.api.corev1`) in the same process,
 * so the ratio says how kubesim compares and not how fast this machine is.
 *
 * What each side does per operation (one operation awaited at a time):
 *
 *   kubesim     kubesim's typed in-process client (`createClient(api)`, client-go's
 *               dynamic client): `pods.create(body)`, `pods.get(name)`,
 *               `pods.list()`. Each call is still an HTTP request through the whole
 *               server pipeline (request info and routing, authentication,
 *               authorization, content negotiation, body decode, defaulting, full
 *               Pod validation, managedFields, namespace check, storage write (JSON
 *               bytes), response encoding), built as a light Request and answered
 *               with a light Response: JSON.stringify in, JSON.parse out, no Fetch
 *               Request, Headers or body stream. Like for like with webernetes'
 *               typed client: both are the typed in-process entry of their project.
 *
 *   kubesim handle()  The same server through `api.handle(new Request(...))` and
 *               `res.json()`, as a fetch-shaped host calls it: the Fetch Request
 *               (undici's, in Node) and its body stream are the caller's cost.
 *
 *   webernetes  The caller awaits `corev1.createNamespacedPod/
 *               readNamespacedPod/listNamespacedPod` with a plain object: the
 *               store structuredClones it, checks the namespace, does a
 *               little Pod validation (name, containers, dnsConfig), writes
 *               JSON.stringify'd bytes into its in-memory etcd through a
 *               transaction and returns a structuredClone; reads JSON.parse
 *               from its etcd. No HTTP semantics, negotiation, defaulting or
 *               managedFields — it is the lower bound of "store an object".
 *
 *   floor       What any `handle()` costs before doing server work: the same
 *               Request is built, its body read and JSON.parse'd, and the
 *               Response type handle() returns (the core's LightResponse) with
 *               the bytes kubesim returned for that operation (captured
 *               beforehand) is read with `res.json()`. kubesim handle() minus
 *               floor is the server's own work.
 *
 *   client floor  The typed client over a handle() that does no server work:
 *               it reads the request body, JSON.parses it and answers the
 *               captured bytes in a LightResponse. The highest kubesim (client) /
 *               webernetes this bench can show is client floor / webernetes.
 *
 * Both clusters are bare: webernetes' Cluster is constructed but never
 * `init()`ed, so no scheduler, kubelet or controller reacts to the Pods, and
 * kubesim's server starts with `controllers: []` (kube-controller-manager's
 * `--controllers=` empty): its garbage collector, ReplicaSet and pod GC
 * controllers would otherwise index every Pod event in the same thread. That
 * is controller work, not API server work; every server step still runs.
 *
 * Each round uses a fresh server on each side. Within a round the sides take
 * turns in batches of 100 operations (the first side rotating between rounds),
 * so a burst of load from elsewhere on a shared machine falls on every side
 * alike, and each batch is timed in process CPU time (no side waits on I/O). One smaller warm-up round is discarded, the median of the rest is
 * reported.
 *
 * Run: npx tsx bench/foundation.bench.ts [pods=2000] [rounds=5]
 */
import type { Cluster as WebernetesCluster } from '@ngrok/webernetes';
import { createApiServer, createClient, createMemoryStorage, LightResponse, type ApiServer, type ApiServerOptions, type RequestHandler, type ResourceInterface } from '../src/core';
import { reportFigure } from './figures';

const pods = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
/** Lists per round (each returns every Pod). */
const listsPerRound = 3;
/** The warm-up round only needs enough operations to get everything compiled. */
const warmupPods = Math.min(pods, 500);
const namespace = 'default';

type WebernetesPod = Parameters<WebernetesCluster['api']['corev1']['createNamespacedPod']>[0]['body'];

// The published dist uses extensionless directory imports that Node's ESM
// resolver refuses; the package also ships its TypeScript sources, which tsx
// runs as they are. Loaded by URL so tsc checks only the published types.
const webernetesEntry = new URL('../src/index.ts', import.meta.resolve('@ngrok/webernetes')).href;
const { Cluster } = (await import(webernetesEntry)) as typeof import('@ngrok/webernetes');

function podName(i: number): string {
  return `web-${String(i).padStart(5, '0')}`;
}

/** A realistic Pod: an app container with ports, env, probe and resources, plus a sidecar. */
function podBody(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(i),
      namespace,
      labels: { app: 'web', tier: 'frontend', 'app.kubernetes.io/instance': `web-${i % 10}`, 'pod-template-hash': '7c9d8f6b5' },
      annotations: { 'kubesim.example/owner': 'team-a' },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'production' }, { name: 'REPLICA', value: String(i) }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        },
        {
          name: 'log-shipper',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'tail -F /var/log/app.log'],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '50m', memory: '32Mi' } },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
    },
  };
}

interface Workload {
  name: string;
  create(i: number): Promise<void>;
  get(i: number): Promise<void>;
  /** Returns the number of items listed. */
  list(): Promise<number>;
  close(): Promise<void>;
}

interface RoundResult {
  createsPerSecond: number;
  getsPerSecond: number;
  /** Milliseconds for one list of every Pod. */
  listMs: number;
}

const base = 'http://127.0.0.1/api/v1/namespaces/default/pods';

/** An API server without kube-controller-manager's controllers, as the webernetes Cluster runs none. */
function bareServer(): ApiServerOptions {
  return { storage: createMemoryStorage(), controllers: [] };
}

/**
 * The namespace's `default` ServiceAccount, which the serviceaccount controller would have made: the
 * ServiceAccount admission plugin refuses pods whose account does not exist, as kube-apiserver does.
 */
async function createDefaultServiceAccount(api: ApiServer): Promise<void> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  const res = await api.handle(new Request('http://127.0.0.1/api/v1/namespaces/default/serviceaccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  if (res.status !== 201) throw new Error(`kubesim: default ServiceAccount: ${res.status} ${await res.text()}`);
}

const podsResource = { group: '', version: 'v1', resource: 'pods' };

/** The three operations through kubesim's typed client, on any handler (the server, or the client floor's). */
function clientOperations(name: string, pods: ResourceInterface): Omit<Workload, 'close'> {
  return {
    name,
    async create(i) {
      await pods.create(podBody(i));
    },
    async get(i) {
      const pod = await pods.get(podName(i));
      if (pod.metadata.name !== podName(i)) throw new Error(`${name}: wrong pod`);
    },
    async list() {
      return (await pods.list<{ items: unknown[] }>()).items.length;
    },
  };
}

async function kubesimClientWorkload(): Promise<Workload> {
  const api: ApiServer = createApiServer(bareServer());
  await api.ready;
  await createDefaultServiceAccount(api);
  return { ...clientOperations('kubesim', createClient(api).resource(podsResource).namespace(namespace)), close: () => api.close() };
}

async function kubesimHandleWorkload(): Promise<Workload> {
  const api: ApiServer = createApiServer(bareServer());
  await api.ready;
  await createDefaultServiceAccount(api);
  async function call(request: Request, want: number): Promise<unknown> {
    const res = await api.handle(request);
    const body: unknown = await res.json();
    if (res.status !== want) throw new Error(`kubesim: ${request.method} ${request.url} = ${res.status} ${JSON.stringify(body)}`);
    return body;
  }
  return {
    name: 'kubesim handle()',
    async create(i) {
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(podBody(i)) };
      await call(new Request(base, init), 201);
    },
    async get(i) {
      const pod = (await call(new Request(`${base}/${podName(i)}`), 200)) as { metadata: { name: string } };
      if (pod.metadata.name !== podName(i)) throw new Error('kubesim: wrong pod');
    },
    async list() {
      const list = (await call(new Request(base), 200)) as { items: unknown[] };
      return list.items.length;
    },
    close: () => api.close(),
  };
}

async function webernetesWorkload(): Promise<Workload> {
  const cluster = new Cluster({ nodes: 1 });
  const corev1 = cluster.api.corev1;
  await corev1.createNamespace({ body: { metadata: { name: namespace } } });
  return {
    name: 'webernetes',
    async create(i) {
      await corev1.createNamespacedPod({ namespace, body: podBody(i) as WebernetesPod });
    },
    async get(i) {
      const pod = await corev1.readNamespacedPod({ namespace, name: podName(i) });
      if (pod.metadata?.name !== podName(i)) throw new Error('webernetes: wrong pod');
    },
    async list() {
      return (await corev1.listNamespacedPod({ namespace })).items.length;
    },
    close: () => cluster.close(),
  };
}

/** A response body as handle() returns it: a stored object's JSON text, or a list's bytes. */
type Body = string | Uint8Array;

/** Response bodies kubesim returns for each operation, as its LightResponses hold them, for the floors to replay. */
interface Captured {
  created: Body;
  got: Body;
  listed: Body;
  contentType: string;
  /** The got body with the Pod's name replaced (same length: every name has the same width). */
  gotAs(name: string): Body;
}

async function captureKubesimResponses(): Promise<Captured> {
  const api = createApiServer(bareServer());
  await api.ready;
  await createDefaultServiceAccount(api);
  const body = async (request: Request): Promise<Body> => {
    const parts = LightResponse.lightParts(await api.handle(request));
    if (!parts?.body) throw new Error(`kubesim: ${request.method} ${request.url} did not answer a complete body`);
    return parts.body;
  };
  try {
    const init = (i: number) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(podBody(i)) });
    const created = await body(new Request(base, init(0)));
    for (let i = 1; i < pods; i++) await body(new Request(base, init(i)));
    const got = await body(new Request(`${base}/${podName(0)}`));
    const listed = await body(new Request(base));
    const text = typeof got === 'string' ? got : new TextDecoder().decode(got);
    const gotAs = (name: string) => (typeof got === 'string' ? text.replaceAll(podName(0), name) : new TextEncoder().encode(text.replaceAll(podName(0), name)));
    return { created, got, listed, contentType: 'application/json', gotAs };
  } finally {
    await api.close();
  }
}

/** The answer handle() would give, replayed: the Response type handle() returns, with kubesim's body. */
function replay(status: number, body: Body, contentType: string): Response {
  const headers = { 'cache-control': 'no-cache, private', 'content-type': contentType };
  if (typeof body === 'string') return LightResponse.sized(body, { status, headers }) as unknown as Response;
  return new LightResponse(body, { status, headers: { ...headers, 'content-length': String(body.byteLength) } }) as unknown as Response;
}

async function floorWorkload(captured: Captured): Promise<Workload> {
  async function handle(request: Request, status: number, body: Body): Promise<Response> {
    if (request.body) JSON.parse(await request.text());
    return replay(status, body, captured.contentType);
  }
  let created = 0; // the floor stores nothing; list reports what was "created"
  return {
    name: 'floor',
    async create(i) {
      created++;
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(podBody(i)) };
      await (await handle(new Request(base, init), 201, captured.created)).json();
    },
    async get(i) {
      await (await handle(new Request(`${base}/${podName(i)}`), 200, captured.got)).json();
    },
    async list() {
      const list = (await (await handle(new Request(base), 200, captured.listed)).json()) as { items: unknown[] };
      if (list.items.length !== pods) throw new Error('floor: replayed list is incomplete');
      return created;
    },
    close: async () => {},
  };
}

/**
 * The typed client over a handle() with no server work: the request body is read and parsed, the
 * captured answer for the operation replayed (a get answers the captured Pod under the asked name's
 * path, so the client's name check holds).
 */
async function clientFloorWorkload(captured: Captured): Promise<Workload> {
  const gotByName = new Map<string, Body>();
  let created = 0;
  const handler: RequestHandler = {
    async handle(request) {
      if (request.method === 'POST') {
        JSON.parse(await request.text());
        created++;
        return replay(201, captured.created, captured.contentType);
      }
      const name = request.url.slice(request.url.lastIndexOf('/') + 1);
      if (name === 'pods') return replay(200, captured.listed, captured.contentType);
      let got = gotByName.get(name);
      if (!got) gotByName.set(name, (got = captured.gotAs(name)));
      return replay(200, got, captured.contentType);
    },
  };
  const ops = clientOperations('client floor', createClient(handler).resource(podsResource).namespace(namespace));
  return {
    ...ops,
    async list() {
      const listed = await ops.list();
      if (listed !== pods) throw new Error('client floor: replayed list is incomplete');
      return created;
    },
    close: async () => {},
  };
}

/**
 * This process's CPU time. Every operation here is in-process JavaScript with
 * no I/O to wait on, so on an idle machine CPU time equals wall time; on a
 * shared one it leaves out the time other processes held the cores.
 */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Operations each side runs before the next side takes over, so load from elsewhere on the machine falls on all sides alike. */
const batch = 100;

/**
 * One round: a fresh workload per side, then creates, gets and lists, each
 * phase interleaved across the sides in batches (the first side rotating
 * between rounds), each side's time summed over its batches.
 */
async function runRound(order: Side[], n: number): Promise<Record<Side, RoundResult>> {
  const open = await Promise.all(order.map((side) => sides[side]()));
  const workloads = order.map((side, i) => ({ side, w: open[i]! }));
  try {
    const spent = new Map<Workload, number>();
    async function phase(count: number, op: (w: Workload, i: number) => Promise<void>): Promise<Map<Workload, number>> {
      spent.clear();
      for (let from = 0; from < count; from += batch) {
        for (const { w } of workloads) {
          const start = cpuSeconds();
          for (let i = from; i < Math.min(count, from + batch); i++) await op(w, i);
          spent.set(w, (spent.get(w) ?? 0) + cpuSeconds() - start);
        }
      }
      return new Map(spent);
    }
    const create = await phase(n, (w, i) => w.create(i));
    const get = await phase(n, (w, i) => w.get(i));
    const list = await phase(listsPerRound, async (w) => {
      const listed = await w.list();
      if (listed !== n) throw new Error(`${w.name}: listed ${listed} of ${n} pods`);
    });
    const out = {} as Record<Side, RoundResult>;
    for (const { side, w } of workloads) {
      out[side] = { createsPerSecond: n / create.get(w)!, getsPerSecond: n / get.get(w)!, listMs: (list.get(w)! * 1000) / listsPerRound };
    }
    return out;
  } finally {
    for (const { w } of workloads) await w.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const captured = await captureKubesimResponses();
const sides = {
  kubesim: kubesimClientWorkload,
  handle: kubesimHandleWorkload,
  webernetes: webernetesWorkload,
  floor: () => floorWorkload(captured),
  clientFloor: () => clientFloorWorkload(captured),
};
type Side = keyof typeof sides;
const sideNames = Object.keys(sides) as Side[];
const results = Object.fromEntries(sideNames.map((side) => [side, []])) as unknown as Record<Side, RoundResult[]>;

for (let round = 0; round <= rounds; round++) {
  // Rotate who goes first in each batch so heap growth and JIT state favour no side.
  const order = sideNames.map((_, i) => sideNames[(i + round) % sideNames.length]!);
  const n = round === 0 ? warmupPods : pods; // round 0 is the warm-up
  const r = await runRound(order, n);
  if (round > 0) for (const side of sideNames) results[side].push(r[side]);
}

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
const rows: string[][] = [
  ['operation', 'kubesim client', 'webernetes', 'client/webernetes', 'kubesim handle()', 'handle()/webernetes', 'floor', 'handle()/floor', 'client floor'],
  row('create', 'create Pod (ops/s)', (r) => r.createsPerSecond, 'rate'),
  row('get', 'get Pod (ops/s)', (r) => r.getsPerSecond, 'rate'),
  row('list', `list ${pods} Pods (ms)`, (r) => r.listMs, 'time'),
];

/**
 * Medians of each side and the speed ratios (>1: the first named is faster): the typed client
 * against webernetes' typed client (the goal rows), handle(Request) against webernetes and
 * against its floor, and each floor against webernetes (the highest ratio its path can show).
 */
function row(id: string, label: string, pick: (r: RoundResult) => number, kind: 'rate' | 'time'): string[] {
  const m = Object.fromEntries(sideNames.map((side) => [side, median(results[side].map(pick))])) as Record<Side, number>;
  const speed = (a: number, b: number) => (kind === 'rate' ? a / b : b / a);
  const unit = kind === 'rate' ? 'ops/s' : 'ms';
  const w = `webernetes ${fmt(m.webernetes)} ${unit}`;
  reportFigure({ id: `foundation.${id}.webernetes`, label: `${label}, kubesim typed client / webernetes typed client`, value: speed(m.kubesim, m.webernetes), unit: 'ratio', baseline: `kubesim ${fmt(m.kubesim)} ${unit}, ${w}; through handle(Request) ${fmt(m.handle)} ${unit}` });
  reportFigure({ id: `foundation.${id}.handle.webernetes`, label: `${label}, kubesim through handle(Request) / webernetes typed client`, value: speed(m.handle, m.webernetes), unit: 'ratio', baseline: `kubesim handle() ${fmt(m.handle)} ${unit}, ${w}` });
  reportFigure({ id: `foundation.${id}.floor`, label: `${label}, kubesim through handle(Request) / floor`, value: speed(m.handle, m.floor), unit: 'ratio', baseline: `floor ${fmt(m.floor)} ${unit}` });
  // A floor against webernetes: the best its path can score there, whatever the server does.
  reportFigure({ id: `foundation.${id}.ceiling`, label: `${label}, client floor / webernetes: the highest kubesim typed client / webernetes this bench can show`, value: speed(m.clientFloor, m.webernetes), unit: 'ratio', baseline: `client floor ${fmt(m.clientFloor)} ${unit}, ${w}` });
  reportFigure({ id: `foundation.${id}.handle.ceiling`, label: `${label}, floor / webernetes: the highest kubesim handle() / webernetes this bench can show`, value: speed(m.floor, m.webernetes), unit: 'ratio', baseline: `floor ${fmt(m.floor)} ${unit}, ${w}` });
  return [label, fmt(m.kubesim), fmt(m.webernetes), speed(m.kubesim, m.webernetes).toFixed(2), fmt(m.handle), speed(m.handle, m.webernetes).toFixed(2), fmt(m.floor), speed(m.handle, m.floor).toFixed(2), fmt(m.clientFloor)];
}

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((l) => l[c]!.length)));
console.log(`foundation: ${pods} Pods, median of ${rounds} rounds after 1 warm-up; ratios are speed ratios (> 1: the first named is faster)`);
console.log(rows.map((l) => l.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n'));

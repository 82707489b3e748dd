/**
 * Scheduler benchmark: a server with N simulated nodes (100 by default) on a
 * fake clock gets P pending pods (100 by default), created one at a time
 * through `api.handle()`; the time from the first create until no pod is
 * left unbound (polled with `fieldSelector=spec.nodeName=`) is the
 * scheduling time. Beside it, the same creates on a server without nodes
 * are the baseline: the ratio scheduling/creation is what to compare
 * between commits (the kubelets starting the bound pods run in the same
 * thread on both sides' first half, so it is a whole-cluster figure).
 *
 * Run: npx tsx bench/scheduler.bench.ts [nodes=100] [pods=100] [rounds=3]
 */
import { pathToFileURL } from 'node:url';
import { createApiServer } from '../src/core/apiserver';
import { createMemoryStorage } from '../src/core/storage';
import { FakeClock } from '../src/core/util/clock';
import { reportFigure } from './figures';

export interface SchedulerBenchRow {
  nodes: number;
  pods: number;
  createSeconds: number;
  scheduleSeconds: number;
  /** scheduleSeconds / createSeconds. */
  ratio: number;
}

const podBody = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${String(i).padStart(4, '0')}`, labels: { app: 'bench' } },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
});

async function server(nodes: number) {
  const api = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock('2026-01-01T00:00:00Z'), controllers: ['*'], ...(nodes ? { simulatedNodes: nodes } : {}) });
  await api.ready;
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await api.handle(new Request(`http://bench${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined }));
    return { status: res.status, json: await res.json() };
  };
  // Polled every 20ms: a list of every pod costs the server a decode of each, which would crowd out the work measured.
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 20));
  };
  if (nodes) await until(async () => (await call('GET', '/api/v1/nodes')).json.items.length === nodes);
  await until(async () => (await call('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
  return { api, call, until };
}

async function createAll(call: (method: string, path: string, body?: unknown) => Promise<{ status: number }>, pods: number): Promise<void> {
  for (let i = 0; i < pods; i++) {
    const { status } = await call('POST', '/api/v1/namespaces/default/pods', podBody(i));
    if (status !== 201) throw new Error(`create ${i}: ${status}`);
  }
}

export async function schedulerBench(nodes: number, pods: number): Promise<SchedulerBenchRow> {
  const bare = await server(0);
  let start = performance.now();
  await createAll(bare.call, pods);
  const createSeconds = (performance.now() - start) / 1000;
  await bare.api.close();

  const cluster = await server(nodes);
  start = performance.now();
  await createAll(cluster.call, pods);
  await cluster.until(async () => (await cluster.call('GET', '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D')).json.items.length === 0);
  const scheduleSeconds = (performance.now() - start) / 1000;
  await cluster.api.close();
  return { nodes, pods, createSeconds, scheduleSeconds, ratio: scheduleSeconds / createSeconds };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [nodes = 100, pods = 100, rounds = 3] = process.argv.slice(2).map(Number);
  const rows: SchedulerBenchRow[] = [];
  for (let r = 0; r < rounds; r++) rows.push(await schedulerBench(nodes, pods));
  console.table(rows.map((r) => ({ nodes: r.nodes, pods: r.pods, 'create s': r.createSeconds.toFixed(3), 'create+schedule s': r.scheduleSeconds.toFixed(3), ratio: r.ratio.toFixed(2) })));
  const median = [...rows].sort((a, b) => a.ratio - b.ratio)[Math.floor(rows.length / 2)]!;
  reportFigure({ id: 'scheduler.placeRatio', label: `${pods} pods placed on ${nodes} simulated nodes, time over creating them on a server without nodes`, value: Number(median.ratio.toFixed(2)), unit: 'ratio (lower is better)', baseline: `${pods} creates without nodes` });
  process.exit(0);
}

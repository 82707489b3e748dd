/**
 * Namespace deletion benchmark: a namespace is filled with N objects (5,000
 * by default: ConfigMaps, Secrets and unbound Pods in turn) through
 * `api.handle()`, one create at a time; then it is deleted and the time until
 * GET of the namespace answers 404 is taken. That covers the namespace
 * controller listing and deleting every object, the garbage collector and
 * the other controllers seeing each event, and the final removal. The ratio
 * deletion/creation is what to compare between commits: above 1, emptying a
 * namespace costs more than filling it.
 *
 * Run: npx tsx bench/deletion.bench.ts [objects=5000] [rounds=3]
 */
import { pathToFileURL } from 'node:url';
import { createApiServer } from '../src/core/apiserver';
import { createMemoryStorage } from '../src/core/storage';

export interface DeletionBenchRow {
  objects: number;
  createSeconds: number;
  deleteSeconds: number;
  /** deleteSeconds / createSeconds. */
  ratio: number;
}

function objectFor(i: number): { path: string; body: unknown } {
  const name = `obj-${String(i).padStart(5, '0')}`;
  switch (i % 3) {
    case 0:
      return { path: 'configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { key: 'x'.repeat(128) } } };
    case 1:
      return { path: 'secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, labels: { app: 'bench' } }, stringData: { token: 'y'.repeat(64) } } };
    default:
      return { path: 'pods', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } };
  }
}

export async function deletionBench(n: number): Promise<DeletionBenchRow> {
  const api = createApiServer({ storage: createMemoryStorage() });
  await api.ready;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api.handle(new Request(`http://bench${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined }));
    await res.arrayBuffer();
    return res.status;
  };
  const ns = 'bulk';
  if ((await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })) !== 201) throw new Error('namespace create failed');
  let start = performance.now();
  for (let i = 0; i < n; i++) {
    const { path, body } = objectFor(i);
    const status = await call('POST', `/api/v1/namespaces/${ns}/${path}`, body);
    if (status !== 201) throw new Error(`create ${path} ${i}: ${status}`);
  }
  const createSeconds = (performance.now() - start) / 1000;

  start = performance.now();
  if ((await call('DELETE', `/api/v1/namespaces/${ns}`)) !== 200) throw new Error('namespace delete failed');
  while ((await call('GET', `/api/v1/namespaces/${ns}`)) !== 404) await new Promise((r) => setTimeout(r, 1));
  const deleteSeconds = (performance.now() - start) / 1000;
  // The namespace is only removed once empty; check nothing was left behind anyway.
  const left = await api.storage.range('/registry/', {});
  if (left.kvs.some((kv) => kv.key.includes(`/${ns}/`))) throw new Error('objects left in the deleted namespace');
  await api.close();
  return { objects: n, createSeconds, deleteSeconds, ratio: deleteSeconds / createSeconds };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 5000);
  const rounds = Number(process.argv[3] ?? 3);
  const rows: DeletionBenchRow[] = [];
  for (let r = 0; r < rounds; r++) rows.push(await deletionBench(n));
  const median = [...rows].sort((a, b) => a.ratio - b.ratio)[Math.floor(rows.length / 2)]!;
  console.log(`namespace of ${n} objects (ConfigMaps, Secrets, unbound Pods), memory store, ${rounds} rounds, median by ratio:`);
  console.table(rows.map((r) => ({ objects: r.objects, 'create s': r.createSeconds.toFixed(2), 'delete s': r.deleteSeconds.toFixed(2), 'delete/create': r.ratio.toFixed(2) })));
  console.log(`median delete/create: ${median.ratio.toFixed(2)} (create ${median.createSeconds.toFixed(2)} s, delete ${median.deleteSeconds.toFixed(2)} s)`);
}

import { createApiServer, createMemoryStorage } from '../src/core';
const api = createApiServer({ storage: createMemoryStorage() });
await api.ready;
const base = 'http://127.0.0.1/api/v1/namespaces/default/pods';
const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web', tier: 'frontend' }, annotations: { 'a/b': 'c' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'production' }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } }, readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 } },
  { name: 'log-shipper', image: 'busybox:1.36', command: ['sh', '-c', 'tail'], resources: { requests: { cpu: '10m' } } }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30 } });
const mode = process.argv[2] ?? 'create';
const N = Number(process.argv[3] ?? 6000);
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const r = await api.handle(new Request(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) }));
  if (r.status !== 201) throw new Error(await r.text());
  await r.json();
}
const t1 = performance.now();
console.log('creates/s', (N / (t1 - t0)) * 1000);
if (mode === 'get') {
  const t2 = performance.now();
  for (let k = 0; k < 20; k++) for (let i = 0; i < N; i++) {
    const r = await api.handle(new Request(`${base}/web-${i}`));
    await r.json();
  }
  console.log('gets/s', (20 * N / (performance.now() - t2)) * 1000);
}

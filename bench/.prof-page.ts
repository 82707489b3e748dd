import { createApiServer, createMemoryStorage } from '../src/core';
const api = createApiServer({ storage: createMemoryStorage() });
await api.ready;
const NS = '/api/v1/namespaces/default/configmaps';
await api.handle(new Request('http://x' + NS, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'template' }, data: { a: 'x'.repeat(256) } }) }));
const t = (await api.storage.get('/registry/configmaps/default/template'))!.value;
for (let i = 0; i < 100000; i++) { const n = `cm-${String(i).padStart(6, '0')}`; await api.storage.create(`/registry/configmaps/default/${n}`, t.replaceAll('"template"', JSON.stringify(n))); }
const t0 = performance.now();
for (let i = 0; i < 40; i++) await (await api.handle(new Request('http://x' + NS + '?limit=500'))).json();
console.log('page ms', (performance.now() - t0) / 40);

import { createApiServer, createMemoryStorage } from '../src/core';
const s = createMemoryStorage() as any;
const counts: Record<string, number> = {};
for (const m of ['get', 'range', 'create', 'update', 'delete', 'currentRevision', 'compactedRevision']) { const f = s[m].bind(s); s[m] = (...a: any[]) => { counts[m] = (counts[m] ?? 0) + 1; return f(...a); }; }
const api = createApiServer({ storage: s });
await api.ready;
await new Promise((r) => setTimeout(r, 200));
const path = 'http://x/api/v1/namespaces/default/configmaps';
for (const k of Object.keys(counts)) delete counts[k];
for (let i = 0; i < 10; i++) await api.handle(new Request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${i}` }, data: { a: 'x' } }) }));
await new Promise((r) => setTimeout(r, 100));
console.log('per 10 creates', counts);
for (const k of Object.keys(counts)) delete counts[k];
for (let i = 0; i < 10; i++) await api.handle(new Request(path + '/b-' + i));
console.log('per 10 gets', counts);
await api.close();

import 'fake-indexeddb/auto';
import { createApiServer } from '../src/core';
import { createIndexedDbStorage } from '../src/sw/storage';
const storage = await createIndexedDbStorage('x');
const api = createApiServer({ storage });
await api.ready;
const path = 'http://x/api/v1/namespaces/default/configmaps';
let t = performance.now();
for (let i = 0; i < 300; i++) {
  const res = await api.handle(new Request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${i}` }, data: { a: 'x' } }) }));
  if (res.status !== 201) throw new Error(await res.text());
}
console.log('create ms', (performance.now() - t) / 300);
t = performance.now();
for (let i = 0; i < 300; i++) await (await api.handle(new Request(path + '/b-' + i))).text();
console.log('get ms', (performance.now() - t) / 300);
await api.close();

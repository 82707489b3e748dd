import { createApiServer } from '../src/core';
import { createSqliteStorage } from '../server/storage';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const dir = mkdtempSync(join(tmpdir(), 'x-'));
const storage = createSqliteStorage(join(dir, 'api.db'));
const api = createApiServer({ storage });
await api.ready;
const r0 = await api.storage.currentRevision();
const t0 = performance.now();
for (let i = 0; i < 500; i++) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'x'.repeat(256) } });
  const res = await api.handle(new Request('http://127.0.0.1/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  if (res.status !== 201) throw new Error(String(res.status));
}
console.log('ms/create', (performance.now() - t0) / 500, 'revisions', (await api.storage.currentRevision()) - r0);
await api.close();

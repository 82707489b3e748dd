import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../storage/memory';
import type { Storage } from '../../storage/interface';
import { newTestServer } from '../../testing/client';

const CM = '/api/v1/namespaces/default/configmaps';
const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };
const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });

/**
 * Memory storage whose next update of `key` first lets another writer change
 * the object, as a controller writing between the patcher's read and its
 * compare-and-swap does.
 */
function racingStorage(): { storage: Storage; raceOnce(key: string, change: (value: string) => string): void } {
  const inner = createMemoryStorage();
  let race: { key: string; change: (value: string) => string } | undefined;
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'update') return Reflect.get(target, prop, receiver) as unknown;
      return async (key: string, value: string, expected: number) => {
        const r = race;
        if (r && r.key === key) {
          race = undefined;
          const cur = (await inner.get(key))!;
          await inner.update(key, r.change(cur.value), cur.modRevision);
        }
        return inner.update(key, value, expected);
      };
    },
  });
  return { storage, raceOnce: (key, change) => (race = { key, change }) };
}

describe('server-side apply through PATCH', () => {
  it('API-SSA-041: an apply whose object changed between read and write is applied again to the new object, as GuaranteedUpdate retries', async () => {
    const { storage, raceOnce } = racingStorage();
    const t = await newTestServer({ storage });
    const first = await t.json('PATCH', `${CM}/c?fieldManager=m1`, { body: JSON.stringify(cm({ a: '1' })), headers: applyHeaders });
    expect(first.status).toBe(201);
    // another writer adds a label after the apply read the object
    raceOnce('/registry/configmaps/default/c', (v) => {
      const o = JSON.parse(v) as { metadata: { labels?: Record<string, string> } };
      o.metadata.labels = { other: 'writer' };
      return JSON.stringify(o);
    });
    const second = await t.json('PATCH', `${CM}/c?fieldManager=m2`, { body: JSON.stringify(cm({ b: '2' })), headers: applyHeaders });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ a: '1', b: '2' });
    expect(second.body.metadata.labels).toEqual({ other: 'writer' });
    // written once after the other writer: create, the other write, the retried apply
    expect(Number(second.body.metadata.resourceVersion)).toBe(Number(first.body.metadata.resourceVersion) + 2);
    expect(second.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['m1', 'm2']);
  });

  it('API-ERR-002: a merge patch pinning the resourceVersion it read is still 409 when the object changed before the write', async () => {
    const { storage, raceOnce } = racingStorage();
    const t = await newTestServer({ storage });
    const created = await t.json('POST', CM, { body: cm({ a: '1' }) });
    raceOnce('/registry/configmaps/default/c', (v) => v.replace('"a":"1"', '"a":"0"'));
    const r = await t.json('PATCH', `${CM}/c`, {
      body: JSON.stringify({ metadata: { resourceVersion: created.body.metadata.resourceVersion }, data: { a: '2' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe('Conflict');
    expect(r.body.message).toBe('Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('[API-FV-002] a JSON apply body repeating a key (nested, or beside colons in strings) is found as in a YAML body; one without is not', async () => {
    const t = await newTestServer();
    const dup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"x:y","a":"z"}},"data":{"k":"v:{\\"q\\":1}"}}';
    const strict = await t.json('PATCH', `${CM}/c?fieldManager=m1&fieldValidation=Strict`, { body: dup, headers: applyHeaders });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toMatch(/^error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "a" already set in map/);
    const clean = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"xy"},"annotations":{"q":"{\\"r\\":[\\":\\"]}"}},"data":{"k":"v:{\\"q\\":1}"}}';
    const ok = await t.json('PATCH', `${CM}/c?fieldManager=m1&fieldValidation=Strict`, { body: clean, headers: applyHeaders });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('warning')).toBeNull();
    expect(ok.body.data).toEqual({ k: 'v:{"q":1}' });
    expect(ok.body.metadata.annotations).toEqual({ q: '{"r":[":"]}' });
  });
});

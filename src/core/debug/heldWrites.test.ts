/** /debug/kubesim/hold-write through handle(): a write held before or after the backend commits it. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../testing/client';
import { createMemoryStorage } from '../storage/memory';
import { withHeldWrites } from './heldWrites';

const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

async function heldKey(t: Awaited<ReturnType<typeof newTestServer>>): Promise<string | undefined> {
  for (let i = 0; i < 200; i++) {
    const s = (await t.json('GET', '/debug/kubesim/hold-write')).body as { held?: string };
    if (s.held) return s.held;
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}

describe('held writes', () => {
  it('before-commit: nothing is stored while held; released, the create completes', async () => {
    const t = await newTestServer();
    const armed = await t.json('POST', '/debug/kubesim/hold-write?phase=before-commit&key=/registry/configmaps/default/held');
    expect(armed.body).toEqual({ armed: { phase: 'before-commit', keyPrefix: '/registry/configmaps/default/held' } });
    // A write to another key is not held.
    expect((await t.json('POST', CMS, { body: cm('other') })).status).toBe(201);
    const pending = t.json('POST', CMS, { body: cm('held-1') });
    expect(await heldKey(t)).toBe('/registry/configmaps/default/held-1');
    expect((await t.request('GET', '/debug/kubesim/storage/registry/configmaps/default/held-1')).status).toBe(404);
    expect((await t.json('DELETE', '/debug/kubesim/hold-write')).body).toEqual({});
    expect((await pending).status).toBe(201);
    expect((await t.json('GET', `${CMS}/held-1`)).status).toBe(200);
  });

  it('after-commit: the object is stored before the create answers', async () => {
    const t = await newTestServer();
    await t.json('POST', '/debug/kubesim/hold-write?phase=after-commit&key=/registry/configmaps/default/held');
    const pending = t.json('POST', CMS, { body: cm('held-2') });
    expect(await heldKey(t)).toBe('/registry/configmaps/default/held-2');
    const raw = await t.request('GET', '/debug/kubesim/storage/registry/configmaps/default/held-2');
    expect(raw.status).toBe(200);
    expect(JSON.parse(await raw.text()).metadata.name).toBe('held-2');
    await t.json('DELETE', '/debug/kubesim/hold-write');
    expect((await pending).status).toBe(201);
  });

  it('rejects a bad phase or key', async () => {
    const t = await newTestServer();
    expect((await t.json('POST', '/debug/kubesim/hold-write?phase=never&key=/registry/x')).status).toBe(400);
    expect((await t.json('POST', '/debug/kubesim/hold-write?phase=after-commit&key=x')).status).toBe(400);
  });
});

describe('withHeldWrites', () => {
  it('passes every watch argument on, the backend-ended callback included', async () => {
    const inner = createMemoryStorage();
    const seen: unknown[][] = [];
    const watch = inner.watch.bind(inner);
    inner.watch = (...args) => {
      seen.push(args);
      return watch(...args);
    };
    const onEnded = () => undefined;
    const stop = await withHeldWrites(inner).storage.watch('/registry/', 0, () => undefined, undefined, onEnded);
    expect(seen[0]![4]).toBe(onEnded);
    stop();
  });
});

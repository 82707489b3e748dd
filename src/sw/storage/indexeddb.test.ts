import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { Storage } from '../../core/storage/interface';
import { runStorageConformance } from '../../core/storage/testing/conformance';
import { createIndexedDbStorage, prefixEnd } from './indexeddb';

let seq = 0;
const names = new WeakMap<Storage, string>();

async function open(name: string): Promise<Storage> {
  const s = await createIndexedDbStorage(name);
  names.set(s, name);
  return s;
}

runStorageConformance('indexeddb', () => open(`kubesim-test-${++seq}`), {
  reopen: async (s) => {
    const name = names.get(s)!;
    await s.close();
    return open(name);
  },
});

describe('indexeddb storage quirks', () => {
  it('computes the end of a prefix range by UTF-16 code unit', () => {
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('/registry/pods/')).toBe('/registry/pods0');
    expect(prefixEnd('a\uFFFF')).toBe('b');
  });

  it('finishes writes queued before close and persists them', async () => {
    const name = `kubesim-test-${++seq}`;
    const s = await open(name);
    const writes = [s.create('/r/a', '1'), s.create('/r/b', '1')];
    await s.close();
    await Promise.all(writes);
    const t = await open(name);
    expect(await t.currentRevision()).toBe(2);
    expect((await t.range('/r/')).count).toBe(2);
    await t.close();
  });
});

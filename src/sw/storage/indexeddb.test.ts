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

  it('reads the latest state from memory and writes in one transaction that reads nothing first', async () => {
    const s = await open(`kubesim-test-${++seq}`);
    await s.create('/r/ns', 'namespace');
    const opened: string[] = [];
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof transaction>) {
      opened.push(String(args[1] ?? 'readonly'));
      return transaction.apply(this, args);
    };
    const reads: string[] = [];
    const get = IDBObjectStore.prototype.get;
    IDBObjectStore.prototype.get = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
      reads.push(this.name);
      return get.call(this, query);
    };
    try {
      expect((await s.get('/r/ns'))?.value).toBe('namespace');
      expect(opened).toEqual([]);
      const kv = await s.create('/r/a', '1');
      expect(opened).toEqual(['readwrite']);
      expect(reads).toEqual([]);
      expect(await s.get('/r/a')).toEqual(kv);
      await expect(s.create('/r/a', '2')).rejects.toMatchObject({ code: 'KeyExists' });
      // A create that fails its precondition opens no transaction at all.
      expect(opened).toEqual(['readwrite']);
    } finally {
      IDBDatabase.prototype.transaction = transaction;
      IDBObjectStore.prototype.get = get;
    }
    await s.close();
  });

  it('fails a write whose revision another writer took, then follows the database again', async () => {
    const name = `kubesim-test-${++seq}`;
    const a = await open(name);
    const b = await open(name);
    await a.create('/r/a', '1');
    // b still believes the store is empty: its revision 1 is taken.
    await expect(b.create('/r/b', '1')).rejects.toMatchObject({ code: 'Internal' });
    expect(await b.currentRevision()).toBe(1);
    expect((await b.get('/r/a'))?.value).toBe('1');
    expect((await b.create('/r/b', '1')).modRevision).toBe(2);
    await a.close();
    await b.close();
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

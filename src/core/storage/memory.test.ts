import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from './memory';
import { runStorageConformance } from './testing/conformance';
import type { StorageEvent } from './interface';

runStorageConformance('memory', async () => createMemoryStorage());

describe('memory storage quirks', () => {
  it('reports listener exceptions to onListenerError with the event', async () => {
    const errors: Array<[unknown, StorageEvent]> = [];
    const s = createMemoryStorage({ onListenerError: (e, ev) => errors.push([e, ev]) });
    const boom = new Error('boom');
    await s.watch('/r/', 0, () => {
      throw boom;
    });
    await s.create('/r/a', '1');
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toBe(boom);
    expect(errors[0]![1].revision).toBe(1);
  });

  it('notifies watchers synchronously, before the write promise settles', async () => {
    const s = createMemoryStorage();
    const seen: number[] = [];
    await s.watch('', 0, (e) => seen.push(e.revision));
    const pending = s.create('/r/a', '1');
    expect(seen).toEqual([1]);
    await pending;
  });

  it('returns frozen key-values so callers cannot rewrite history', async () => {
    const s = createMemoryStorage();
    const a = await s.create('/r/a', '1');
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      (a as { value: string }).value = 'x';
    }).toThrow(TypeError);
  });

  it('fails every call after close', async () => {
    const s = createMemoryStorage();
    await s.close();
    await expect(s.create('/r/a', '1')).rejects.toMatchObject({ code: 'Internal' });
    await expect(s.range('/r/')).rejects.toMatchObject({ code: 'Internal' });
  });
});

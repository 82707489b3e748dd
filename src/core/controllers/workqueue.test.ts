import { describe, expect, it } from 'vitest';
import { newWorkQueue } from './workqueue';

describe('work queue', () => {
  it('coalesces adds of a queued key, never syncs one key twice at once, and syncs again for adds during a sync', async () => {
    const log: string[] = [];
    let running = 0;
    let release: (() => void) | undefined;
    const q = newWorkQueue('test', async (key) => {
      running++;
      expect(running).toBe(1);
      log.push(`start ${key}`);
      if (log.length === 1) await new Promise<void>((r) => (release = r));
      log.push(`end ${key}`);
      running--;
    });
    q.add('a');
    q.add('a');
    await new Promise((r) => setTimeout(r, 0));
    // Two adds while the first sync runs make one more sync.
    q.add('a');
    q.add('a');
    release!();
    await q.idle();
    expect(log).toEqual(['start a', 'end a', 'start a', 'end a']);
    q.stop();
  });
});

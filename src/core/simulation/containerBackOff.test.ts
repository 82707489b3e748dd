import { describe, expect, it } from 'vitest';
import { ContainerBackOff } from './containerBackOff';

const s = 1000;

describe('the crash-loop back-off (flowcontrol.Backoff as doBackOff uses it)', () => {
  it('lets the first exit restart at once, then waits 10s, 20s, 40s from each exit, at most 5 minutes', () => {
    const b = new ContainerBackOff();
    expect(b.waiting('uid/app', 2 * s, 2 * s)).toBeUndefined();
    b.next('uid/app', 2 * s, 2 * s);
    // The second exit, 2s into the second run, waits 10s from that exit.
    expect(b.waiting('uid/app', 4 * s, 4 * s)).toEqual({ backOffMs: 10 * s, until: 14 * s });
    expect(b.waiting('uid/app', 4 * s, 13.999 * s)).toEqual({ backOffMs: 10 * s, until: 14 * s });
    expect(b.waiting('uid/app', 4 * s, 14 * s)).toBeUndefined();
    b.next('uid/app', 4 * s, 14 * s);
    expect(b.waiting('uid/app', 14 * s, 14 * s)?.backOffMs).toBe(20 * s);
    let at = 14 * s;
    const waits = [];
    for (let i = 0; i < 6; i++) {
      const wait = b.waiting('uid/app', at, at)!;
      waits.push(wait.backOffMs / s);
      b.next('uid/app', at, wait.until);
      at = wait.until;
    }
    expect(waits).toEqual([20, 40, 80, 160, 300, 300]);
  });

  it('starts again from 10s once ten minutes (twice the maximum) pass without a restart, and keeps containers apart', () => {
    const b = new ContainerBackOff();
    b.next('uid/app', 0, 0);
    b.next('uid/app', 1 * s, 11 * s); // 20s now, updated at 11s
    expect(b.waiting('uid/app', 12 * s, 12 * s)?.backOffMs).toBe(20 * s);
    expect(b.waiting('uid/other', 12 * s, 12 * s)).toBeUndefined();
    // A run of just over ten minutes since the last update: the exit restarts at once, and the next wait is 10s.
    const late = 11 * s + 600 * s + 1;
    expect(b.waiting('uid/app', late, late)).toBeUndefined();
    b.next('uid/app', late, late);
    expect(b.waiting('uid/app', late + s, late + s)?.backOffMs).toBe(10 * s);
    b.forget('uid/');
    expect(b.waiting('uid/app', late + s, late + s)).toBeUndefined();
  });
});

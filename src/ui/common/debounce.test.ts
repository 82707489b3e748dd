import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDebouncer } from './debounce';

describe('createDebouncer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('applies only the last of values typed in quick succession, once the wait has passed since the last', () => {
    const applied: string[] = [];
    const d = createDebouncer((v: string) => applied.push(v), 500);
    d.schedule('1');
    vi.advanceTimersByTime(300);
    d.schedule('10');
    vi.advanceTimersByTime(300);
    d.schedule('100');
    vi.advanceTimersByTime(499);
    expect(applied).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(applied).toEqual(['100']);
    vi.advanceTimersByTime(10_000);
    expect(applied).toEqual(['100']);
  });

  it('flush applies the waiting value at once (Enter, blur) and only once; with nothing waiting it does nothing', () => {
    const applied: string[] = [];
    const d = createDebouncer((v: string) => applied.push(v), 500);
    d.flush();
    d.schedule('2');
    d.schedule('25');
    d.flush();
    expect(applied).toEqual(['25']);
    vi.advanceTimersByTime(1000);
    d.flush();
    expect(applied).toEqual(['25']);
  });

  it('cancel drops the waiting value', () => {
    const applied: string[] = [];
    const d = createDebouncer((v: string) => applied.push(v), 500);
    d.schedule('7');
    d.cancel();
    vi.advanceTimersByTime(1000);
    d.flush();
    expect(applied).toEqual([]);
  });
});

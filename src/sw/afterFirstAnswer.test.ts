import { describe, expect, it } from 'vitest';
import { afterFirstAnswer } from './afterFirstAnswer';

describe('afterFirstAnswer', () => {
  it('holds work until the first answer, then runs it in a task of its own', async () => {
    const ran: string[] = [];
    const after = afterFirstAnswer((e) => ran.push(`error ${String(e)}`));
    after.schedule(() => ran.push('controllers'));
    await new Promise((r) => setTimeout(r, 5));
    expect(ran).toEqual([]);
    performance.clearMarks('kubesim:first-answer');
    after.answered();
    expect(ran).toEqual([]);
    expect(performance.getEntriesByName('kubesim:first-answer')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 5));
    expect(ran).toEqual(['controllers']);
    // Later answers run nothing again; work scheduled once the first is out runs at once (in a task).
    after.answered();
    after.schedule(() => ran.push('again'));
    await new Promise((r) => setTimeout(r, 5));
    expect(ran).toEqual(['controllers', 'again']);
  });

  it('reports work that throws (a part that cannot load) and still runs the rest', () => {
    const tasks: (() => void)[] = [];
    const errors: unknown[] = [];
    const after = afterFirstAnswer((e) => errors.push(e), (task) => tasks.push(task));
    let second = false;
    after.schedule(() => {
      throw new Error('sw-controllers did not load');
    });
    after.schedule(() => (second = true));
    after.answered();
    for (const task of tasks) task();
    expect(errors).toEqual([new Error('sw-controllers did not load')]);
    expect(second).toBe(true);
  });
});

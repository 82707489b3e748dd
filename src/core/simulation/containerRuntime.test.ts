/** The simulated container runtime: processes run ahead of the clock, their logs revealed as it passes. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { newContainerRuntime, type ProcessOutput, type RuntimeProcess, type RuntimeStart } from './containerRuntime';

/** A process that writes `line N` every `everyMs` from its start, and exits after `lines` lines (forever if undefined). */
function ticker(startMs: number, everyMs: number, lines?: number, exitCode = 0): RuntimeProcess {
  let at = startMs;
  let n = 0;
  return {
    advance(until, maxSteps = Infinity) {
      const output: ProcessOutput[] = [];
      let steps = 0;
      while (at + everyMs <= until && (lines === undefined || n < lines)) {
        if (steps++ >= maxSteps) return { output, reached: at };
        at += everyMs;
        output.push({ at, stream: n % 2 ? 2 : 1, text: `line ${n++}\n` });
      }
      if (lines !== undefined && n >= lines) return { output, exit: { code: exitCode, at }, reached: at };
      return { output, reached: until };
    },
    input() {},
    closeInput() {},
  };
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' } } as KubeObject;
const t0 = Date.parse('2026-11-28T10:00:00Z');
const startedAt = '2026-11-28T10:00:00Z';

describe('container runtime', () => {
  it('knows a process\'s exit in advance and reveals its lines only as the clock passes them', async () => {
    let starts = 0;
    const runtime = newContainerRuntime(async (_pod, _c, at): Promise<RuntimeStart> => {
      starts++;
      return { started: true, process: ticker(Date.parse(at), 1000, 5, 3) };
    });
    expect(await runtime.status('c1', pod, 'app', startedAt, t0)).toEqual({ exit: { code: 3, at: t0 + 5000 } });
    const early = await runtime.log('c1', pod, 'app', startedAt, t0 + 2500);
    expect(early!.entries.map((e) => e.line)).toEqual(['line 0\n', 'line 1\n']);
    expect(early!.entries.map((e) => e.stream)).toEqual([1, 2]);
    expect(early).toMatchObject({ ended: false, next: t0 + 3000 });
    const done = await runtime.log('c1', pod, 'app', startedAt, t0 + 60_000);
    expect(done!.entries).toHaveLength(5);
    expect(done!.ended).toBe(true);
    expect(starts).toBe(1);
  });

  it('a container the kubelet started in this run of the host is started afresh; one it did not start (the host restarted) is replayed', async () => {
    const replays: Record<string, boolean> = {};
    const runtime = newContainerRuntime(async (_p, c, at, _fs, replayed) => {
      replays[c] = replayed;
      return { started: true, process: ticker(Date.parse(at), 1000) };
    });
    runtime.started('c1');
    await runtime.status('c1', pod, 'app', startedAt, t0);
    await runtime.status('c2', pod, 'sidecar', startedAt, t0 + 60_000);
    expect(replays).toEqual({ app: false, sidecar: true });
  });

  it('an answer a process waited for (the API server\'s) has the kubelet look at its pod again, as input does: a fake clock need not move', async () => {
    const process = ticker(t0, 1000);
    const runtime = newContainerRuntime(async () => ({ started: true, process }));
    const woken: string[] = [];
    runtime.onInput((namespace, name) => woken.push(`${namespace}/${name}`));
    await runtime.status('c1', pod, 'app', startedAt, t0);
    process.onAnswer!();
    expect(woken).toEqual(['default/p']);
  });

  it('a process that runs forever is looked at again where its step budget stopped it', async () => {
    const runtime = newContainerRuntime(async (_p, _c, at) => ({ started: true, process: ticker(Date.parse(at), 1) }));
    const s = await runtime.status('c1', pod, 'app', startedAt, t0);
    expect(s.exit).toBeUndefined();
    expect(s.checkAt).toBe(t0 + 200_000);
  });

  it('a stopped container writes nothing after its stop, and a start error has no log', async () => {
    const runtime = newContainerRuntime(async (_p, c, at) => (c === 'bad' ? { started: false, error: 'exec: "nope": executable file not found in $PATH' } : { started: true, process: ticker(Date.parse(at), 1000) }));
    await runtime.status('c1', pod, 'app', startedAt, t0);
    runtime.stop('c1', t0 + 2500);
    await Promise.resolve();
    const log = await runtime.log('c1', pod, 'app', startedAt, t0 + 10_000);
    expect(log!.entries.map((e) => e.line)).toEqual(['line 0\n', 'line 1\n']);
    expect(log!.ended).toBe(true);
    expect(await runtime.status('c2', pod, 'bad', startedAt, t0)).toEqual({ error: 'exec: "nope": executable file not found in $PATH' });
    expect(await runtime.log('c2', pod, 'bad', startedAt, t0)).toBeUndefined();
  });

  it('joins a partial line with the next write and forgets a deleted pod\'s containers', async () => {
    let starts = 0;
    const writes: ProcessOutput[] = [
      { at: t0 + 1, stream: 1, text: 'hel' },
      { at: t0 + 2, stream: 1, text: 'lo\nwor' },
      { at: t0 + 3, stream: 1, text: 'ld\n\n' },
    ];
    const runtime = newContainerRuntime(async () => {
      starts++;
      return { started: true, process: { advance: (until) => ({ output: writes.filter((w) => w.at <= until).splice(0), reached: until }), input() {}, closeInput() {} } };
    });
    const log = await runtime.log('c1', pod, 'app', startedAt, t0 + 10);
    expect(log!.entries.map((e) => [e.at, e.line])).toEqual([[t0 + 1, 'hello\n'], [t0 + 2, 'world\n'], [t0 + 3, '\n']]);
    runtime.forgetPod('u1', (id) => id === 'c1');
    await runtime.log('c1', pod, 'app', startedAt, t0 + 10);
    expect(starts).toBe(1);
    runtime.forgetPod('u1');
    await runtime.log('c1', pod, 'app', startedAt, t0 + 10);
    expect(starts).toBe(2);
  });
});

/** A container's process on its virtual clock: output at exact times, sleeps, the step budget, input, a terminal, image programs, and the command the runtime composes. */
import { describe, expect, it } from 'vitest';
import { containerArgv, startProcess, type ContainerProcess } from './containerProcess';
import { run, t0, testView } from './container.test-data';
import type { SimulatedImage } from './image';
import type { KubeObject } from '../api/types';
import { newContainerRuntime } from './containerRuntime';
import { containerFilesystem } from './containerFiles';

const loggingExample = ['sh', '-c', 'i=0; while true; do echo "$i: $(date)"; i=$((i+1)); sleep 1; done'];

function start(argv: string[], opts: { stdin?: boolean; tty?: boolean; seed?: number; image?: SimulatedImage } = {}): ContainerProcess {
  const s = startProcess(testView(opts.image ? { image: opts.image } : {}), argv, t0, { stdin: opts.stdin ?? false, tty: opts.tty ?? false, seed: opts.seed ?? 1 });
  if (!s.started) throw new Error(s.error);
  return s.process;
}

describe('a process on a virtual clock', () => {
  it("writes the logging example's lines at their virtual times: each command costs 1 ms, sleep 1 a second", () => {
    const p = start(loggingExample);
    const r = p.advance(t0 + 5_000);
    // i=0, true, date: the first echo runs 3 ms in; each pass then takes 1 s and 5 commands.
    expect(r.output).toEqual([
      { at: t0 + 3, stream: 1, text: '0: Sat Nov 28 17:18:10 UTC 2026\n' },
      { at: t0 + 1_008, stream: 1, text: '1: Sat Nov 28 17:18:11 UTC 2026\n' },
      { at: t0 + 2_013, stream: 1, text: '2: Sat Nov 28 17:18:12 UTC 2026\n' },
      { at: t0 + 3_018, stream: 1, text: '3: Sat Nov 28 17:18:13 UTC 2026\n' },
      { at: t0 + 4_023, stream: 1, text: '4: Sat Nov 28 17:18:14 UTC 2026\n' },
    ]);
    expect(r).toMatchObject({ reached: t0 + 5_000 });
    expect(r.exit).toBeUndefined();
    // The next call goes on from there; nothing is written twice.
    expect(p.advance(t0 + 5_100).output).toEqual([{ at: t0 + 5_028, stream: 1, text: '5: Sat Nov 28 17:18:15 UTC 2026\n' }]);
  });

  it('writes the same in one call or in many', () => {
    const whole = start(loggingExample).advance(t0 + 10_000).output;
    const stepped = start(loggingExample);
    const parts = [];
    for (let at = t0; at <= t0 + 10_000; at += 250) parts.push(...stepped.advance(at).output);
    expect(parts).toEqual(whole);
  });

  it('is deterministic: two runs with the same inputs write the same at the same times, $RANDOM included', () => {
    const argv = ['sh', '-c', 'for i in 1 2 3; do echo $RANDOM $$; sleep 0.5; done; date -Iseconds'];
    const a = start(argv, { seed: 42 }).advance(t0 + 5_000);
    const b = start(argv, { seed: 42 }).advance(t0 + 5_000);
    expect(a).toEqual(b);
    expect(a.exit).toEqual({ code: 0, at: t0 + 1_507 });
    expect(start(argv, { seed: 43 }).advance(t0 + 5_000).output).not.toEqual(a.output);
  });

  it('sleep 3600 exits at +3600 s; before then it reaches the time asked', () => {
    const p = start(['sleep', '3600']);
    expect(p.advance(t0 + 3_599_999)).toEqual({ output: [], reached: t0 + 3_599_999 });
    expect(p.wakeAt()).toBe(t0 + 3_600_000);
    expect(p.advance(t0 + 4_000_000)).toEqual({ output: [], exit: { code: 0, at: t0 + 3_600_000 }, reached: t0 + 4_000_000 });
  });

  it('stops a loop with no sleep at the step budget, earlier than asked, and goes on at the next call', () => {
    const p = start(['sh', '-c', 'while true; do :; done']);
    const first = p.advance(t0 + 3_600_000, 1_000);
    expect(first.reached).toBe(t0 + 1_000);
    expect(first.exit).toBeUndefined();
    expect(p.advance(t0 + 3_600_000, 1_000).reached).toBe(t0 + 2_000);
    // Bounded by the time asked as well: one command a millisecond.
    expect(p.advance(t0 + 2_500).reached).toBe(t0 + 2_500);
  });

  it('yes is stopped by the step budget too', () => {
    const r = start(['yes']).advance(t0 + 10_000_000, 100);
    expect(r.reached).toBe(t0 + 100);
    expect(r.output.map((o) => o.text).join('').split('\n').length - 1).toBe(101);
  });

  it('reads its input with read, blocking until a line comes, and sees its end', () => {
    const p = start(['sh', '-c', 'while read line; do echo "got $line at $(date +%S)"; done; echo "end $?"'], { stdin: true });
    expect(p.advance(t0 + 5_000)).toEqual({ output: [], reached: t0 + 5_000 });
    expect(p.wakeAt()).toBeUndefined();
    p.input('hello\nwor', t0 + 6_000);
    p.input('ld\n', t0 + 7_000);
    p.closeInput(t0 + 9_000);
    expect(p.advance(t0 + 8_000).output).toEqual([
      { at: t0 + 6_002, stream: 1, text: 'got hello at 16\n' },
      { at: t0 + 7_002, stream: 1, text: 'got world at 17\n' },
    ]);
    const end = p.advance(t0 + 10_000);
    expect(end.output).toEqual([{ at: t0 + 9_001, stream: 1, text: 'end 0\n' }]);
    expect(end.exit).toEqual({ code: 0, at: t0 + 9_002 });
  });

  it('a shell reading commands from its input runs each line as it comes', () => {
    const p = start(['sh'], { stdin: true });
    p.input('echo one\nfor i in 1 2\n', t0 + 100);
    p.input('do echo $i; done\nexit 3\n', t0 + 200);
    const r = p.advance(t0 + 1_000);
    expect(r.output.map((o) => [o.at - t0, o.text])).toEqual([[100, 'one\n'], [200, '1\n'], [201, '2\n']]);
    expect(r.exit).toEqual({ code: 3, at: t0 + 202 });
  });

  it('stdin false is /dev/null: sh exits 0 at once, cat writes nothing', () => {
    expect(start(['sh']).advance(t0 + 1)).toEqual({ output: [], exit: { code: 0, at: t0 }, reached: t0 + 1 });
    expect(start(['cat']).advance(t0)).toEqual({ output: [], exit: { code: 0, at: t0 }, reached: t0 });
  });

  it('on a terminal, lines end in CR LF and stderr comes on stdout; an interactive shell prompts', () => {
    expect(start(['sh', '-c', 'echo out; echo err >&2'], { tty: true }).advance(t0 + 10).output).toEqual([{ at: t0, stream: 1, text: 'out\r\n' }, { at: t0 + 1, stream: 1, text: 'err\r\n' }]);
    const p = start(['sh'], { stdin: true, tty: true });
    p.input('for i in 1; do\n', t0 + 10);
    p.input('echo $i; done\n', t0 + 20);
    expect(p.advance(t0 + 30).output.map((o) => o.text).join('')).toBe('/ # > 1\r\n/ # ');
  });

  it("runs the image's own programs: their output at the start, then their exit or running until stopped", () => {
    const image: SimulatedImage = {
      entrypoint: ['/docker-entrypoint.sh'],
      cmd: ['nginx', '-g', 'daemon off;'],
      workingDir: '',
      env: [],
      tools: ['sh', 'echo'],
      programs: new Map([
        ['/usr/sbin/nginx', { run: (args: readonly string[]) => ({ output: [{ stream: 2 as const, text: `nginx ${args.join(' ')}\n` }] }) }],
        ['/docker-entrypoint.sh', { run: () => ({ output: [{ stream: 1 as const, text: 'entrypoint\n' }], exitCode: 0 }) }],
      ]),
    };
    const server = start(['nginx', '-g', 'daemon off;'], { image });
    expect(server.advance(t0 + 60_000)).toEqual({ output: [{ at: t0, stream: 2, text: 'nginx -g daemon off;\n' }], reached: t0 + 60_000 });
    expect(server.wakeAt()).toBeUndefined();
    expect(start(['/docker-entrypoint.sh'], { image }).advance(t0)).toEqual({ output: [{ at: t0, stream: 1, text: 'entrypoint\n' }], exit: { code: 0, at: t0 }, reached: t0 });
  });

  it('an empty command runs until it is stopped, writing nothing', () => {
    const p = start([]);
    expect(p.advance(t0 + 86_400_000)).toEqual({ output: [], reached: t0 + 86_400_000 });
  });

  it("a command that cannot start fails as containerd 2.0's runc create reports it", () => {
    const view = testView({ files: { '/app/data': 'x' } });
    const error = (argv: string[]) => {
      const s = startProcess(view, argv, t0, { stdin: false, tty: false });
      return s.started ? 'started' : s.error;
    };
    const prefix = 'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: ';
    expect(error(['foo'])).toBe(`${prefix}exec: "foo": executable file not found in $PATH: unknown`);
    expect(error(['/app/server'])).toBe(`${prefix}exec: "/app/server": stat /app/server: no such file or directory: unknown`);
    expect(error(['/app/data'])).toBe(`${prefix}exec: "/app/data": permission denied: unknown`);
    expect(startProcess(view, ['python3'], t0, { stdin: false, tty: false, exec: true })).toEqual({ started: false, error: 'OCI runtime exec failed: exec failed: unable to start container process: exec: "python3": executable file not found in $PATH: unknown' });
  });

  it("shares the container's files with its other processes when given them (a liveness probe reads what the main process wrote)", () => {
    const view = testView();
    const files = containerFilesystem(view);
    const main = startProcess(view, ['sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'], t0, { stdin: false, tty: false, files });
    const probe = (at: number) => {
      if (!main.started) throw new Error(main.error);
      main.process.advance(at);
      const p = startProcess(view, ['cat', '/tmp/healthy'], at, { stdin: false, tty: false, files, exec: true, commandMs: 0 });
      return p.started ? p.process.advance(at).exit?.code : undefined;
    };
    expect([probe(t0 + 10_000), probe(t0 + 40_000)]).toEqual([0, 1]);
    // Without them, each process has its own copy.
    expect(run('cat /tmp/healthy').code).toBe(1);
  });

  it('waits for the server clock before a command touches files (others may write them), not before it writes to a device', () => {
    const p = start(['sh', '-c', 'sleep 5; echo a 2>/dev/null; sleep 5; echo b > /tmp/f; cat /tmp/f']);
    // The server clock is at the start: the redirection to /tmp/f at 10s waits (a second's look-ahead allowed).
    const first = p.advance(t0 + 60_000, undefined, t0);
    expect(first.output.map((o) => [o.at - t0, o.text])).toEqual([[5_001, 'a\n']]);
    expect(first.reached - t0).toBe(10_003);
    // Still more than a second ahead of the server.
    expect(p.advance(t0 + 60_000, undefined, t0 + 9_000)).toEqual({ output: [], reached: t0 + 10_003 });
    const then = p.advance(t0 + 60_000, undefined, t0 + 9_500);
    expect(then.output.map((o) => [o.at - t0, o.text])).toEqual([[10_004, 'b\n']]);
    expect(then.exit?.code).toBe(0);
  });

  it('echo hello && exit 1 writes at the start and exits 1', () => {
    expect(run('echo hello && exit 1')).toMatchObject({ stdout: 'hello\n', code: 1, exitAt: 1 });
  });
});

describe('under the container runtime', () => {
  it('is what the runtime runs: its exit known ahead of the clock, its log revealed as the clock passes', async () => {
    const argv = ['sh', '-c', 'echo start; sleep 2; echo done >&2; exit 3'];
    const runtime = newContainerRuntime(async (_pod, _c, startedAt) => startProcess(testView(), argv, Date.parse(startedAt), { stdin: false, tty: false }));
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'p', uid: 'u1' } } as KubeObject;
    const startedAt = new Date(t0).toISOString();
    expect(await runtime.status('c1', pod, 'app', startedAt, t0)).toEqual({ exit: { code: 3, at: t0 + 2_003 } });
    const lines = async (until: number) => (await runtime.log('c1', pod, 'app', startedAt, until))!.entries.map((e) => [e.at - t0, e.stream, e.line]);
    expect(await lines(t0 + 1_000)).toEqual([[0, 1, 'start\n']]);
    expect(await lines(t0 + 5_000)).toEqual([[0, 1, 'start\n'], [2_002, 2, 'done\n']]);
  });
});

describe('containerArgv: what the runtime runs', () => {
  const image: SimulatedImage = { entrypoint: ['/entry'], cmd: ['serve', '--port=80'], workingDir: '', env: [], programs: new Map() };
  const env = new Map([['GREETING', 'hello'], ['PORT', '8080']]);
  it.each([
    ['image defaults: Entrypoint + Cmd', {}, ['/entry', 'serve', '--port=80']],
    ['args replace Cmd after the Entrypoint', { args: ['run', '$(PORT)'] }, ['/entry', 'run', '8080']],
    ['command replaces both; Cmd is ignored', { command: ['sh', '-c'] }, ['sh', '-c']],
    ['command and args', { command: ['echo'], args: ['$(GREETING)', 'world'] }, ['echo', 'hello', 'world']],
    ['$(VAR) expands, $$(VAR) escapes, an unknown one stays', { command: ['echo', '$(GREETING) $$(GREETING) $(NOPE) $GREETING'] }, ['echo', 'hello $(GREETING) $(NOPE) $GREETING']],
    ['empty args keep the Cmd', { args: [] }, ['/entry', 'serve', '--port=80']],
  ])('%s', (_name, container, want) => {
    expect(containerArgv(container, image, env)).toEqual(want);
  });

  it("an image's Entrypoint is not expanded, and an unknown image with no command runs nothing", () => {
    expect(containerArgv({}, { ...image, entrypoint: ['/entry', '$(PORT)'] }, env)).toEqual(['/entry', '$(PORT)', 'serve', '--port=80']);
    expect(containerArgv({}, { entrypoint: [], cmd: [], workingDir: '', env: [], programs: new Map() }, env)).toEqual([]);
  });
});

/** Streaming a process to a client: output as the clock reaches it, input to its reads, a terminal's echo and editing. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/clock';
import { RecordedProcess, type ProcessOutput, type RuntimeProcess } from './containerRuntime';
import { processStreamSession } from './processStream';

/** Writes `hello` at +1s, then answers each input line with `got <line>` at its time; `exit N` exits with N; end of input exits 0. */
function echoProcess(startMs: number): RuntimeProcess {
  const inputs: { text: string; at: number }[] = [];
  let closedAt: number | undefined;
  let greeted = false;
  let buffer = '';
  return {
    advance(until) {
      const output: ProcessOutput[] = [];
      if (!greeted && until >= startMs + 1000) {
        greeted = true;
        output.push({ at: startMs + 1000, stream: 1, text: 'hello\n' });
      }
      if (!greeted) return { output, reached: until };
      while (inputs.length && inputs[0]!.at <= until) {
        const { text, at } = inputs.shift()!;
        buffer += text;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const t = Math.max(at, startMs + 1000);
          if (line.startsWith('exit ')) return { output, exit: { code: Number(line.slice(5)), at: t }, reached: t };
          output.push({ at: t, stream: line.startsWith('err') ? 2 : 1, text: `got ${line}\n` });
        }
      }
      if (closedAt !== undefined && closedAt <= until) return { output, exit: { code: 0, at: closedAt }, reached: closedAt };
      return { output, reached: until };
    },
    input: (text, at) => void inputs.push({ text, at }),
    closeInput: (at) => void (closedAt = at),
  };
}

const t0 = Date.parse('2026-11-28T10:00:00Z');
const statusFor = (code: number) => ({ status: code === 0 ? 'Success' : 'Failure', code });
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('process streams', () => {
  it('sends output only once the clock reaches it, and the Status at the exit', async () => {
    const clock = new FakeClock(new Date(t0));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const session = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: false }, recorded, { statusFor });
    const got: [number, string][] = [];
    const attached = session.attach((stream, text) => got.push([stream, text]));
    await settle();
    expect(got).toEqual([]);
    clock.advance(1000);
    await settle();
    expect(got).toEqual([[1, 'hello\n']]);
    attached.input('one\nerr two\n');
    await settle();
    expect(got.slice(1)).toEqual([[1, 'got one\n'], [2, 'got err two\n']]);
    attached.input('exit 3\n');
    expect(await attached.done).toEqual({ status: 'Failure', code: 3 });
  });

  it('attach starts from now; a terminal echoes, edits and hands over whole lines on Enter; ^D ends the input', async () => {
    const clock = new FakeClock(new Date(t0 + 5000));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const session = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: true }, recorded, { fromNow: true, statusFor });
    let screen = '';
    const attached = session.attach((stream, text) => {
      expect(stream).toBe(1);
      screen += text;
    });
    await settle();
    expect(screen).toBe('');
    attached.input('lx\x7fs\x1b[A\r');
    await settle();
    expect(screen).toBe('lx\b \bs\r\ngot ls\n');
    attached.input('\x04');
    expect(await attached.done).toEqual({ status: 'Success', code: 0 });
  });

  it('a client leaving a stdinOnce container closes its stdin', async () => {
    const clock = new FakeClock(new Date(t0 + 2000));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const session = processStreamSession(clock, { stdin: true, stdout: true, stderr: false, tty: false }, recorded, { statusFor, closeInputOnDetach: true });
    const attached = session.attach(() => {});
    attached.detach();
    expect(await attached.done).toEqual({ status: 'Success', code: 0 });
    expect(recorded.read(t0 + 2000).ended).toBe(true);
  });

  it("a process that dies of the terminal's ^C ends with 130 and is reported ended then; one the client leaves is not", async () => {
    const clock = new FakeClock(new Date(t0 + 2000));
    const ends: number[] = [];
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const session = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: true }, recorded, { statusFor, sigint: { dies: '' }, onEnd: (at) => ends.push(at - t0) });
    let screen = '';
    const attached = session.attach((_s, text) => (screen += text));
    attached.input('abc\x03');
    expect(await attached.done).toEqual({ status: 'Failure', code: 130 });
    expect(screen).toBe('hello\nabc^C');
    expect(ends).toEqual([2000]);

    const other = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const left = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: false }, other, { statusFor, onEnd: (at) => ends.push(at - t0) }).attach(() => {});
    left.detach();
    await left.done;
    expect(ends).toEqual([2000]);
  });

  it('a process waiting to look at the cluster is looked at again when the clock reaches where it waits', async () => {
    const clock = new FakeClock(new Date(t0));
    let reached = t0;
    // It runs only to a second past the clock each time, as a process about to observe the cluster does, and exits at +3s.
    const process: RuntimeProcess = {
      advance(_until, _steps, present = t0) {
        reached = Math.min(present + 1000, t0 + 3000);
        return { output: [], reached, ...(reached >= t0 + 3000 ? { exit: { code: 4, at: t0 + 3000 } } : {}) };
      },
      input: () => {},
      closeInput: () => {},
    };
    const recorded = new RecordedProcess({ started: true, process }, t0);
    const attached = processStreamSession(clock, { stdin: false, stdout: true, stderr: true, tty: false }, recorded, { statusFor }).attach(() => {});
    await settle();
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await settle();
    }
    expect(await attached.done).toEqual({ status: 'Failure', code: 4 });
  });

  it("a terminal's keys as a Linux tty in canonical mode: DEL, ^U, ^W edit; ^C drops the line for the shell; ^D hands over a partial line, then ends the input", async () => {
    const clock = new FakeClock(new Date(t0 + 5000));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const session = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: true }, recorded, { fromNow: true, statusFor });
    let screen = '';
    const attached = session.attach((_s, text) => (screen += text));
    const typed = async (keys: string) => {
      screen = '';
      attached.input(keys);
      await settle();
      return screen;
    };
    expect(await typed('lx\x7fs\r')).toBe('lx\b \bs\r\ngot ls\n');
    expect(await typed('abc\x15ok\r')).toBe('abc\b \b\b \b\b \bok\r\ngot ok\n');
    expect(await typed('echo foo\x17bar\r')).toBe('echo foo\b \b\b \b\b \bbar\r\ngot echo bar\n');
    // ^C: the line is gone; the shell (by default) starts a new one.
    expect(await typed('abc\x03')).toBe('abc^C\r\ngot \n');
    // ^D with a partial line hands it over: it can no longer be erased, and the next line ends it.
    expect(await typed('ab\x04\x7fc\r')).toBe('abc\r\ngot abc\n');
    // ^Z's stop is discarded (the line with it), ^\\ is ignored by the shell.
    expect(await typed('x\x1ay\x1c\r')).toBe('x^Zy^\\\r\ngot \n');
    attached.input('last\x04\x04');
    expect(await attached.done).toEqual({ status: 'Success', code: 0 });
  });

  it('^\\ kills a process that does not handle it with 131', async () => {
    const clock = new FakeClock(new Date(t0 + 2000));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    const attached = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: true }, recorded, { statusFor, sigint: { dies: '' } }).attach(() => {});
    attached.input('\x1a\x1c');
    expect(await attached.done).toEqual({ status: 'Failure', code: 131 });
  });

  it("a process that ignores SIGINT (PID 1 with no handler): ^C only drops the line", async () => {
    const clock = new FakeClock(new Date(t0 + 2000));
    const recorded = new RecordedProcess({ started: true, process: echoProcess(t0) }, t0);
    let screen = '';
    const attached = processStreamSession(clock, { stdin: true, stdout: true, stderr: true, tty: true }, recorded, { fromNow: true, statusFor, sigint: { ignored: true } }).attach((_s, text) => (screen += text));
    attached.input('abc\x03def\r');
    await settle();
    expect(screen).toBe('abc^Cdef\r\ngot def\n');
  });
});

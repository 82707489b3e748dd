/** The terminal side of `kubectl exec -it pod -- sh` on the Node host: prompt, echo and line editing over a line-by-line shell. */
import { describe, expect, it } from 'vitest';
import type { LineSession } from '../../src/core/http/upgrade';
import { lineDiscipline } from './remoteCommand';

/** A shell that echoes each line back in brackets and exits on `exit N`. */
function fakeShell(): LineSession & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    prompt: () => '/ # ',
    line(text) {
      lines.push(text);
      const m = /^exit (\d+)$/.exec(text);
      return m ? { stdout: '', stderr: '', exit: Number(m[1]) } : { stdout: `[${text}]\n`, stderr: text === 'bad' ? 'oops\n' : '' };
    },
    lastStatus: () => 5,
  };
}

function drive(tty: boolean, input: string[], end = false) {
  const shell = fakeShell();
  const out: string[] = [];
  const err: string[] = [];
  let exited: number | undefined;
  const d = lineDiscipline(shell, tty, (stdout, stderr) => {
    out.push(stdout);
    err.push(stderr);
  }, (code) => (exited = code));
  d.begin();
  for (const i of input) d.input(i);
  if (end) d.end();
  return { shell, out: out.join(''), err: err.join(''), exited };
}

describe('exec line discipline', () => {
  it('with a terminal: prompts, echoes what is typed, edits with backspace, drops a line on ^C, ignores arrow keys', () => {
    const r = drive(true, ['ls\x7f\x7fid', '\r', 'x\x1b[Ay\x03', 'exit 3\r', 'never\r']);
    expect(r.shell.lines).toEqual(['id', 'exit 3']);
    expect(r.out).toBe('/ # ls\b \b\b \bid\r\n[id]\n/ # xy^C\n/ # exit 3\r\n');
    expect(r.exited).toBe(3);
  });

  it('with a terminal: ^D on an empty line ends the shell with its last status', () => {
    const r = drive(true, ['\x04', 'never\r']);
    expect(r.exited).toBe(5);
    expect(r.shell.lines).toEqual([]);
    expect(r.out).toBe('/ # \n');
  });

  it('with a terminal, as a Linux tty in canonical mode: ^U and ^W erase, ^C drops the line, ^D hands over a partial line that can no longer be erased', () => {
    const r = drive(true, ['abc\x15id\r', 'echo foo\x17bar\r', 'ec\x04\x7fho x\r', 'par\x04', '\x04']);
    expect(r.shell.lines).toEqual(['id', 'echo bar', 'echo x', 'par']);
    expect(r.out).toBe('/ # abc\b \b\b \b\b \bid\r\n[id]\n/ # echo foo\b \b\b \b\b \bbar\r\n[echo bar]\n/ # echo x\r\n[echo x]\n/ # par\n[par]\n');
    expect(r.exited).toBe(5);
  });

  it('without one: runs each complete line as it arrives, no prompt or echo, the rest when the input closes', () => {
    const r = drive(false, ['one\ntw', 'o\nbad\nlast'], true);
    expect(r.shell.lines).toEqual(['one', 'two', 'bad', 'last']);
    expect(r.out).toBe('[one]\n[two]\n[bad]\n[last]\n');
    expect(r.err).toBe('oops\n');
    expect(r.exited).toBe(5);
  });
});

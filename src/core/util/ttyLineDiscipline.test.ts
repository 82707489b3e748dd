/** A canonical-mode terminal as Linux's n_tty runs it under `stty sane`. */
import { describe, expect, it } from 'vitest';
import { ttyLineDiscipline } from './ttyLineDiscipline';

function tty() {
  const events: [string, string][] = [];
  let screen = '';
  const t = ttyLineDiscipline({
    echo: (text) => void (screen += text),
    data: (text) => void events.push(['data', text]),
    eof: () => void events.push(['eof', '']),
    signal: (s) => void events.push(['signal', s]),
  });
  return { t, events, screen: () => screen };
}

describe('the canonical line discipline', () => {
  it('echoes what is typed and hands the line over on Enter (CR or NL), with CR NL on the screen', () => {
    const { t, events, screen } = tty();
    t.input('ls -l\r');
    t.input('pwd\n');
    expect(events).toEqual([['data', 'ls -l\n'], ['data', 'pwd\n']]);
    expect(screen()).toBe('ls -l\r\npwd\r\n');
  });

  it('erases a character with DEL, the line with ^U, a word with ^W (back over punctuation and spaces, then letters, digits and _)', () => {
    const { t, events, screen } = tty();
    t.input('lx\x7f\x7f\x7f');
    expect([t.line, screen()]).toEqual(['', 'lx\b \b\b \b']);
    t.input('echo foo_1  \x17');
    expect(t.line).toBe('echo ');
    t.input('ls -la\x17');
    expect(t.line).toBe('echo ls -');
    t.input('\x15');
    expect(t.line).toBe('');
    expect(screen().endsWith('\b \b'.repeat('echo ls -'.length))).toBe(true);
    t.input('ok\r');
    expect(events).toEqual([['data', 'ok\n']]);
  });

  it('shows a control character as ^X and erases both columns of it', () => {
    const { t, screen } = tty();
    t.input('a\x01\x7f');
    expect(screen()).toBe('a^A\b \b\b \b');
    expect(t.line).toBe('a');
  });

  it('^C discards the line, echoes ^C and sends SIGINT (^\\ SIGQUIT, ^Z SIGTSTP); nothing reaches the reader', () => {
    const { t, events, screen } = tty();
    t.input('sleep 10\x03');
    expect(events).toEqual([['signal', 'SIGINT']]);
    expect(screen()).toBe('sleep 10^C');
    t.input('x\x1c');
    t.input('\x1a');
    t.input('\r');
    expect(events).toEqual([['signal', 'SIGINT'], ['signal', 'SIGQUIT'], ['signal', 'SIGTSTP'], ['data', '\n']]);
  });

  it('^D hands over a partial line without a newline and echoes nothing; on an empty line it is end of file', () => {
    const { t, events, screen } = tty();
    t.input('abc\x04');
    expect(events).toEqual([['data', 'abc']]);
    expect(screen()).toBe('abc');
    // What was handed over can no longer be erased.
    t.input('\x7f');
    expect(screen()).toBe('abc');
    t.input('\x04');
    expect(events).toEqual([['data', 'abc'], ['eof', '']]);
  });

  it('drops escape sequences (arrow keys)', () => {
    const { t, screen } = tty();
    t.input('l\x1b[As\x1bOB\x1b[3~\r');
    expect(screen()).toBe('ls\r\n');
  });
});

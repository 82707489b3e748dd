/** kubectl exec -i without -t: the local terminal's canonical mode in front of the stream. */
import { describe, expect, it } from 'vitest';
import { cookedTerminal } from './cookedTerminal';

function terminal() {
  const sent: string[] = [];
  let screen = '';
  const type = cookedTerminal((t) => (screen += t), { input: (t) => void sent.push(t), closeInput: () => void sent.push('<EOF>'), close: () => void sent.push('<closed>') });
  return { type, sent, screen: () => screen };
}

describe('the terminal kubectl -i reads', () => {
  it('sends each line on Enter after DEL, ^U and ^W edited it, echoing as a tty does', () => {
    const t = terminal();
    t.type('onx\x7fe\r');
    t.type('junk\x15two\r');
    t.type('three four\x17five\r');
    expect(t.sent).toEqual(['one\n', 'two\n', 'three five\n']);
    expect(t.screen()).toBe('onx\b \be\r\njunk\b \b\b \b\b \b\b \btwo\r\nthree four\b \b\b \b\b \b\b \bfive\r\n');
  });

  it('^D sends a partial line as it is, and on an empty line closes the input', () => {
    const t = terminal();
    t.type('par\x04');
    t.type('\x04');
    expect(t.sent).toEqual(['par', '<EOF>']);
    expect(t.screen()).toBe('par');
  });

  it('^C drops the line and kills kubectl, which leaves the stream; ^Z only drops the line', () => {
    const t = terminal();
    t.type('abc\x1a');
    t.type('def\x03');
    expect(t.sent).toEqual(['<closed>']);
    expect(t.screen()).toBe('abc^Zdef^C');
  });
});

/** The python and node images' interpreters with no script: their REPL on a terminal, their program from stdin without one. */
import { describe, expect, it } from 'vitest';
import { imageFor } from './image';
import { startProcess } from './containerProcess';
import { t0, testView } from './container.test-data';
import { pyFloatRepr, pyStrRepr, jsStrInspect, replInterrupt } from './interpreterRepl';

/** Runs argv in the image with `lines` on stdin, then its end; what it wrote (a terminal's CR LF read as LF) and its exit code. */
function run(ref: string, argv: string[], lines: string[], tty: boolean, close = true): { out: string; err: string; exit?: number } {
  const started = startProcess(testView({ image: imageFor(ref) }), argv, t0, { stdin: true, tty });
  if (!started.started) throw new Error(started.error);
  const p = started.process;
  for (const l of lines) p.input(l, t0);
  if (close) p.closeInput(t0);
  const r = p.advance(t0 + 60_000);
  const text = (s: 1 | 2) => r.output.filter((o) => o.stream === s).map((o) => o.text.replace(/\r\n/g, '\n')).join('');
  return { out: text(1), err: text(2), ...(r.exit ? { exit: r.exit.code } : {}) };
}

const banner313 = 'Python 3.13.1 (main, Dec  4 2024, 20:40:27) [GCC 12.2.0] on linux\nType "help", "copyright", "credits" or "license" for more information.\n';

describe('python', () => {
  it('on a terminal: the banner and prompt, literals and arithmetic echoed, print, exit()', () => {
    const r = run('python:3.13', ['python3'], ['42\n', "'it''s'\n", '"it\'s"\n', '1 + 2 * 3 ** 2\n', '-7 // 2, \n', '-7 // 2\n', '-7 % 3\n', '7 / 2\n', '2 ** 70\n', '10 / 4 * 1e3\n', "print('a', 1, 2 / 2)\n", '\n', 'exit(3)\n', 'print(1)\n'], true);
    // A terminal has one stream: all of it came on stdout, in order.
    expect(r.err).toBe('');
    expect(r.out).toBe(
      banner313 +
        '>>> 42\n' +
        // Adjacent string literals are not simulated.
        ">>> kubesim: python3: not simulated: 'it''s'\n" +
        '>>> "it\'s"\n' +
        '>>> 19\n' +
        '>>> kubesim: python3: not simulated: -7 // 2,\n' +
        '>>> -4\n>>> 2\n>>> 3.5\n>>> 1180591620717411303424\n' +
        '>>> kubesim: python3: not simulated: 10 / 4 * 1e3\n' +
        '>>> a 1 1.0\n>>> >>> ',
    );
    expect(r.exit).toBe(3);
  });

  it('an unknown name is a NameError (3.13 names the input and shows it); a builtin or a near name is not simulated', () => {
    const r = run('python:3.13', ['python3'], ['1\n', 'foo\n', 'print(bar + 1)\n', 'len("a")\n', 'prnt(1)\n', 'os\n', 'nope\n'], true);
    expect(r.out).toBe(
      banner313 +
        '>>> 1\n' +
        '>>> Traceback (most recent call last):\n  File "<python-input-1>", line 1, in <module>\n    foo\nNameError: name \'foo\' is not defined\n' +
        '>>> Traceback (most recent call last):\n  File "<python-input-2>", line 1, in <module>\n    print(bar + 1)\nNameError: name \'bar\' is not defined\n' +
        '>>> kubesim: python3: not simulated: len("a")\n' +
        '>>> kubesim: python3: not simulated: prnt(1)\n' +
        '>>> kubesim: python3: not simulated: os\n' +
        // CPython would add: Did you mean: 'None'?
        '>>> kubesim: python3: not simulated: nope\n' +
        '>>> \n',
    );
    expect(r.exit).toBe(0);
  });

  it('before 3.13: <stdin> in the traceback, and a bare exit says how to leave', () => {
    const r = run('python:3.12', ['python3'], ['foo\n', 'exit\n'], true);
    expect(r.out).toBe(
      'Python 3.12.8 (main) [GCC 12.2.0] on linux\nType "help", "copyright", "credits" or "license" for more information.\n' +
        ">>> Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nNameError: name 'foo' is not defined\n" +
        '>>> Use exit() or Ctrl-D (i.e. EOF) to exit\n>>> \n',
    );
    expect(run('python:3.13', ['python3'], ['exit\n', '1\n'], true)).toEqual({ out: banner313 + '>>> ', err: '', exit: 0 });
  });

  it('waits at its prompt for the next line', () => {
    const r = run('python:3.13', ['python'], ['1+1\n'], true, false);
    expect(r).toEqual({ out: banner313 + '>>> 2\n>>> ', err: '' });
  });

  it('without a terminal: no banner, the program read to its end and then run; expressions print nothing', () => {
    expect(run('python:3.13', ['python3'], ['x_is_not_used = 1\n'], false)).toEqual({ out: '', err: 'kubesim: python3: not simulated: x_is_not_used = 1\n', exit: 1 });
    expect(run('python:3.13', ['python3'], ["print('hi')\n", '1 + 1\n', 'print(2 ** 10)\n'], false)).toEqual({ out: 'hi\n1024\n', err: '', exit: 0 });
    expect(run('python:3.13', ['python3', '-'], ["print('a')\n", 'unknown_thing\n', "print('b')\n"], false)).toEqual({ out: 'a\n', err: "Traceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\nNameError: name 'unknown_thing' is not defined\n", exit: 1 });
    expect(run('python:3.13', ['python3'], ['exit(4)\n', "print('no')\n"], false)).toEqual({ out: '', err: '', exit: 4 });
  });

  it("repr()s floats and strings as CPython does", () => {
    expect([0.1 + 0.2, 1e16, 1.5e16, 1e-5, 0.0001, 123.0, -0, 1 / 3].map(pyFloatRepr)).toEqual(['0.30000000000000004', '1e+16', '1.5e+16', '1e-05', '0.0001', '123.0', '-0.0', '0.3333333333333333']);
    expect(["a'b", 'a"b', 'a\'"b', 'tab\there\n', '\x01'].map(pyStrRepr)).toEqual(['"a\'b"', "'a\"b'", "'a\\'\"b'", "'tab\\there\\n'", "'\\x01'"]);
  });
});

describe('node', () => {
  const banner = 'Welcome to Node.js v23.3.0.\nType ".help" for more information.\n';
  const y = (t: string) => `\x1b[33m${t}\x1b[39m`;
  const g = (t: string) => `\x1b[32m${t}\x1b[39m`;

  it('on a terminal: the banner and prompt, values inspected in colour, console.log then undefined, .exit', () => {
    const r = run('node:23', ['node'], ['1 + 2 * 3\n', "'a' + 1\n", '7 / 2\n', '2 ** 64\n', "console.log('hi', 3)\n", '.exit\n', '1\n'], true);
    expect(r.out).toBe(`${banner}> ${y('7')}\n> ${g("'a1'")}\n> ${y('3.5')}\n> ${y('18446744073709552000')}\n> hi 3\n\x1b[90mundefined\x1b[39m\n> `);
    expect(r.exit).toBe(0);
  });

  it('an unknown name is an uncaught ReferenceError; a global is not simulated; end of input leaves', () => {
    const r = run('node:23', ['node'], ['foo\n', 'Math.max(1, 2)\n', 'process.exit(2)\n'], true);
    expect(r.out).toBe(`${banner}> Uncaught ReferenceError: foo is not defined\n> kubesim: node: not simulated: Math.max(1, 2)\n> `);
    expect(r.exit).toBe(2);
    expect(run('node:23', ['node'], [], true)).toEqual({ out: `${banner}> \n`, err: '', exit: 0 });
  });

  it('without a terminal: the program from stdin, run at its end', () => {
    expect(run('node:23', ['node'], ["console.log('a' + 2)\n", 'console.log(1 / 0)\n'], false)).toEqual({ out: 'a2\nInfinity\n', err: '', exit: 0 });
    expect(run('node:23', ['node'], ['foo\n'], false)).toEqual({ out: '', err: 'kubesim: node: not simulated: foo\n', exit: 1 });
  });

  it("inspects strings as util.inspect does", () => {
    expect(["a'b", 'a\'"b', 'x\ny'].map(jsStrInspect)).toEqual(['"a\'b"', '`a\'"b`', "'x\\ny'"]);
  });
});

describe('the REPLs on ^C', () => {
  it('python says KeyboardInterrupt, node how to leave; a script or another program is none', () => {
    expect(replInterrupt(['python3'])).toBe('\nKeyboardInterrupt\n');
    expect(replInterrupt(['/usr/local/bin/python'])).toBe('\nKeyboardInterrupt\n');
    expect(replInterrupt(['node'])).toBe('\n(To exit, press Ctrl+C again or Ctrl+D or type .exit)\n');
    expect(replInterrupt(['python3', 'app.py'])).toBeUndefined();
    expect(replInterrupt(['cat'])).toBeUndefined();
  });
});

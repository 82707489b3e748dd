/** The simulated shell: busybox ash's constructs, expansions, redirections, messages and exit codes, run as a container process. */
import { describe, expect, it } from 'vitest';
import { run, testView } from './container.test-data';
import { parseScript, ShellSyntaxError } from './shellParser';

type Case = [name: string, script: string, want: { stdout?: string; stderr?: string; code?: number }];

const check = (cases: Case[], args: string[] = []) =>
  it.each(cases)('%s', (_name, script, want) => {
    const r = run(['sh', '-c', script, ...args]);
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.code }).toEqual({ stdout: want.stdout ?? '', stderr: want.stderr ?? '', code: want.code ?? 0 });
  });

describe('shell constructs', () => {
  check([
    ['lists: ; && ||', 'false || echo recovered && echo and; echo next', { stdout: 'recovered\nand\nnext\n' }],
    ['if / elif / else', 'x=2; if [ $x = 1 ]; then echo one; elif [ $x = 2 ]; then echo two; else echo other; fi', { stdout: 'two\n' }],
    ['if without a match is 0', 'if false; then echo no; fi; echo $?', { stdout: '0\n' }],
    ['while with arithmetic', 'i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done', { stdout: '0\n1\n2\n' }],
    ['until', 'i=3; until [ $i -eq 0 ]; do echo $i; i=$((i-1)); done', { stdout: '3\n2\n1\n' }],
    ['for over words and a quoted item', 'for x in a b "c d"; do echo "<$x>"; done', { stdout: '<a>\n<b>\n<c d>\n' }],
    ['for over an unquoted expansion splits it', 'L="1 2  3"; for n in $L; do echo $n; done', { stdout: '1\n2\n3\n' }],
    ['case with * and |', 'for w in apple kiwi plum; do case $w in a*) echo A;; kiwi|plum) echo K;; *) echo other;; esac; done', { stdout: 'A\nK\nK\n' }],
    ['case on a quoted pattern', 'case "a*" in "a*") echo literal;; *) echo glob;; esac', { stdout: 'literal\n' }],
    ['break and continue', 'for i in 1 2 3 4 5; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done', { stdout: '1\n3\n' }],
    ['break 2 leaves both loops', 'for a in 1 2; do for b in x y; do echo $a$b; break 2; done; done; echo out', { stdout: '1x\nout\n' }],
    ['functions with arguments and return', 'f() { echo "f:$1:$#"; return 3; }; f a b; echo $?', { stdout: 'f:a:2\n3\n' }],
    ['groups and subshells', '{ echo a; echo b; } > /tmp/g; cat /tmp/g; (x=1; exit 4); echo "$? ${x:-unset}"', { stdout: 'a\nb\n4 unset\n' }],
    ['a subshell changes, unsets and exports only its own variables', 'A=1; B=2; (A=9; unset B; export C=3; echo "in $A ${B:-none} $C"; env | grep -c "^C="); echo "out $A $B ${C:-none}"; env | grep -c "^C="', { stdout: 'in 9 none 3\n1\nout 1 2 none\n0\n', code: 1 }],
    ['a multi-line script', 'echo one\nfor i in 1 2\ndo\n  echo $i\ndone\n# a comment\necho done', { stdout: 'one\n1\n2\ndone\n' }],
    ['! negates', '! false && echo negated', { stdout: 'negated\n' }],
    ['exit ends the script with its code', 'echo hello && exit 1; echo never', { stdout: 'hello\n', code: 1 }],
    ['the last status is the exit code', 'false', { code: 1 }],
    ['set -e stops at a failure outside conditions', 'set -e; if false; then :; fi; false || true; echo still; false; echo never', { stdout: 'still\n', code: 1 }],
    ['exec replaces the shell', 'exec echo replaced; echo never', { stdout: 'replaced\n' }],
    ['exec with redirections only applies them to the shell', 'exec 2>&1; ls /nope; echo after', { stdout: 'ls: /nope: No such file or directory\nafter\n' }],
  ]);
});

describe('expansions', () => {
  check(
    [
      ['$0, $1.., $#, $@', 'echo "$0|$1|$2|$#"; for a in "$@"; do echo "[$a]"; done', { stdout: 'name|a|b c|2\n[a]\n[b c]\n' }],
      ['$* joins', 'echo "$*"', { stdout: 'a b c\n' }],
      ['shift', 'shift; echo "$1 $#"', { stdout: 'b c 1\n' }],
    ],
    ['name', 'a', 'b c'],
  );
  check([
    ['tilde: ~ and ~/path are $HOME, ~root root\'s home, ~+ $PWD, also in an assignment; quoted, mid-word or an unknown user\'s stays', 'echo ~ ~/x ~root/y; cd /tmp; echo ~+ "~" a~ ~nobody; cd ~; pwd; H=~/bin; echo $H; HOME=/home/me; echo ~', { stdout: '/root /root/x /root/y\n/tmp ~ a~ ~nobody\n/root\n/root/bin\n/home/me\n' }],
  ]);
  check([
    ['${VAR:-default} and friends', 'E=; echo ${NOPE:-d1} ${E:-d2} ${E-d3}x ${HOME:+set} ${NOPE:=assigned} $NOPE', { stdout: 'd1 d2 x set assigned assigned\n' }],
    ['${#VAR} and pattern removal', 'p=/usr/local/bin/tool.tar.gz; echo ${#p} ${p##*/} ${p%%.*} ${p#*/} ${p%.gz}', { stdout: '26 tool.tar.gz /usr/local/bin/tool usr/local/bin/tool.tar.gz /usr/local/bin/tool.tar\n' }],
    ['${VAR:?} is an error that ends the shell', 'echo ${NOPE:?is required}; echo never', { stderr: 'sh: NOPE: is required\n', code: 2 }],
    ['$? and $$ (1 for the main process)', 'false; echo $? $$', { stdout: '1 1\n' }],
    ['$( ) and backquotes, nested', 'echo "$(echo "in $(echo deep)")" `echo back`', { stdout: 'in deep back\n' }],
    ['command substitution strips trailing newlines only', 'x=$(printf "a\\n\\nb\\n\\n"); echo "[$x]"', { stdout: '[a\n\nb]\n' }],
    ['an assignment takes the substitution status', 'x=$(false); echo $?', { stdout: '1\n' }],
    ['$(( )) arithmetic', 'a=7; echo $((a*2+1)) $((a/2)) $((a%3)) $((a>5)) $((-a)) $(( (a+1)*2 )) $((a==7 ? 10 : 20)) $((0x10 + 010))', { stdout: '15 3 1 1 -7 16 10 24\n' }],
    ['arithmetic assignment', 'i=1; : $((i+=4)); echo $i $((i++)) $i', { stdout: '5 5 6\n' }],
    ['divide by zero', 'echo $((1/0)); echo never', { stderr: 'sh: divide by zero\n', code: 2 }],
    ['arithmetic syntax error', 'echo $((1+)); echo never', { stderr: 'sh: arithmetic syntax error\n', code: 2 }],
    ['single and double quotes, escapes', `echo 'a  $HOME' "b  \\$HOME \\"q\\"" c\\ d`, { stdout: 'a  $HOME b  $HOME "q" c d\n' }],
    ['an empty quoted word is a field', 'set -- "" x; echo $#', { stdout: '2\n' }],
    ['globs match files', 'touch /tmp/b.log /tmp/a.log /tmp/c.txt; echo /tmp/*.log; echo /tmp/*.none', { stdout: '/tmp/a.log /tmp/b.log\n/tmp/*.none\n' }],
    ['$RANDOM is in 0-32767', 'r=$RANDOM; [ $r -ge 0 ] && [ $r -le 32767 ] && echo ok', { stdout: 'ok\n' }],
    ['${VAR:OFFSET:LENGTH}', 'x=abcdef; echo ${x:1:3} ${x:2} ${x: -2} ${x:0:-1}', { stdout: 'bcd cdef ef abcde\n' }],
    ['the shell exports SHLVL and PWD', 'env | grep -E "^(SHLVL|PWD)="; cd /tmp; sh -c \'echo $SHLVL $PWD\'', { stdout: 'SHLVL=1\nPWD=/\n2 /tmp\n' }],
    ['[[ ]]: unsplit words, globs, regex, && || !', 'x="a b"; [[ $x == "a b" ]] && echo eq; [[ $x == a* && ! -z $x ]] && echo glob; [[ $x == "a*" ]] || echo literal; [[ abc123 =~ ^[a-z]+[0-9]+$ ]] && echo re; [[ 3 -lt 10 ]] && echo num; [[ -d /tmp || -f /nope ]] && echo file', { stdout: 'eq\nglob\nliteral\nre\nnum\nfile\n' }],
    ['here-document', 'cat <<EOF\nhello $HOSTNAME\n  $((1+1))\nEOF\ncat <<\'RAW\'\n$HOME\nRAW', { stdout: 'hello web\n  2\n$HOME\n' }],
  ]);
});

describe('pipes and redirections', () => {
  check([
    ['a pipe feeds the next command', 'printf "b\\na\\nc\\n" | grep -v c | wc -l', { stdout: '2\n' }],
    ['pipe status is the last command', 'false | true; echo $?; true | false; echo $?', { stdout: '0\n1\n' }],
    ['pipeline commands are subshells', 'echo x | read v; echo "[${v:-}]"', { stdout: '[]\n' }],
    ['>&2 and 1>&2 write to stderr', 'echo a >&2; echo b 1>&2', { stderr: 'a\nb\n' }],
    ['2>&1 joins stderr to stdout, order matters', 'ls /nope 2>&1 >/dev/null; ls /nope >/dev/null 2>&1', { stdout: 'ls: /nope: No such file or directory\n', code: 1 }],
    ['>/dev/null discards', 'echo gone >/dev/null; echo kept', { stdout: 'kept\n' }],
    ['> and >> on the process\'s own files', 'echo x > /tmp/f; echo y >> /tmp/f; cat /tmp/f; echo z > /tmp/f; cat /tmp/f', { stdout: 'x\ny\nz\n' }],
    ['< reads a file', 'echo content > /tmp/in; wc -c < /tmp/in', { stdout: '8\n' }],
    ['while read over a file', 'printf "1 a\\n2 b\\n" > /tmp/l; while read n w; do echo "$w=$n"; done < /tmp/l', { stdout: 'a=1\nb=2\n' }],
    ['a missing input file', 'cat < /nope; echo $?', { stdout: '2\n', stderr: "sh: can't open /nope: no such file\n" }],
    ['a file in a missing directory', 'echo x > /no/dir/f', { stderr: "sh: can't create /no/dir/f: nonexistent directory\n", code: 2 }],
  ]);
});

describe('errors and messages', () => {
  check([
    ['a command not found', 'python3 -V', { stderr: 'sh: python3: not found\n', code: 127 }],
    ['unexpected done', 'done', { stderr: 'sh: syntax error: unexpected "done"\n', code: 2 }],
    ['an empty loop body', 'for i in 1 2; do done', { stderr: 'sh: syntax error: unexpected "done"\n', code: 2 }],
    ['an unfinished if', 'if true; then echo', { stderr: 'sh: syntax error: unexpected end of file (expecting "fi")\n', code: 2 }],
    ['fi where done belongs', 'while true; do echo; fi', { stderr: 'sh: syntax error: unexpected "fi" (expecting "done")\n', code: 2 }],
    ['an unterminated quote', 'echo "open', { stderr: 'sh: syntax error: unterminated quoted string\n', code: 2 }],
    ['lines before a syntax error run', 'echo first\nthen', { stdout: 'first\n', stderr: 'sh: syntax error: unexpected "then"\n', code: 2 }],
    ['exit with a bad number', 'exit abc', { stderr: 'sh: exit: line 1: Illegal number: abc\n', code: 2 }],
    ['cd to a missing directory', 'cd /nope; echo $?', { stdout: '2\n', stderr: "sh: cd: line 1: can't cd to /nope: No such file or directory\n" }],
    ['a test missing its ]', '[ 1 = 1', { stderr: 'sh: missing ]\n', code: 2 }],
  ]);

  it('takes options before -c: -e, -x, -o pipefail', () => {
    expect(run(['bash', '-euo', 'pipefail', '-c', 'false | true; echo never'])).toMatchObject({ stdout: '', code: 1 });
    expect(run(['sh', '-xc', 'echo "a b"'])).toMatchObject({ stdout: 'a b\n', stderr: "+ echo 'a b'\n" });
  });

  it('names messages after $0 with line numbers when sh -c is given a name', () => {
    expect(run(['sh', '-c', 'echo ok\nnope', 'myscript']).stderr).toBe('myscript: line 2: nope: not found\n');
  });

  it('bash words its messages as bash does', () => {
    expect(run(['bash', '-c', 'echo hi; nope']).stderr).toBe('bash: line 1: nope: command not found\n');
    const syntax = run(['bash', '-c', 'for i in 1; do done']);
    expect(syntax.stderr).toBe("bash: -c: line 1: syntax error near unexpected token `done'\nbash: -c: line 1: `for i in 1; do done'\n");
    expect(syntax.code).toBe(2);
    expect(run(['bash', '-c', 'if true; then']).stderr).toBe('bash: -c: line 1: syntax error: unexpected end of file\n');
  });

  it('says whether a syntax error is only an unfinished construct', () => {
    const incomplete = (s: string) => {
      try {
        parseScript(s);
        return 'complete';
      } catch (e) {
        return (e as ShellSyntaxError).incomplete ? 'incomplete' : 'error';
      }
    };
    expect(['for i in 1 2; do', 'echo "a', 'if x; then y;', 'f() {', 'echo $(date', 'cat <<EOF\nx', 'done', 'echo ok'].map(incomplete)).toEqual(['incomplete', 'incomplete', 'incomplete', 'incomplete', 'error', 'incomplete', 'error', 'complete']);
  });
});

describe('programs', () => {
  it('runs #! scripts from the files, text without #! as a script of the shell, and reports what cannot run', () => {
    const view = testView({ files: { '/usr/local/bin/hello': { text: '#!/bin/sh\necho "hello $1"\n', mode: 0o755 }, '/data/plain': { text: 'not a program', mode: 0o755 }, '/data/notexec': 'x' } });
    expect(run('hello world', { view }).stdout).toBe('hello world\n');
    // Without `#!` the kernel refuses it (ENOEXEC) and the shell runs it as a script itself, as POSIX asks.
    expect(run('/data/plain', { view })).toMatchObject({ stderr: '/data/plain: line 1: not: not found\n', code: 127 });
    expect(run('/data/notexec', { view })).toMatchObject({ stderr: 'sh: /data/notexec: Permission denied\n', code: 126 });
    expect(run('/data/nothing', { view })).toMatchObject({ stderr: 'sh: /data/nothing: No such file or directory\n', code: 127 });
  });

  it('an image without a tool on its PATH does not find it', () => {
    const view = testView({ image: { entrypoint: [], cmd: [], workingDir: '', env: [], tools: ['sh', 'echo'], programs: new Map() } });
    expect(run('echo hi; ls', { view })).toMatchObject({ stdout: 'hi\n', stderr: 'sh: ls: not found\n', code: 127 });
  });
});

describe('limits', () => {
  it('endless recursion ends the process as SIGSEGV (139); a pattern that cannot match does not match', () => {
    expect(run('f() { f; }; f')).toMatchObject({ code: 139 });
    expect(run('case x in [z-a]) echo m;; *) echo no;; esac')).toMatchObject({ stdout: 'no\n', code: 0 });
  });
});

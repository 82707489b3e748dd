/** The busybox tools a simulated image has: output and messages as busybox prints them. */
import { describe, expect, it } from 'vitest';
import { run, t0, testView } from './container.test-data';
import { sleepMs, strftime } from './containerTools';
import { catalogImage } from './imageCatalog';

type Case = [name: string, script: string, want: { stdout?: string; stderr?: string; code?: number }];

const check = (cases: Case[]) =>
  it.each(cases)('%s', (_name, script, want) => {
    const r = run(['sh', '-c', script], { view: testView({ files: { '/data/words': 'apple\nBanana\ncherry\napple pie\n', '/data/csv': 'a,1,x\nb,22,y\nc,3,z\n' } }) });
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.code }).toEqual({ stdout: want.stdout ?? '', stderr: want.stderr ?? '', code: want.code ?? 0 });
  });

describe('time', () => {
  it('date: busybox default format, +FORMAT, -I and -R, on the process clock (UTC)', () => {
    expect(strftime('%a %b %e %H:%M:%S %Z %Y', t0)).toBe('Sat Nov 28 17:18:10 UTC 2026');
    expect(strftime('%a %b %e', Date.UTC(2026, 0, 5))).toBe('Mon Jan  5');
    expect(run('date; date -u +%Y-%m-%dT%H:%M:%S%z; date -I; date -Iseconds; date -R; date +%s.%j%%; date -d @0 +%F').stdout).toBe(
      'Sat Nov 28 17:18:10 UTC 2026\n2026-11-28T17:18:10+0000\n2026-11-28\n2026-11-28T17:18:10+00:00\nSat, 28 Nov 2026 17:18:10 +0000\n1795886290.332%\n1970-01-01\n',
    );
  });

  it('sleep: seconds, fractions, s/m/h/d suffixes and infinity; a bad number', () => {
    expect(['1', '0.5', '.25', '2s', '1.5m', '1h', '1d', 'infinity', 'inf', 'x', '1w'].map(sleepMs)).toEqual([1000, 500, 250, 2000, 90_000, 3_600_000, 86_400_000, Infinity, Infinity, undefined, undefined]);
    // sleep ends at +1.5 s; date runs a command's millisecond later.
    expect(run('sleep 1 0.5; date +%T.%N')).toMatchObject({ stdout: '17:18:11.501000000\n', exitAt: 1502 });
    expect(run('sleep abc')).toMatchObject({ stderr: "sleep: invalid number 'abc'\n", code: 1 });
    expect(run('sleep infinity', { forMs: 86_400_000 }).code).toBeUndefined();
  });
});

describe('text tools', () => {
  check([
    ['echo -n and -e', "echo -n a; echo -e 'b\\tc\\n'; echo -e 'stop\\cnot'", { stdout: 'ab\tc\n\nstop' }],
    ['printf: formats, widths, reuse for extra arguments', "printf '%s=%d|%5s|%-3s|%03d|%x|%.2f|%%\\n' a 42 r l 7 255 3.14159; printf '%s\\n' x y", { stdout: 'a=42|    r|l  |007|ff|3.14|%\nx\ny\n' }],
    ['seq: last, first last, first step last, -s, -w', 'seq 3; seq 2 4; seq 1 2 6; seq -s , 3; seq -w 8 10; seq 5 1', { stdout: '1\n2\n3\n2\n3\n4\n1\n3\n5\n1,2,3\n08\n09\n10\n' }],
    ['head and tail', 'head -n 2 /data/words; head -1 /data/words; tail -n 1 /data/words; tail -n +3 /data/words; seq 20 | tail -2', { stdout: 'apple\nBanana\napple\napple pie\ncherry\napple pie\n19\n20\n' }],
    ['wc: lines, words, bytes', 'wc -l < /data/words; wc -w /data/words; echo hi | wc', { stdout: '4\n5 /data/words\n      1       1       3\n' }],
    ['grep: fixed strings, regex, -v -i -c -q -n, exit codes', "grep apple /data/words; grep -c -i BANANA /data/words; grep -v a /data/words; grep -n '^c.*y$' /data/words; grep -q pie /data/words && echo found; grep -E 'pie|cherry' /data/words; grep nothing /data/words; echo $?", { stdout: 'apple\napple pie\n1\ncherry\n3:cherry\nfound\ncherry\napple pie\n1\n' }],
    ['grep on a missing file', 'grep x /nope', { stderr: 'grep: /nope: No such file or directory\n', code: 2 }],
    ['tr', "echo hello | tr a-z A-Z; echo 'a-b-c' | tr -d -; echo aabbcc | tr -s ab", { stdout: 'HELLO\nabc\nabcc\n' }],
    ['tee writes to stdout and the files', 'echo x | tee /tmp/t1 /tmp/t2; cat /tmp/t2', { stdout: 'x\nx\n' }],
    ['cat streams stdin and reports missing files', 'echo in | cat - /nope', { stdout: 'in\n', stderr: "cat: can't open '/nope': No such file or directory\n", code: 1 }],
    ['sort: plain, -r, -n, -t -k, -u', "sort /data/words; sort -r /data/words | head -1; printf '3\\n10\\n2\\n' | sort -n; sort -t, -k2 -n /data/csv | cut -d, -f1; printf 'b\\na\\nb\\n' | sort -u", { stdout: 'Banana\napple\napple pie\ncherry\ncherry\n2\n3\n10\na\nc\nb\na\nb\n' }],
    ['uniq: -c, -d', "printf 'a\\na\\nb\\na\\n' | uniq -c; printf 'a\\na\\nb\\n' | uniq -d", { stdout: '      2 a\n      1 b\n      1 a\na\n' }],
    ['cut: fields and characters', 'cut -d, -f1,3 /data/csv; echo hello | cut -c2-4; echo a:b:c | cut -d: -f2-', { stdout: 'a,x\nb,y\nc,z\nell\nb:c\n' }],
    ['sed: s with g, & and groups, addresses, -n p, d, -i', `sed s/apple/pear/ /data/words | head -1; sed -n '/an/p' /data/words; sed '2d;$d' /data/words; echo aaa | sed 's/a/b/g'; echo x=1 | sed -e 's/\\(x\\)=\\(.*\\)/\\2=\\1 [&]/'; sed -i 's/pie/tart/' /data/words; tail -1 /data/words`, { stdout: 'pear\nBanana\napple\ncherry\nbbb\n1=x [x=1]\napple tart\n' }],
    ['sed: a bad script', "sed 's/a' /data/words", { stderr: "sed: unmatched '/'\n", code: 1 }],
    ['head on a missing file', 'head /nope', { stderr: "head: can't open '/nope': No such file or directory\n", code: 1 }],
  ]);
});

describe('expressions', () => {
  check([
    ['test and [: strings, integers, files, !, -a, -o', '[ -f /data/words ] && [ -d /tmp ] && [ ! -e /nope ] && [ -n x -a -z "" ] && test 3 -gt 2 -o 1 = 2 && [ abc != abd ] && echo all', { stdout: 'all\n' }],
    ['test with a bad integer', '[ x -eq 1 ]', { stderr: "sh: invalid number 'x'\n", code: 2 }],
    ['test with no arguments is false', 'test; echo $?', { stdout: '1\n' }],
    ['expr: arithmetic, comparison, length, match; 0 is status 1', 'expr 2 + 3 \\* 4; expr 7 / 2; expr 5 \\> 3; expr length hello; expr abc123 : "[a-z]*"; expr 1 - 1; echo $?', { stdout: '14\n3\n1\n5\n3\n0\n1\n' }],
    ['expr errors', 'expr 1 +; expr a + 1; expr 1 / 0', { stderr: 'expr: syntax error\nexpr: non-numeric argument\nexpr: division by zero\n', code: 2 }],
  ]);
});

describe('files and identity', () => {
  check([
    ['touch, mkdir -p, rm -r', 'touch /tmp/a; mkdir -p /tmp/d/e; touch /tmp/d/e/f; ls /tmp /tmp/d/e; rm -r /tmp/d; rm /tmp/a; ls /tmp', { stdout: '/tmp:\na\nd\n\n/tmp/d/e:\nf\n' }],
    ['mkdir and rm messages', 'mkdir /tmp; mkdir /no/such; rm /nope; rm /tmp; rm -f /nope', { stderr: "mkdir: can't create directory '/tmp': File exists\nmkdir: can't create directory '/no/such': No such file or directory\nrm: can't remove '/nope': No such file or directory\nrm: '/tmp' is a directory\n" }],
    ['basename and dirname', 'basename /usr/lib/libc.so .so; basename /a/b/; dirname /a/b/c; dirname file; dirname /top', { stdout: 'libc\nb\n/a/b\n.\n/\n' }],
    ['uname, whoami, hostname, id, pwd', 'uname; uname -m; uname -r; whoami; hostname; id; cd /tmp && pwd', { stdout: 'Linux\nx86_64\n6.8.0-kubesim\nroot\nweb\nuid=0(root) gid=0(root) groups=0(root)\n/tmp\n' }],
    ['env runs a command with more variables', 'env A=1 sh -c \'echo $A\'; env -i B=2 env', { stdout: '1\nB=2\n' }],
    ['export reaches child processes; a plain variable does not', 'A=1; export B=2; sh -c \'echo "${A:-none} $B"\'; C=3 sh -c \'echo $C\'', { stdout: 'none 2\n3\n' }],
  ]);

  it("ls -l: busybox's fixed columns; GNU coreutils' as wide as the widest entry, and its message and code for a missing path, in Debian's images", () => {
    const files = { '/app/a': 'x'.repeat(615), '/app/bb': 'y\n' };
    const at = strftime('%b %e %H:%M', t0);
    expect(run('ls -l /app', { view: testView({ files }) }).stdout).toBe(`total 8\n-rw-r--r--    1 root     root           615 ${at} a\n-rw-r--r--    1 root     root             2 ${at} bb\n`);
    const debian = testView({ files, image: catalogImage('debian:bookworm')! });
    expect(run('ls -l /app; ls /nope; echo $?', { view: debian })).toMatchObject({ stdout: `total 8\n-rw-r--r-- 1 root root 615 ${at} a\n-rw-r--r-- 1 root root   2 ${at} bb\n2\n`, stderr: "ls: cannot access '/nope': No such file or directory\n" });
  });

  it("Debian's sh is dash: every message carries the line number; busybox's ash gives it for builtins only", () => {
    const script = 'true\nnope; cd /missing';
    expect(run(['sh', '-c', script], { view: testView({ image: catalogImage('debian:bookworm')! }) }).stderr).toBe("sh: 2: nope: not found\nsh: 2: cd: can't cd to /missing\n");
    expect(run(['sh', '-c', script], { view: testView({ image: catalogImage('busybox:1.36')! }) }).stderr).toBe("sh: nope: not found\nsh: cd: line 2: can't cd to /missing: No such file or directory\n");
  });

  it("a missing file operand in GNU coreutils' words in Debian's images, busybox's elsewhere", () => {
    const script = 'cat /nope; cat /tmp; head /nope; tail /nope; wc /nope; sort /nope';
    expect(run(script, { view: testView({ image: catalogImage('debian:bookworm')! }) }).stderr).toBe(
      "cat: /nope: No such file or directory\ncat: /tmp: Is a directory\nhead: cannot open '/nope' for reading: No such file or directory\ntail: cannot open '/nope' for reading: No such file or directory\nwc: /nope: No such file or directory\nsort: cannot read: /nope: No such file or directory\n",
    );
    expect(run('cat /nope; cat /tmp; head /nope', { view: testView({ image: catalogImage('alpine:3.21')! }) }).stderr).toBe("cat: can't open '/nope': No such file or directory\ncat: read error: Is a directory\nhead: can't open '/nope': No such file or directory\n");
  });

  it('whoami for a uid without a name', () => {
    expect(run('whoami', { view: testView({ uid: 1000 }) })).toMatchObject({ stderr: 'whoami: unknown uid 1000\n', code: 1 });
  });
});

/** busybox's cp, mv, chmod, find and readlink in a simulated container: results and messages as busybox gives them. */
import { describe, expect, it } from 'vitest';
import { run, testView } from './container.test-data';

type Case = [name: string, script: string, want: { stdout?: string; stderr?: string; code?: number }];

const check = (cases: Case[]) =>
  it.each(cases)('%s', (_name, script, want) => {
    const r = run(['sh', '-c', script], { view: testView({ files: { '/app/a.txt': 'A\n', '/app/conf/x.conf': 'x=1\n', '/app/run.sh': { text: 'echo run\n', mode: 0o644 } } }) });
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.code }).toEqual({ stdout: want.stdout ?? '', stderr: want.stderr ?? '', code: want.code ?? 0 });
  });

describe('cp', () => {
  check([
    ['a file to a new name and into a directory', 'cp /app/a.txt /tmp/b && cp /app/a.txt /tmp && cat /tmp/b /tmp/a.txt', { stdout: 'A\nA\n' }],
    ['several files into a directory', 'cp /app/a.txt /app/run.sh /tmp && ls /tmp', { stdout: 'a.txt\nrun.sh\n' }],
    ['a directory needs -r; with it, the tree under a new name or inside an existing directory', 'cp /app/conf /tmp/c; echo $?; cp -r /app/conf /tmp/c && cat /tmp/c/x.conf && mkdir /tmp/d && cp -R /app/conf /tmp/d && ls /tmp/d/conf', { stdout: '1\nx=1\nx.conf\n', stderr: "cp: omitting directory '/app/conf'\n" }],
    ['missing source, missing target directory, several sources onto a file', "cp /nope /tmp/x; cp /app/a.txt /no/where; cp /app/a.txt /app/run.sh /app/a.txt", { stderr: "cp: can't stat '/nope': No such file or directory\ncp: can't create '/no/where': No such file or directory\ncp: '/app/a.txt' is not a directory\n", code: 1 }],
    ['a file onto itself', 'cp /app/a.txt /app/a.txt', { stderr: "cp: '/app/a.txt' and '/app/a.txt' are the same file\n", code: 1 }],
    ['an existing file keeps its mode without -p', 'chmod 600 /app/a.txt; touch /tmp/t; cp /app/a.txt /tmp/t; cp -p /app/a.txt /tmp/p; ls -l /tmp/t /tmp/p | cut -c1-10', { stdout: '-rw-r--r--\n-rw-------\n' }],
  ]);
});

describe('mv', () => {
  check([
    ['renames a file and moves a tree', 'mv /app/a.txt /app/b.txt && mv /app/conf /tmp && ls /app && find /tmp', { stdout: 'b.txt\nrun.sh\n/tmp\n/tmp/conf\n/tmp/conf/x.conf\n' }],
    ['a missing source; a directory into itself', 'mv /nope /tmp; mv /app /app/conf', { stderr: "mv: can't rename '/nope': No such file or directory\nmv: can't rename '/app': Invalid argument\n", code: 1 }],
  ]);
});

describe('chmod', () => {
  check([
    ['octal and symbolic modes, then the script runs', 'chmod +x /app/run.sh && /app/run.sh && chmod 640 /app/a.txt && chmod g-r,o+w /app/a.txt && chmod u=rw,go= /app/conf/x.conf && ls -l /app/run.sh /app/a.txt /app/conf/x.conf | cut -c1-10', { stdout: 'run\n-rwxr-xr-x\n-rw-----w-\n-rw-------\n' }],
    ['-R and a bad mode and a missing file', 'chmod -R 700 /app && ls -l /app | cut -c1-10; chmod q+x /app; chmod 700 /nope', { stdout: 'total 12\n-rwx------\ndrwx------\n-rwx------\n', stderr: "chmod: invalid mode 'q+x'\nchmod: /nope: No such file or directory\n", code: 1 }],
  ]);
});

describe('find', () => {
  check([
    ['a tree, -name, -type, -maxdepth', "cd /app && find . && find /app -name '*.conf' && find /app -type d && find / -maxdepth 1 -name app", { stdout: '.\n./a.txt\n./conf\n./conf/x.conf\n./run.sh\n/app/conf/x.conf\n/app\n/app/conf\n/app\n' }],
    ['a missing start and a bad type', 'find /nope; find /app -type q', { stderr: "find: /nope: No such file or directory\nfind: invalid argument 'q' to '-type'\n", code: 1 }],
  ]);
});

describe('symlinks', () => {
  const view = () => {
    const v = testView({ files: { '/app/conf/x.conf': 'x=1\n', '/app/a.txt': 'A\n' } });
    v.files.set('/app/current', { type: 'link', target: 'conf', mode: 0o777 });
    v.files.set('/app/x', { type: 'link', target: 'current/x.conf', mode: 0o777 });
    return v;
  };
  it.each<Case>([
    ['readlink: the target, -f the resolved path, nothing for a file', 'readlink /app/x; readlink -f /app/x; readlink /app/a.txt; echo $?', { stdout: 'current/x.conf\n/app/conf/x.conf\n1\n' }],
    ['read, listed and tested through', 'cat /app/x; ls /app/current; cd /app/current && cat x.conf; [ -L /app/x ] && [ -f /app/x ] && [ ! -L /app/a.txt ] && echo link', { stdout: 'x=1\nx.conf\nx=1\nlink\n' }],
    ['find lists them without following', 'find /app -type l; find /app/current', { stdout: '/app/current\n/app/x\n/app/current\n' }],
    ['cp follows one it is given; -a, -P and -r copy them as symlinks; mv renames one', 'cp /app/x /tmp/f && ls -l /tmp/f | cut -c1-10; cp -a /app/x /tmp/l && readlink /tmp/l; cp -P /app/current /tmp/p && readlink /tmp/p; cp -r /app /tmp/app && readlink /tmp/app/current && cat /tmp/app/x; mv /tmp/l /tmp/m && readlink /tmp/m', { stdout: '-rw-r--r--\ncurrent/x.conf\nconf\nconf\nx=1\ncurrent/x.conf\n' }],
    ['a write goes where it leads; rm removes the symlink itself', 'echo y > /app/x && cat /app/conf/x.conf && rm /app/x && ls /app/conf && ls /app', { stdout: 'y\nx.conf\na.txt\nconf\ncurrent\n' }],
    ['tar archives and extracts them as symlinks', 'tar cf /tmp/a.tar -C /app . && tar tvf /tmp/a.tar | grep -c "^l" && mkdir /tmp/out && tar xf /tmp/a.tar -C /tmp/out && readlink /tmp/out/x && cat /tmp/out/x', { stdout: '2\ncurrent/x.conf\nx=1\n' }],
  ])('%s', (_name, script, want) => {
    const r = run(['sh', '-c', script], { view: view() });
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.code }).toEqual({ stdout: want.stdout ?? '', stderr: want.stderr ?? '', code: want.code ?? 0 });
  });
});

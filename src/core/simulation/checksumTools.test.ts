/** busybox's md5sum, sha1sum, sha256sum and sha512sum in a simulated container: digests, -c checks and messages as busybox gives them. */
import { describe, expect, it } from 'vitest';
import { run, testView } from './container.test-data';

type Case = [name: string, script: string, want: { stdout?: string; stderr?: string; code?: number }];

const view = () => testView({ files: { '/app/a.txt': 'A\n', '/app/hello': 'hello\n' } });

describe('checksums', () => {
  it.each<Case>([
    ['a file and stdin', "md5sum /app/hello; printf 'hello\\n' | md5sum; printf '' | sha1sum -", { stdout: 'b1946ac92492d2347c6235b4d2611184  /app/hello\nb1946ac92492d2347c6235b4d2611184  -\nda39a3ee5e6b4b0d3255bfef95601890afd80709  -\n' }],
    ['sha256 of several files, one missing, one a directory', 'sha256sum /app/hello /nope /app', {
      stdout: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  /app/hello\n',
      stderr: "sha256sum: can't open '/nope': No such file or directory\nsha256sum: can't read '/app': Is a directory\n",
      code: 1,
    }],
    ['-c: OK, then a changed file FAILED with the warning', 'md5sum /app/a.txt /app/hello > /tmp/sums; md5sum -c /tmp/sums; echo B > /app/a.txt; md5sum -c /tmp/sums; echo $?', {
      stdout: '/app/a.txt: OK\n/app/hello: OK\n/app/a.txt: FAILED\n/app/hello: OK\n1\n',
      stderr: 'md5sum: WARNING: 1 of 2 computed checksums did NOT match\n',
    }],
    ['-c -s says nothing but the warning; -w flags a line that is no sum', 'md5sum /app/hello > /tmp/s; echo junk >> /tmp/s; md5sum -c -s -w /tmp/s && echo same', { stdout: 'same\n', stderr: 'md5sum: invalid format\n' }],
    ['an unknown option', 'sha512sum -x /app/hello', { stderr: 'sha512sum: unrecognized option: x\n', code: 1 }],
  ])('%s', (_name, script, want) => {
    const r = run(['sh', '-c', script], { view: view() });
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.code }).toEqual({ stdout: want.stdout ?? '', stderr: want.stderr ?? '', code: want.code ?? 0 });
  });

  it('a digest is over the bytes, not the text: a file that is not UTF-8 hashes as those bytes', () => {
    const v = view();
    v.files.set('/app/bin', { type: 'file', content: Uint8Array.from([0xff, 0xfe, 0x00, 0x80, 0x41]), mode: 0o644 });
    // As `printf '\xff\xfe\x00\x80\x41' | md5sum` on a machine; cat passes the bytes through the pipe unchanged.
    expect(run(['sh', '-c', 'md5sum /app/bin; cat /app/bin | md5sum'], { view: v }).stdout).toBe('2d752f568847adc67b0c183dd8ed38fd  /app/bin\n2d752f568847adc67b0c183dd8ed38fd  -\n');
  });
});

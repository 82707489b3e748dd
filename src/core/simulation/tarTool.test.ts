/**
 * busybox tar in a simulated container: what it writes is read by GNU tar
 * (the host's, an implementation of its own), and what GNU tar writes it
 * extracts, besides busybox's own messages and exit codes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, testView } from './container.test-data';
import type { ContainerView } from './containerView';

/** Scripts run over one view (each process starts from its files). */
function session(files: Record<string, string | { text: string; mode: number }> = {}) {
  const view: ContainerView = testView({ files });
  return {
    view,
    sh(script: string, stdin?: string) {
      const r = run(['sh', '-c', script], { view, ...(stdin !== undefined ? { stdin } : {}) });
      return { stdout: r.stdout, stderr: r.stderr, code: r.code };
    },
  };
}

/** The UTF-8 text of bytes, as an archive travels on a process's stdin and stdout. */
const asText = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const asBytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('tar', () => {
  it('c to stdout: ustar members GNU tar reads back, with busybox\'s leading-slash notice', () => {
    const r = run('mkdir -p /srv/site/img; echo hello > /srv/site/index.html; printf \'a\\nb\\n\' > /srv/site/img/list; tar cf - /srv/site', { view: testView() });
    expect(r.stderr).toBe("tar: removing leading '/' from member names\n");
    expect(r.code).toBe(0);
    const bytes = asBytes(r.stdout);
    expect(bytes.length % 512).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-tar-'));
    writeFileSync(join(dir, 'a.tar'), bytes);
    expect(execFileSync('tar', ['tvf', join(dir, 'a.tar')], { encoding: 'utf8' }).split('\n').filter(Boolean).map((l) => l.replace(/^(\S+) (\S+)\s+(\d+) \S+ \S+ /, '$1 $2 $3 '))).toEqual([
      'drwxr-xr-x root/root 0 srv/site/',
      'drwxr-xr-x root/root 0 srv/site/img/',
      '-rw-r--r-- root/root 4 srv/site/img/list',
      '-rw-r--r-- root/root 6 srv/site/index.html',
    ]);
    execFileSync('tar', ['xf', join(dir, 'a.tar'), '-C', dir]);
    expect(readFileSync(join(dir, 'srv/site/index.html'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(dir, 'srv/site/img/list'), 'utf8')).toBe('a\nb\n');
  });

  it('x from stdin what GNU tar wrote, with modes kept or masked (--no-same-permissions), a long name and UTF-8 text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-tar-'));
    const long = `${'deep/'.repeat(24)}file.txt`;
    mkdirSync(join(dir, 'src', long, '..'), { recursive: true });
    writeFileSync(join(dir, 'src', long), 'far down\n');
    writeFileSync(join(dir, 'src', 'run.sh'), '#!/bin/sh\necho héllo ✓\n', { mode: 0o777 });
    execFileSync('chmod', ['0777', join(dir, 'src', 'run.sh')]);
    const archive = execFileSync('tar', ['cf', '-', '-C', join(dir, 'src'), 'run.sh', 'deep']);
    const s = session();
    expect(s.sh('mkdir /dst && tar -xmf - -C /dst && cat /dst/run.sh && cat /dst/' + long + ' && ls -l /dst/run.sh', asText(archive))).toEqual({
      stdout: expect.stringMatching(/^#!\/bin\/sh\necho héllo ✓\nfar down\n-rwxrwxrwx .* \/dst\/run\.sh\n$/),
      stderr: '',
      code: 0,
    });
    expect(s.sh('mkdir /dst2 && tar --no-same-permissions --no-same-owner -xmf - -C /dst2 && ls -l /dst2/run.sh', asText(archive)).stdout).toMatch(/^-rwxr-xr-x .* \/dst2\/run\.sh\n$/);
    expect(statSync(join(dir, 'src', 'run.sh')).mode & 0o777).toBe(0o777);
  });

  it('kubectl cp\'s own commands: into a directory, out of a file, a directory under a new name', () => {
    const s = session({ '/etc/app.conf': 'x=1\n' });
    // Out: `tar cf - /etc/app.conf`; kubectl strips the leading directories.
    const out = s.sh('tar cf - /etc/app.conf');
    expect(out.stderr).toBe("tar: removing leading '/' from member names\n");
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-tar-'));
    writeFileSync(join(dir, 'out.tar'), asBytes(out.stdout));
    expect(execFileSync('tar', ['tf', join(dir, 'out.tar')], { encoding: 'utf8' })).toBe('etc/app.conf\n');
    // In: kubectl names the member after the destination and extracts in its directory.
    mkdirSync(join(dir, 'in', 'd2'), { recursive: true });
    writeFileSync(join(dir, 'in', 'd2', 'x'), 'a\n');
    writeFileSync(join(dir, 'in', 'hello.txt'), 'hi\n');
    const archive = execFileSync('tar', ['cf', '-', '-C', join(dir, 'in'), 'hello.txt', 'd2']);
    expect(s.sh('tar -xmf - -C /tmp; cat /tmp/hello.txt /tmp/d2/x', asText(archive))).toEqual({ stdout: 'hi\na\n', stderr: '', code: 0 });
  });

  it('t lists, -v shows busybox\'s long lines, -O writes members to stdout, operands pick members', () => {
    const s = session({ '/a/one': '1\n', '/a/two': '22\n' });
    expect(s.sh('cd / && tar cf /tmp/a.tar a && tar tf /tmp/a.tar && tar xOf /tmp/a.tar a/two && tar -tvf /tmp/a.tar a/one')).toEqual({
      stdout: 'a/\na/one\na/two\n22\n-rw-r--r-- root/root         2 2026-11-28 17:18:10 a/one\n',
      stderr: '',
      code: 0,
    });
    expect(s.sh('cd /tmp && tar cvf b.tar /a/one').stdout).toBe('a/one\n');
    expect(s.sh('tar cvf - /a/one >/dev/null').stderr).toBe("tar: removing leading '/' from member names\na/one\n");
  });

  it('busybox\'s errors and exit codes', () => {
    const s = session({ '/f': 'x\n' });
    expect(s.sh('tar cf - /nope /f | tar tf -')).toEqual({ stdout: 'f\n', stderr: "tar: /nope: No such file or directory\ntar: removing leading '/' from member names\ntar: error exit delayed from previous errors\n", code: 0 });
    expect(s.sh('tar cf - /nope >/dev/null; echo $?').stdout).toBe('1\n');
    expect(s.sh('tar cf -')).toEqual({ stdout: '', stderr: 'tar: empty archive\n', code: 1 });
    expect(s.sh('tar xf - -C /missing', '')).toEqual({ stdout: '', stderr: "tar: can't change directory to '/missing': No such file or directory\n", code: 1 });
    expect(s.sh('tar xf -', 'not an archive at all'.padEnd(512, ' '))).toEqual({ stdout: '', stderr: 'tar: invalid tar magic\n', code: 1 });
    expect(s.sh('tar xf -', 'short')).toEqual({ stdout: '', stderr: 'tar: short read\n', code: 1 });
    expect(s.sh('tar xf -', '')).toEqual({ stdout: '', stderr: '', code: 0 });
    expect(s.sh('tar xf /none.tar')).toEqual({ stdout: '', stderr: "tar: can't open '/none.tar': No such file or directory\n", code: 1 });
    expect(s.sh('tar f x')).toEqual({ stdout: '', stderr: "tar: exactly one of 'c', 'x' or 't' must be specified\n", code: 1 });
    expect(s.sh('tar czf - /f').stderr).toBe('tar: compressed archives (-z) are not simulated\n');
  });

  it('a damaged header is refused by its checksum', () => {
    const s = session({ '/f': 'x\n' });
    const bytes = asBytes(s.sh('tar cf - /f').stdout);
    bytes[0] = 'g'.charCodeAt(0);
    expect(s.sh('tar tf -', asText(bytes))).toEqual({ stdout: '', stderr: 'tar: invalid tar header checksum\n', code: 1 });
  });
});

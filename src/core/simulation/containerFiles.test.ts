/** The files a container's processes share: a layer per run, volumes over it, each read at the reader's time. */
import { describe, expect, it } from 'vitest';
import { containerFilesystem, VolumeStores } from './containerFiles';
import { FileStore, type StoreRunner } from './fileStore';
import { testView, t0 } from './container.test-data';
import { startProcess } from './containerProcess';
import { readFile, writeFile } from './containerTools';

const text = (s: string) => ({ type: 'file' as const, content: new TextEncoder().encode(s), mode: 0o644 });

describe('FileStore', () => {
  it('keeps each write with its time: a read sees the last write at or before it, never a later one', () => {
    const store = new FileStore();
    store.put('/log', text('a'), 1_000);
    store.put('/log', text('ab'), 2_000);
    store.put('/gone', text('x'), 1_000);
    store.put('/gone', undefined, 1_500);
    const read = (p: string, at: number) => {
      const e = store.get(p, at);
      return e?.type === 'file' ? new TextDecoder().decode(e.content) : e?.type;
    };
    expect([read('/log', 999), read('/log', 1_000), read('/log', 1_999), read('/log', 2_000)]).toEqual([undefined, 'a', 'a', 'ab']);
    expect([read('/gone', 1_200), read('/gone', 1_500)]).toEqual(['x', undefined]);
    expect([...store.paths(1_200)].sort()).toEqual(['/', '/gone', '/log']);
    expect([...store.paths(1_500)].sort()).toEqual(['/', '/log']);
    // A write arriving late (a process behind the others) takes its place in time.
    store.put('/log', text('a+'), 1_500);
    expect([read('/log', 1_600), read('/log', 2_000)]).toEqual(['a+', 'ab']);
  });

  it('runs the other processes sharing it up to the reader\'s time before a read', () => {
    const store = new FileStore();
    const ran: number[] = [];
    const writer: StoreRunner = { runUntil: (at) => ran.push(at), finished: false, rank: 0, stop: () => {} };
    const done: StoreRunner = { runUntil: () => ran.push(-1), finished: true, rank: 1, stop: () => {} };
    store.join(writer);
    store.join(done);
    store.catchUp(7);
    store.catchUp(9);
    // One that is done is let go.
    expect(ran).toEqual([7, 9]);
  });
});

describe('a container run\'s files', () => {
  const view = { ...testView({ files: { '/etc/config/key': 'value' } }), mounts: [{ path: '/etc/config', subPath: '', readOnly: true }, { path: '/cache', volume: 'emptyDir/u1/cache', subPath: '', readOnly: false }, { path: '/logs', volume: 'emptyDir/u1/cache', subPath: 'app/logs', readOnly: false }, { path: '/ro', volume: 'emptyDir/u1/cache', subPath: '', readOnly: true }] };

  it('routes each path to its mount: volumes shared between runs, the layer its run\'s own, subPath a directory of the volume', () => {
    const volumes = new VolumeStores();
    const first = containerFilesystem(view, (v) => volumes.store(v)).forProcess(() => t0);
    expect(writeFile(first, '/cache/a', 'shared\n', false)).toBeUndefined();
    expect(writeFile(first, '/logs/app.log', 'line\n', false)).toBeUndefined();
    expect(writeFile(first, '/tmp/own', 'mine\n', false)).toBeUndefined();
    // The subPath is a directory of the same volume.
    expect(readFile(first, '/cache/app/logs/app.log')).toBe('line\n');
    expect([...first.keys()].filter((p) => p.startsWith('/cache')).sort()).toEqual(['/cache', '/cache/a', '/cache/app', '/cache/app/logs', '/cache/app/logs/app.log']);
    // A new run of the container (a restart): a new layer, the same volumes.
    const second = containerFilesystem(view, (v) => volumes.store(v)).forProcess(() => t0 + 1);
    expect([readFile(second, '/cache/a'), readFile(second, '/tmp/own'), readFile(second, '/ro/a')]).toEqual(['shared\n', undefined, 'shared\n']);
    // The pod gone: its emptyDirs with it.
    volumes.forgetPod('u1');
    expect(readFile(containerFilesystem(view, (v) => volumes.store(v)).forProcess(() => t0 + 2), '/cache/a')).toBeUndefined();
  });

  it('refuses writes to a configMap-like volume and a readOnly mount with EROFS, as busybox words it', () => {
    const files = containerFilesystem(view);
    const sh = (script: string) => {
      const p = startProcess(view, ['sh', '-c', script], t0, { stdin: false, tty: false, files });
      if (!p.started) throw new Error(p.error);
      const r = p.process.advance(t0 + 60_000);
      return { out: r.output.map((o) => o.text).join(''), code: r.exit?.code };
    };
    expect(sh('echo x > /etc/config/key; echo $?')).toEqual({ out: "sh: can't create /etc/config/key: Read-only file system\n2\n", code: 0 });
    expect(sh('echo x >> /ro/new')).toEqual({ out: "sh: can't create /ro/new: Read-only file system\n", code: 2 });
    expect(sh('touch /etc/config/key')).toEqual({ out: 'touch: /etc/config/key: Read-only file system\n', code: 1 });
    expect(sh('mkdir /etc/config/d')).toEqual({ out: "mkdir: can't create directory '/etc/config/d': Read-only file system\n", code: 1 });
    expect(sh('rm /etc/config/key')).toEqual({ out: "rm: can't remove '/etc/config/key': Read-only file system\n", code: 1 });
    expect(sh('echo x | tee /etc/config/new')).toEqual({ out: "tee: can't open '/etc/config/new': Read-only file system\nx\n", code: 1 });
    expect(sh('cat /etc/config/key; echo; ls /etc/config')).toEqual({ out: 'value\nkey\n', code: 0 });
    // cp, mv, chmod and tar say it as busybox's do; the file stays as it was.
    expect(sh('cp /etc/hostname /etc/config/key')).toEqual({ out: "cp: can't create '/etc/config/key': Read-only file system\n", code: 1 });
    expect(sh('mv /etc/config/key /tmp/key')).toEqual({ out: "mv: can't rename '/etc/config/key': Read-only file system\n", code: 1 });
    expect(sh('chmod 600 /etc/config/key')).toEqual({ out: 'chmod: /etc/config/key: Read-only file system\n', code: 1 });
    expect(sh('cd /etc && tar cf - hostname | tar xf - -C /etc/config')).toEqual({ out: "tar: can't open 'hostname': Read-only file system\n", code: 1 });
    expect(sh('tar cf /ro/a.tar /etc/hostname 2>&1 | tail -1')).toEqual({ out: "tar: can't open '/ro/a.tar': Read-only file system\n", code: 0 });
    expect(sh('cat /etc/config/key')).toEqual({ out: 'value', code: 0 });
    // A mount point cannot be removed; what is in the volume can.
    expect(sh('touch /cache/x; rm -rf /cache; ls /cache; echo $?')).toEqual({ out: "rm: can't remove '/cache': Resource busy\n0\n", code: 0 });
    // A missing directory is still ENOENT first.
    expect(sh('echo x > /etc/config/no/such')).toEqual({ out: "sh: can't create /etc/config/no/such: nonexistent directory\n", code: 2 });
  });

  it('a process reads what another wrote by its own time, never what comes later', () => {
    const files = containerFilesystem(view);
    const writer = startProcess(view, ['sh', '-c', 'while true; do date +%S >> /cache/log; sleep 1; done'], t0, { stdin: false, tty: false, files });
    if (!writer.started) throw new Error(writer.error);
    // The writer has run ahead of the reader.
    writer.process.advance(t0 + 4_000);
    const reader = startProcess(view, ['sh', '-c', 'sleep 2.5; cat /cache/log'], t0, { stdin: false, tty: false, files, exec: true, commandMs: 0 });
    if (!reader.started) throw new Error(reader.error);
    expect(reader.process.advance(t0 + 60_000).output.map((o) => o.text).join('')).toBe('10\n11\n12\n');
  });
});

/** Exec's two shapes: a command run at once, and a shell fed a line at a time (busybox's prompts). */
import { describe, expect, it } from 'vitest';
import { execInContainer, execInContainerOn, lineShell } from './containerExec';
import { t0, testView } from './container.test-data';
import { catalogImage } from './imageCatalog';

describe('execInContainer', () => {
  it('runs the command at once: sleeps pass on its own clock, a process that never ends is reported killed', () => {
    const view = testView();
    expect(execInContainer(view, ['sh', '-c', 'date +%T; sleep 3600; date +%T; echo oops >&2; exit 4'], '', new Date(t0))).toEqual({ started: true, stdout: '17:18:10\n18:18:10\n', stderr: 'oops\n', exitCode: 4 });
    expect(execInContainer(view, ['sleep', 'infinity'], '', new Date(t0))).toEqual({ started: true, stdout: '', stderr: '', exitCode: 137 });
    expect(execInContainer(view, ['cat'], 'typed\n', new Date(t0))).toMatchObject({ stdout: 'typed\n', exitCode: 0 });
    expect(execInContainer(view, ['nope'], '', new Date(t0))).toEqual({ started: false, error: 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown' });
  });
});

describe('lineShell', () => {
  it('waits behind "> " while a construct is open, then runs it', () => {
    const sh = lineShell(testView(), ['sh'], () => new Date(t0), { tty: true })!;
    expect(sh.prompt()).toBe('/ # ');
    expect(sh.line('for i in 1 2; do')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(sh.prompt()).toBe('> ');
    expect(sh.line('  echo "n=$i"')).toMatchObject({ stdout: '' });
    expect(sh.line('done')).toMatchObject({ stdout: 'n=1\nn=2\n' });
    expect(sh.prompt()).toBe('/ # ');
  });

  it('keeps its variables, directory and files from line to line; an error does not end an interactive shell', () => {
    const sh = lineShell(testView(), ['/bin/sh'], () => new Date(t0), { tty: true })!;
    sh.line('X=5; cd /tmp; echo hi > f');
    expect(sh.prompt()).toBe('/tmp # ');
    expect(sh.line('echo $X; cat f')).toMatchObject({ stdout: '5\nhi\n' });
    expect(sh.line('done')).toMatchObject({ stderr: '/bin/sh: syntax error: unexpected "done"\n', exitCode: 2 });
    expect(sh.line('echo ${NOPE:?}')).toMatchObject({ stderr: '/bin/sh: NOPE: parameter not set\n' });
    expect(sh.line('nope')).toMatchObject({ stderr: '/bin/sh: nope: not found\n', exitCode: 127 });
    expect(sh.line('exit 3')).toMatchObject({ exit: 3 });
  });

  it('prompts as the image\'s shell does: bash in Debian with its bashrc\'s user@host:dir (the home as ~), dash a bare sign', () => {
    const nginx = catalogImage('nginx:1.27')!;
    const bash = lineShell(testView({ image: nginx }), ['bash'], () => new Date(t0), { tty: true })!;
    expect(bash.prompt()).toBe('root@web:/# ');
    bash.line('mkdir -p /srv/www && cd /srv/www');
    expect(bash.prompt()).toBe('root@web:/srv/www# ');
    bash.line('mkdir -p /root/app && cd ~/app');
    expect(bash.prompt()).toBe('root@web:~/app# ');
    expect(lineShell(testView({ image: nginx, uid: 1000 }), ['bash'], () => new Date(t0), { tty: true })!.prompt()).toBe('I have no name!@web:/$ ');
    expect(lineShell(testView({ image: nginx }), ['sh'], () => new Date(t0), { tty: true })!.prompt()).toBe('# ');
  });

  it('is only for a shell reading its input', () => {
    expect(lineShell(testView(), ['sh', '-c', 'echo'], () => new Date(t0))).toBeUndefined();
    expect(lineShell(testView(), ['cat'], () => new Date(t0))).toBeUndefined();
    expect(lineShell(testView(), ['bash', '-i'], () => new Date(t0))).toBeDefined();
  });
});

describe('execInContainerOn', () => {
  it('sleeps on the clock, stops a process that never sleeps when the client goes, and one that sleeps forever too', async () => {
    const { FakeClock } = await import('../util/clock');
    const clock = new FakeClock(new Date(t0));
    const view = testView();
    const sleeping = execInContainerOn(view, ['sh', '-c', 'echo a; sleep 5; echo b'], '', clock);
    await new Promise((r) => setTimeout(r, 5));
    clock.advance(5_000);
    expect(await sleeping).toEqual({ started: true, stdout: 'a\nb\n', stderr: '', exitCode: 0 });
    const gone = new AbortController();
    const spinning = execInContainerOn(view, ['sh', '-c', 'echo spin; while :; do :; done'], '', clock, gone.signal);
    await new Promise((r) => setTimeout(r, 20));
    gone.abort();
    expect(await spinning).toEqual({ started: true, stdout: 'spin\n', stderr: '', exitCode: 137 });
    const forever = new AbortController();
    const waiting = execInContainerOn(view, ['sleep', 'infinity'], '', clock, forever.signal);
    forever.abort();
    expect(await waiting).toMatchObject({ exitCode: 137 });
  });
});

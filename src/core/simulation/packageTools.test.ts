/** The images' package managers: apt-get/apt on Debian and Ubuntu, apk on Alpine, installing the commands kubesim simulates into the container's layer. */
import { describe, expect, it } from 'vitest';
import { run, testView } from './container.test-data';
import { catalogImage } from './imageCatalog';
import { osRelease } from './packageTools';

const view = (image: string) => testView({ image: catalogImage(image)! });

describe('apt-get', () => {
  it('finds nothing before apt-get update (the image ships no package lists), then installs curl and procps into the layer', () => {
    const v = view('nginx:1.27');
    expect(run('apt-get install -y curl', { view: v })).toEqual(expect.objectContaining({ stdout: 'Reading package lists...\nBuilding dependency tree...\nReading state information...\n', stderr: 'E: Unable to locate package curl\n', code: 100 }));
    const update = run('apt-get update; echo $?; apt-get update | head -1', { view: v });
    expect(update.stdout.split('\n')[0]).toBe('Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]');
    expect(update.stdout).toContain('Fetched 9305 kB in 1s (6890 kB/s)\nReading package lists...\n0\nHit:1 http://deb.debian.org/debian bookworm InRelease\n');
    const install = run('apt-get update >/dev/null; apt-get install -y curl procps && which curl ps; apt-get install -y curl | tail -2', { view: v });
    expect(install.stdout).toContain('The following NEW packages will be installed:\n  curl procps\n0 upgraded, 2 newly installed, 0 to remove and 0 not upgraded.\n');
    expect(install.stdout).toContain('Preparing to unpack .../0-curl_7.88.1-10+deb12u12_amd64.deb ...\nUnpacking curl (7.88.1-10+deb12u12) ...\n');
    expect(install.stdout).toMatch(/Setting up curl \(7\.88\.1-10\+deb12u12\) \.\.\.\nSetting up procps \(2:4\.0\.2-3\) \.\.\.\n\/usr\/bin\/curl\n\/usr\/bin\/ps\ncurl is already the newest version \(7\.88\.1-10\+deb12u12\)\.\n0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded\.\n$/);
  });

  it('a package kubesim does not simulate is not located, with a notice naming those it does; a user other than root cannot lock dpkg', () => {
    const v = view('debian:bookworm');
    expect(run('apt-get update >/dev/null; apt install -y vim', { view: v })).toMatchObject({ stdout: expect.stringContaining('N: kubesim simulates these packages: bind9-dnsutils, curl, dnsutils,'), stderr: 'E: Unable to locate package vim\n', code: 100 });
    expect(run('apt-get install -y curl', { view: { ...v, uid: 1000 } })).toMatchObject({ stderr: 'E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?\n', code: 100 });
  });

  it("Ubuntu's mirror and release come from the tag, and /etc/os-release names them", () => {
    expect(run('apt-get update | head -1', { view: view('ubuntu:22.04') }).stdout).toBe('Get:1 http://archive.ubuntu.com/ubuntu jammy InRelease [256 kB]\n');
    expect(osRelease(catalogImage('ubuntu:22.04')!.os!)).toContain('VERSION="22.04 LTS (jammy)"\nVERSION_CODENAME=jammy\nID=ubuntu\n');
    expect(osRelease(catalogImage('nginx:1.27')!.os!).split('\n')[0]).toBe('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"');
    expect(osRelease(catalogImage('alpine:3.20')!.os!).split('\n')[3]).toBe('PRETTY_NAME="Alpine Linux v3.20"');
  });
});

describe('apk', () => {
  it("fetches the release's indexes and installs curl; an unknown package cannot be selected; a non-root user cannot lock the database", () => {
    const v = view('alpine:3.20');
    expect(run('apk add curl && which curl', { view: v })).toMatchObject({
      stdout: 'fetch https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/APKINDEX.tar.gz\nfetch https://dl-cdn.alpinelinux.org/alpine/v3.20/community/x86_64/APKINDEX.tar.gz\n(1/1) Installing curl (8.12.1-r1)\nExecuting busybox-1.37.0-r12.trigger\nOK: 9 MiB in 16 packages\n/usr/bin/curl\n',
      code: 0,
    });
    expect(run('apk add vim', { view: v })).toMatchObject({ stderr: expect.stringContaining('ERROR: unable to select packages:\n  vim (no such package):\n    required by: world[vim]\n'), code: 1 });
    // curlimages/curl runs as curl_user (100).
    expect(run('apk add bind-tools', { view: { ...view('curlimages/curl:8.11.1'), uid: 100 } })).toMatchObject({ stderr: 'ERROR: Unable to lock database: Permission denied\nERROR: Failed to open apk database: Permission denied\n', code: 99 });
  });
});

describe('apk world', () => {
  it("records what it installs in /etc/apk/world, so procps replaces busybox's ps at the same path, and the image's own curl is installed already", () => {
    const v = view('alpine:3.20');
    const r = run('ps -o pid >/dev/null; echo busybox $?; apk add procps >/dev/null && cat /etc/apk/world && apk add procps curl | grep Installing; ps -o pid,comm', { view: v });
    expect(r.stderr).toBe("ps: unrecognized option: o\n");
    expect(r.stdout).toBe('busybox 1\nalpine-baselayout\nalpine-keys\napk-tools\nbusybox\nlibc-utils\nprocps\n(1/1) Installing curl (8.12.1-r1)\n    PID COMMAND\n      1 ps\n');
    expect(run('apk add curl', { view: { ...view('curlimages/curl:8.11.1'), uid: 0 } }).stdout).toMatch(/\nOK: 8 MiB in 15 packages\n$/);
    // procps' specifiers are its own: an object's inherited keys are none of them.
    expect(run('apk add procps >/dev/null; ps -o constructor', { view: v })).toMatchObject({ stderr: expect.stringMatching(/^error: unknown user-defined format specifier "constructor"\n\nUsage:\n ps \[options\]\n/), code: 1 });
  });
});

describe('which', () => {
  it('prints where a command runs from on PATH, every one with -a; 1 for one that is not there', () => {
    expect(run('which sh cat; which nope; echo $?', { view: view('alpine:3.21') }).stdout).toBe('/bin/sh\n/bin/cat\n1\n');
  });
});

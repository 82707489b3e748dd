import { describe, expect, it } from 'vitest';
import { imageFor, isUnknownImage } from './image';
import { unpublishedTag } from './imageCatalog';
import { parseImageReference } from './imageReference';
import { containerArgv, startProcess } from './containerProcess';
import { t0, testView } from './container.test-data';

/** A container of the image run for a minute with no stdin: what it wrote (both streams) and its exit code, if it exited. */
function runImage(ref: string, container: Record<string, unknown> = {}, env: [string, string][] = []): { out: string; exit?: number } | string {
  const image = imageFor(ref);
  const view = testView({ image, env });
  const started = startProcess(view, containerArgv(container, image, new Map(view.env)), t0, { stdin: false, tty: false });
  if (!started.started) return started.error;
  const r = started.process.advance(t0 + 60_000);
  return { out: r.output.map((o) => o.text).join(''), ...(r.exit ? { exit: r.exit.code } : {}) };
}

const unpublished = (image: string) => {
  const parsed = parseImageReference(image);
  if (!('ref' in parsed)) throw new Error(parsed.error);
  return unpublishedTag(parsed.ref);
};

describe('the image catalog', () => {
  it('gives well-known images their real config', () => {
    expect(imageFor('busybox')).toMatchObject({ entrypoint: [], cmd: ['sh'] });
    expect(imageFor('busybox').tools).not.toContain('bash');
    expect(imageFor('alpine:3.20')).toMatchObject({ entrypoint: [], cmd: ['/bin/sh'] });
    expect(imageFor('ubuntu:24.04')).toMatchObject({ cmd: ['/bin/bash'] });
    expect(imageFor('debian:bookworm-slim')).toMatchObject({ cmd: ['bash'] });
    expect(imageFor('docker.io/library/nginx:1.27')).toMatchObject({ entrypoint: ['/docker-entrypoint.sh'], cmd: ['nginx', '-g', 'daemon off;'] });
    expect(imageFor('nginx:1.27').env).toContainEqual(['NGINX_VERSION', '1.27.3']);
    expect(imageFor('httpd:2.4')).toMatchObject({ cmd: ['httpd-foreground'], workingDir: '/usr/local/apache2' });
    expect(imageFor('redis:7')).toMatchObject({ entrypoint: ['docker-entrypoint.sh'], cmd: ['redis-server'], workingDir: '/data' });
    expect(imageFor('postgres:17')).toMatchObject({ entrypoint: ['docker-entrypoint.sh'], cmd: ['postgres'] });
    expect(imageFor('postgres:17').env).toContainEqual(['PGDATA', '/var/lib/postgresql/data']);
    expect(imageFor('mysql:8.4')).toMatchObject({ entrypoint: ['docker-entrypoint.sh'], cmd: ['mysqld'] });
    expect(imageFor('python:3.12-slim')).toMatchObject({ entrypoint: [], cmd: ['python3'] });
    expect(imageFor('node:22')).toMatchObject({ entrypoint: ['docker-entrypoint.sh'], cmd: ['node'] });
    expect(imageFor('registry.k8s.io/pause:3.10')).toMatchObject({ entrypoint: ['/pause'], cmd: [], tools: [], user: 65535 });
    // Before 3.5 pause runs as root.
    expect(imageFor('registry.k8s.io/pause:3.1').user).toBeUndefined();
    expect(imageFor('registry.k8s.io/pause:3.5').user).toBe(65535);
    expect(imageFor('curlimages/curl:8.11.1')).toMatchObject({ entrypoint: ['/entrypoint.sh'], cmd: ['curl'], user: 100 });
    expect(isUnknownImage(imageFor(`nginx@sha256:${'0'.repeat(64)}`))).toBe(false);
  });

  it('leaves other repositories unknown, and so unpublished tags of known ones', () => {
    expect(isUnknownImage(imageFor('envoyproxy/envoy:v1.31.0'))).toBe(true);
    expect(isUnknownImage(imageFor('nginx:1.999'))).toBe(true);
    expect(isUnknownImage(imageFor('localhost:5000/nginx'))).toBe(true);
  });

  it('knows the tags each repository publishes', () => {
    for (const tag of ['nginx', 'nginx:1.27', 'nginx:1.27.3', 'nginx:1.26-alpine', 'nginx:stable-alpine', 'nginx:alpine', 'busybox:1.36', 'busybox:1.36.1-musl', 'alpine:3.21', 'ubuntu:jammy', 'debian:12', 'redis:7.4-alpine', 'postgres:16', 'mysql:8.0.40', 'python:3.13', 'node:lts-alpine', 'registry.k8s.io/pause:3.10', 'curlimages/curl:8.11.1', 'gcr.io/google-samples/hello-app:1.0', 'us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0']) {
      expect(unpublished(tag), tag).toBe(false);
    }
    for (const tag of ['nginx:1.999', 'nginx:2', 'nginx:1.27.99', 'nginx:lates', 'busybox:nope', 'busybox:2.0', 'alpine:4', 'ubuntu:23.06', 'postgres:99', 'python:4', 'registry.k8s.io/pause:9', 'gcr.io/google-samples/hello-app:3.0', 'gcr.io/google-samples/hello-app']) {
      expect(unpublished(tag), tag).toBe(true);
    }
    expect(unpublished('example.com/team/app:whatever')).toBe(false);
  });

  it('runs each image\'s Cmd as a cluster would, with no stdin', () => {
    // Shells and interpreters read EOF and exit 0.
    for (const ref of ['busybox', 'alpine', 'ubuntu', 'debian', 'python:3.13', 'node:22']) expect(runImage(ref), ref).toEqual({ out: '', exit: 0 });
    // Servers and pause run until stopped.
    expect(runImage('registry.k8s.io/pause:3.10')).toEqual({ out: '' });
    const redis = runImage('redis:7.4');
    expect(typeof redis === 'object' && redis.exit).toBeUndefined();
    expect(typeof redis === 'object' && redis.out).toMatch(/^1:C 28 Nov 2026 17:18:10\.000 \* oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n1:C .* \* Redis version=7\.4\.1, bits=64/);
    expect(typeof redis === 'object' && redis.out).toContain('1:M 28 Nov 2026 17:18:10.000 * Ready to accept connections tcp\n');
    const httpd = runImage('httpd:2.4');
    expect(typeof httpd === 'object' && httpd.out).toContain('[Sat Nov 28 17:18:10.000000 2026] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4.62 (Unix) configured -- resuming normal operations\n');
    // curl with no URL: its usage hint, exit 2.
    expect(runImage('curlimages/curl:8.11.1')).toEqual({ out: "curl: try 'curl --help' or 'curl --manual' for more information\n", exit: 2 });
  });

  it('postgres and mysql refuse to initialize without a password, and run with one', () => {
    const pg = runImage('postgres:17');
    expect(pg).toMatchObject({ exit: 1 });
    expect(typeof pg === 'object' && pg.out).toMatch(/^Error: Database is uninitialized and superuser password is not specified\.\n       You must specify POSTGRES_PASSWORD to a non-empty value for the\n/);
    const running = runImage('postgres:17', {}, [['POSTGRES_PASSWORD', 'secret']]);
    expect(typeof running === 'object' && running.exit).toBeUndefined();
    expect(typeof running === 'object' && running.out).toContain('2026-11-28 17:18:10.000 UTC [1] LOG:  database system is ready to accept connections\n');
    const my = runImage('mysql:8.4');
    expect(my).toMatchObject({ exit: 1 });
    expect(typeof my === 'object' && my.out).toContain('2026-11-28 17:18:10+00:00 [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n    You need to specify one of the following as an environment variable:\n    - MYSQL_ROOT_PASSWORD\n');
    expect(runImage('mysql:8.4', {}, [['MYSQL_ROOT_PASSWORD', 'secret']])).not.toHaveProperty('exit');
  });

  it('an entrypoint script execs the container\'s args; one it cannot find is its shell\'s error, exit 127', () => {
    expect(runImage('nginx:1.27', { args: ['echo', 'hi'] })).toEqual({ out: 'hi\n', exit: 0 });
    expect(runImage('nginx:1.27', { args: ['slep'] })).toEqual({ out: '/docker-entrypoint.sh: 47: exec: slep: not found\n', exit: 127 });
    expect(runImage('redis:7', { args: ['--port', '7000'] })).toMatchObject({ out: expect.stringContaining('* Running mode=standalone, port=7000.\n') });
    // No entrypoint: a command not on PATH cannot start at all.
    expect(runImage('busybox:1.36', { args: ['slep', '10'] })).toBe('failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "slep": executable file not found in $PATH: unknown');
    // busybox has no bash.
    expect(runImage('busybox', { command: ['bash'] })).toMatch(/exec: "bash": executable file not found in \$PATH/);
  });
});

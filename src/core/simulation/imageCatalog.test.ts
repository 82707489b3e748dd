import { describe, expect, it } from 'vitest';
import { imageFor, isUnknownImage } from './image';
import { unpublishedTag } from './imageCatalog';
import { parseImageReference } from './imageReference';

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
    expect(imageFor('curlimages/curl:8.11.1')).toMatchObject({ entrypoint: ['/entrypoint.sh'], cmd: ['curl'], user: 100 });
    expect(isUnknownImage(imageFor(`nginx@sha256:${'0'.repeat(64)}`))).toBe(false);
  });

  it('leaves other repositories unknown, and so unpublished tags of known ones', () => {
    expect(isUnknownImage(imageFor('envoyproxy/envoy:v1.31.0'))).toBe(true);
    expect(isUnknownImage(imageFor('nginx:1.999'))).toBe(true);
    expect(isUnknownImage(imageFor('localhost:5000/nginx'))).toBe(true);
  });

  it('knows the tags each repository publishes', () => {
    for (const tag of ['nginx', 'nginx:1.27', 'nginx:1.27.3', 'nginx:1.26-alpine', 'nginx:stable-alpine', 'nginx:alpine', 'busybox:1.36', 'busybox:1.36.1-musl', 'alpine:3.21', 'ubuntu:jammy', 'debian:12', 'redis:7.4-alpine', 'postgres:16', 'mysql:8.0.40', 'python:3.13', 'node:lts-alpine', 'registry.k8s.io/pause:3.10', 'curlimages/curl:8.11.1']) {
      expect(unpublished(tag), tag).toBe(false);
    }
    for (const tag of ['nginx:1.999', 'nginx:2', 'nginx:1.27.99', 'nginx:lates', 'busybox:nope', 'busybox:2.0', 'alpine:4', 'ubuntu:23.06', 'postgres:99', 'python:4', 'registry.k8s.io/pause:9']) {
      expect(unpublished(tag), tag).toBe(true);
    }
    expect(unpublished('example.com/team/app:whatever')).toBe(false);
  });
});

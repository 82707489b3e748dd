import { describe, expect, it } from 'vitest';
import { fullReference, invalidImageMessage, parseImageReference } from './imageReference';

const full = (image: string) => {
  const parsed = parseImageReference(image);
  return 'ref' in parsed ? fullReference(parsed.ref) : parsed.error;
};

describe('image references', () => {
  it('normalizes names as containerd does: docker.io, library/, latest', () => {
    expect(full('nginx')).toBe('docker.io/library/nginx:latest');
    expect(full('nginx:1.27')).toBe('docker.io/library/nginx:1.27');
    expect(full('library/nginx')).toBe('docker.io/library/nginx:latest');
    expect(full('docker.io/library/nginx:1.27')).toBe('docker.io/library/nginx:1.27');
    expect(full('docker.io/nginx')).toBe('docker.io/library/nginx:latest');
    expect(full('index.docker.io/library/nginx')).toBe('docker.io/library/nginx:latest');
    expect(full('curlimages/curl:8.11.1')).toBe('docker.io/curlimages/curl:8.11.1');
    expect(full('registry.k8s.io/pause:3.10')).toBe('registry.k8s.io/pause:3.10');
    expect(full('localhost/app')).toBe('localhost/app:latest');
    expect(full('localhost:5000/team/app:v2')).toBe('localhost:5000/team/app:v2');
    expect(full('my-registry.local:5000/app')).toBe('my-registry.local:5000/app:latest');
  });

  it('keeps a digest, with or without a tag', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageReference(`nginx@${digest}`)).toEqual({ ref: { domain: 'docker.io', path: 'library/nginx', digest } });
    expect(full(`nginx:1.27@${digest}`)).toBe(`docker.io/library/nginx:1.27@${digest}`);
    expect(full('nginx@sha256:abc')).toBe('invalid reference format');
  });

  it('rejects what ParseNormalizedNamed rejects, with its words', () => {
    expect(full('nginx:')).toBe('invalid reference format');
    expect(full('nginx::1')).toBe('invalid reference format');
    expect(full('-nginx')).toBe('invalid reference format');
    expect(full('ngin x')).toBe('invalid reference format');
    expect(full('')).toBe('invalid reference format');
    expect(full('Nginx')).toBe('invalid reference format: repository name (library/Nginx) must be lowercase');
    expect(full('docker.io/Team/App:v1')).toBe('invalid reference format: repository name (Team/App) must be lowercase');
    expect(full('a'.repeat(64).replace(/a/g, 'f'))).toBe(`invalid repository name (${'f'.repeat(64)}), cannot specify 64-byte hexadecimal strings`);
  });

  it('words the kubelet\'s InvalidImageName message', () => {
    expect(invalidImageMessage('nginx:1.27')).toBeUndefined();
    expect(invalidImageMessage('nginx:')).toBe('Failed to apply default image tag "nginx:": couldn\'t parse image name "nginx:": invalid reference format');
  });
});

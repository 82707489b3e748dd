/** describe's metadata lines: labels, annotations, the controller, RFC1123Z times. */
import { describe, expect, it } from 'vitest';
import { annotationLines, controlledBy, labelLines, rfc1123z } from './metadata';

describe('object metadata as kubectl describe prints it', () => {
  it('labels one `key=value` a line, sorted byte-wise; none is <none>', () => {
    expect(labelLines({ tier: 'web', app: 'shop', Z: '1' })).toEqual(['Z=1', 'app=shop', 'tier=web']);
    expect(labelLines(undefined)).toEqual(['<none>']);
  });

  it('annotations as `key: value`, last-applied-configuration left out, a long or multi-line value under its key', () => {
    expect(annotationLines({ 'kubectl.kubernetes.io/last-applied-configuration': '{"a":1}\n', 'kubesim.io/exit-code': '1' })).toEqual(['kubesim.io/exit-code: 1']);
    expect(annotationLines({ 'kubectl.kubernetes.io/last-applied-configuration': '{}' })).toEqual(['<none>']);
    expect(annotationLines({ note: 'one\ntwo\n' })).toEqual(['note:', '  one', '  two']);
    const long = 'x'.repeat(200);
    expect(annotationLines({ long })).toEqual(['long:', `  ${'x'.repeat(138)}...`]);
  });

  it('Controlled By is the owner reference marked controller', () => {
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'u0' },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f', uid: 'u1', controller: true },
    ];
    expect(controlledBy({ metadata: { name: 'p', ownerReferences } })).toBe('ReplicaSet/web-5d8f');
    expect(controlledBy({ metadata: { name: 'p', ownerReferences: ownerReferences.slice(0, 1) } })).toBe('');
  });

  it('times in Go\'s RFC1123Z, in the given zone; unset is Go\'s zero time', () => {
    expect(rfc1123z('2026-11-28T13:05:09Z', 0)).toBe('Sat, 28 Nov 2026 13:05:09 +0000');
    expect(rfc1123z('2026-11-28T23:05:09Z', 90)).toBe('Sun, 29 Nov 2026 00:35:09 +0130');
    expect(rfc1123z('2026-01-01T02:00:00Z', -300)).toBe('Wed, 31 Dec 2025 21:00:00 -0500');
    expect(rfc1123z(undefined, 0)).toBe('Mon, 01 Jan 0001 00:00:00 +0000');
  });
});

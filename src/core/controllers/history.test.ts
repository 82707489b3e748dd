/** ControllerRevision hashing and naming as pkg/controller/history computes them. */
import { describe, expect, it } from 'vitest';
import { controllerRevisionName, goJson, hashControllerRevision } from './history';

describe('ControllerRevision history', () => {
  // kubernetes/kubernetes pkg/controller/statefulset/testdata/compatibility_revision_1.33.0.json: a set "test" at
  // collisionCount 0 got the revision test-c77f6d978 for this data.
  const data = {
    spec: {
      template: {
        $patch: 'replace',
        metadata: { annotations: { test: 'value' }, creationTimestamp: null, labels: { app: 'foo' } },
        spec: {
          containers: [{ image: 'test', imagePullPolicy: 'Always', name: 'test', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
          dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30,
        },
      },
    },
  };

  it('hashes the data as json.Marshal writes it, then the collision count, with FNV-32 safely encoded', () => {
    expect(hashControllerRevision(data, 0)).toBe('c77f6d978');
    expect(controllerRevisionName('test', 'c77f6d978')).toBe('test-c77f6d978');
    // Key order does not matter; the collision count does.
    const reordered = { spec: { template: { spec: data.spec.template.spec, metadata: data.spec.template.metadata, $patch: 'replace' } } };
    expect(hashControllerRevision(reordered, 0)).toBe('c77f6d978');
    expect(hashControllerRevision(data, 1)).not.toBe('c77f6d978');
  });

  it('writes JSON as encoding/json does: sorted keys, HTML characters escaped', () => {
    expect(goJson({ b: 1, a: ['<x>', '&'] })).toBe('{"a":["\\u003cx\\u003e","\\u0026"],"b":1}');
    expect(controllerRevisionName('x'.repeat(230), 'h')).toBe(`${'x'.repeat(223)}-h`);
  });
});

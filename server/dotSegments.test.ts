import { describe, expect, it } from 'vitest';
import { dotSegment, rejectDotSegment } from './dotSegments';

describe('dot segments in the raw request target', () => {
  it('finds literal and percent-encoded dot segments in the path only', () => {
    expect(dotSegment('/api/v1/namespaces/default/configmaps/..')).toBe('..');
    expect(dotSegment('/api/v1/namespaces/%2e%2E/configmaps')).toBe('..');
    expect(dotSegment('/api/v1/namespaces/default/configmaps/.%2e?watch=1')).toBe('..');
    expect(dotSegment('/api/./v1')).toBe('.');
    expect(dotSegment('/api/v1/namespaces/default/configmaps/a..b')).toBeUndefined();
    expect(dotSegment('/api/v1/namespaces/default/configmaps?labelSelector=..')).toBeUndefined();
    expect(dotSegment('/api/v1/namespaces/%zz/configmaps')).toBeUndefined();
    expect(dotSegment('../api')).toBe('..');
    expect(dotSegment('/apis/apps.example.com/v1/namespaces/a.b/widgets/c.d')).toBeUndefined();
  });

  it('answers 400 BadRequest as the key function of kube-apiserver does', async () => {
    const res = rejectDotSegment('/api/v1/namespaces/default/configmaps/..')!;
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message: `Name parameter invalid: "..": may not be '..'` });
    expect(rejectDotSegment('/api/v1/namespaces/default/configmaps/x')).toBeUndefined();
  });
});

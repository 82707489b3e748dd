import { describe, expect, it } from 'vitest';
import { writeBytes } from './responseWriter';

describe('responseWriter headers', () => {
  it('[API-FV-005] an answer carries Content-Type, Cache-Control, its Content-Length and each warning, as a Headers would join them', async () => {
    const res = writeBytes(200, 'application/json', new TextEncoder().encode('{"kind":"Pod"}\n'), { warnings: ['first "quoted"', 'second'] });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('no-cache, private');
    expect(res.headers.get('content-length')).toBe(String(new TextEncoder().encode('{"kind":"Pod"}\n').byteLength));
    expect(res.headers.get('warning')).toBe('299 - "first \\"quoted\\"", 299 - "second"');
    expect(await res.text()).toBe('{"kind":"Pod"}\n');
  });

  it('caller headers keep their own Cache-Control and add to the rest', () => {
    const res = writeBytes(200, 'application/json', new Uint8Array(3), { headers: { 'Cache-Control': 'public', ETag: '"x"' } });
    expect(res.headers.get('cache-control')).toBe('public');
    expect(res.headers.get('etag')).toBe('"x"');
    expect(res.headers.get('content-length')).toBe('3');
    expect(res.headers.get('warning')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { LightResponse } from './lightResponse';
import { writeBytes, writeJsonText } from './responseWriter';

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

  it('a JSON text answer stays a string for in-process readers and has its UTF-8 Content-Length once headers are read', async () => {
    const text = '{"data":{"k":"é€😀"}}\n';
    const res = writeJsonText(201, 'application/json', text, { warnings: ['w'] });
    expect(LightResponse.lightParts(res)).toEqual({ status: 201, body: text, headers: { 'cache-control': 'no-cache, private', 'content-type': 'application/json', warning: '299 - "w"' } });
    expect(res.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength));
    expect(await res.json()).toEqual({ data: { k: 'é€😀' } });
    const withHeaders = writeJsonText(200, 'application/json', text, { headers: { ETag: '"1"' } });
    expect([withHeaders.headers.get('etag'), withHeaders.headers.get('content-length')]).toEqual(['"1"', String(new TextEncoder().encode(text).byteLength)]);
  });
});

import { describe, expect, it } from 'vitest';
import { gzipThresholdBytes, withCompression } from './compression';

/** A Response that counts reads of its body, as a host's lightweight Response builds its stream only then. */
function countingResponse(bytes: number): { response: Response; bodyReads: () => number } {
  const real = new Response(new Uint8Array(bytes), { headers: { 'content-length': String(bytes), 'content-type': 'application/json' } });
  let reads = 0;
  const response = new Proxy(real, {
    get(target, prop) {
      if (prop === 'body') reads++;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { response, bodyReads: () => reads };
}

const get = (headers: Record<string, string> = { 'accept-encoding': 'gzip' }) => new Request('http://127.0.0.1/api/v1/pods', { headers });

describe('withCompression', () => {
  it('leaves a response below the threshold, or unasked for gzip, alone without reading its body', async () => {
    for (const [size, request] of [[100, get()], [gzipThresholdBytes, get({})]] as const) {
      const { response, bodyReads } = countingResponse(size);
      const out = await withCompression(async () => response, true)(request);
      expect(out).toBe(response);
      expect(bodyReads()).toBe(0);
    }
  });

  it('gzips a GET response of at least the threshold when the client accepts gzip', async () => {
    const { response } = countingResponse(gzipThresholdBytes);
    const out = await withCompression(async () => response, true)(get());
    expect(out.headers.get('content-encoding')).toBe('gzip');
    expect(out.headers.get('content-length')).toBeNull();
    expect(out.headers.get('vary')).toBe('Accept-Encoding');
    const unzipped = await new Response(out.body!.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
    expect(unzipped.byteLength).toBe(gzipThresholdBytes);
  });
});

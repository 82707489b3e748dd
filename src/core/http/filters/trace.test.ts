import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../index';

describe('X-Kubesim-Trace', () => {
  it('returns the recorded decisions only to a request that asks', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(1) });
    await server.ready;
    const plain = await server.handle(new Request('http://x/api/v1/namespaces'));
    expect(plain.headers.get('X-Kubesim-Trace')).toBeNull();
    const traced = await server.handle(new Request('http://x/api/v1/namespaces', { headers: { 'X-Kubesim-Trace': '1' } }));
    expect(traced.status).toBe(200);
    const trace = JSON.parse(decodeURIComponent(traced.headers.get('X-Kubesim-Trace')!)) as { stage: string; message: string }[];
    expect(trace.map((t) => t.stage)).toEqual(expect.arrayContaining(['authentication', 'authorization']));
    expect(((await traced.json()) as { kind: string }).kind).toBe('NamespaceList');
    await server.close();
  });
});

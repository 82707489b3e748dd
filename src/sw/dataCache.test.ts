import { describe, expect, it } from 'vitest';
import { createDataFetcher, DATA_CACHE, type DataCacheStorage } from './dataCache';

const ORIGIN = 'http://127.0.0.1:5173';

function memoryCaches(): DataCacheStorage & { entries: Map<string, Response>; names: string[] } {
  const entries = new Map<string, Response>();
  const names: string[] = [];
  return {
    entries,
    names,
    async open(name) {
      names.push(name);
      return {
        match: async (request) => entries.get(request.url)?.clone(),
        put: async (request, response) => void entries.set(request.url, response),
        keys: async () => [...entries.keys()].map((url) => new Request(url)),
        delete: async (request) => entries.delete(request.url),
      };
    },
  };
}

describe('data cache', () => {
  it('fetches a data file on first use, then answers from Cache Storage without the network', async () => {
    const caches = memoryCaches();
    const requested: string[] = [];
    let online = true;
    const network = async (request: Request) => {
      if (!online) throw new TypeError('Failed to fetch');
      requested.push(request.url);
      return Response.json({ file: new URL(request.url).pathname });
    };
    const fetchData = createDataFetcher(caches, network);
    const url = `${ORIGIN}/assets/registry.definitions-0a1b2c3d4e.json`;
    expect(await fetchData(url)).toEqual({ file: '/assets/registry.definitions-0a1b2c3d4e.json' });
    expect(requested).toEqual([url]);
    expect(caches.names).toEqual([DATA_CACHE]);
    online = false;
    expect(await fetchData(url)).toEqual({ file: '/assets/registry.definitions-0a1b2c3d4e.json' });
    expect(requested).toEqual([url]);
  });

  it("drops an older build's copy of the same file and keeps the others", async () => {
    const caches = memoryCaches();
    const fetchData = createDataFetcher(caches, async (request) => Response.json(new URL(request.url).pathname));
    await fetchData(`${ORIGIN}/assets/registry.definitions-00000000aa.json`);
    await fetchData(`${ORIGIN}/assets/descriptor-00000000aa.json`);
    await fetchData(`${ORIGIN}/assets/registry.definitions-11111111bb.json`);
    expect([...caches.entries.keys()].sort()).toEqual([`${ORIGIN}/assets/descriptor-00000000aa.json`, `${ORIGIN}/assets/registry.definitions-11111111bb.json`]);
  });

  it('keeps nothing from a failed answer', async () => {
    const caches = memoryCaches();
    const fetchData = createDataFetcher(caches, async () => new Response('missing', { status: 404 }));
    await expect(fetchData(`${ORIGIN}/assets/descriptor-00000000aa.json`)).rejects.toThrow('HTTP 404');
    expect(caches.entries.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { APP_CACHE, createAppCacheListener, type AppCacheStorage } from './appCache';
import type { FetchEvent } from './types';

const ORIGIN = 'http://127.0.0.1:5173';

/** An in-memory Cache Storage keyed by URL. */
function memoryCaches(): AppCacheStorage & { names: string[]; entries: Map<string, Response> } {
  const entries = new Map<string, Response>();
  const names: string[] = [];
  return {
    names,
    entries,
    async open(name) {
      names.push(name);
      return {
        async match(request) {
          return entries.get(request.url)?.clone();
        },
        async put(request, response) {
          entries.set(request.url, response);
        },
      };
    },
  };
}

function dispatch(listener: (event: FetchEvent) => void, request: Request): Promise<Response> | undefined {
  let answer: Promise<Response> | undefined;
  listener({ request, clientId: 'page', respondWith: (r: Response | Promise<Response>) => (answer = Promise.resolve(r)), waitUntil() {} } as unknown as FetchEvent);
  return answer;
}

describe('app cache', () => {
  it('copies the workbench files as they load and answers from the copy when the network fails', async () => {
    const caches = memoryCaches();
    let online = true;
    const network = async (request: Request) => {
      if (!online) throw new TypeError('Failed to fetch');
      return new Response(`file ${new URL(request.url).pathname}`, { status: 200 });
    };
    const listener = createAppCacheListener(ORIGIN, caches, network);
    expect(await (await dispatch(listener, new Request(`${ORIGIN}/assets/main.js`))!).text()).toBe('file /assets/main.js');
    expect(caches.names).toEqual([APP_CACHE]);
    online = false;
    expect(await (await dispatch(listener, new Request(`${ORIGIN}/assets/main.js`))!).text()).toBe('file /assets/main.js');
    // A file never loaded online fails as the network did.
    await expect(dispatch(listener, new Request(`${ORIGIN}/assets/other.js`))!).rejects.toThrow('Failed to fetch');
  });

  it('leaves API paths, other origins and non-GET requests alone, and keeps no error answers', async () => {
    const caches = memoryCaches();
    const listener = createAppCacheListener(ORIGIN, caches, async () => new Response('missing', { status: 404 }));
    expect(dispatch(listener, new Request(`${ORIGIN}/api/v1/namespaces`))).toBeUndefined();
    expect(dispatch(listener, new Request(`${ORIGIN}/apis/apps/v1`))).toBeUndefined();
    expect(dispatch(listener, new Request('http://elsewhere.test/app.js'))).toBeUndefined();
    expect(dispatch(listener, new Request(`${ORIGIN}/x`, { method: 'POST', body: '{}' }))).toBeUndefined();
    expect((await dispatch(listener, new Request(`${ORIGIN}/missing.js`))!).status).toBe(404);
    expect(caches.entries.size).toBe(0);
  });
});

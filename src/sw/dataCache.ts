/**
 * Fetches the core's deferred data files (the kinds' schemas, the protobuf
 * descriptors: src/core/util/deferredData.ts) for the worker, cache first:
 * the first request that needs one fetches it and keeps it in Cache Storage,
 * so the workbench works offline from then on. The worker's own fetches
 * bypass its fetch listeners, hence this cache of its own. File names carry
 * their content's hash, so a cached copy is never stale; a new build's copy
 * replaces the older ones of the same file.
 */
import type { DataFetcher } from '../core/util/deferredData';

export const DATA_CACHE = 'kubesim-data';

/** The slice of Cache Storage this needs (the worker's global `caches`). */
export interface DataCacheStorage {
  open(name: string): Promise<{
    match(request: Request): Promise<Response | undefined>;
    put(request: Request, response: Response): Promise<void>;
    keys(): Promise<readonly Request[]>;
    delete(request: Request): Promise<boolean>;
  }>;
}

/** `assets/registry.definitions-0123456789.json` -> `assets/registry.definitions`. */
const stem = (url: string) => new URL(url).pathname.replace(/-[0-9a-f]+\.json$/, '');

export function createDataFetcher(caches: DataCacheStorage, fetchFn: (request: Request) => Promise<Response> = fetch): DataFetcher {
  return async (url) => {
    const request = new Request(url);
    const cache = await caches.open(DATA_CACHE);
    const cached = await cache.match(request);
    if (cached) return cached.json();
    const response = await fetchFn(request);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    await cache.put(request, response.clone());
    for (const old of await cache.keys()) if (old.url !== request.url && stem(old.url) === stem(request.url)) await cache.delete(old);
    return response.json();
  };
}

/**
 * Keeps the workbench usable offline after its first load: every same-origin
 * GET outside the API (the page, its scripts, styles and lazily loaded
 * chunks) goes to the network first, and a good answer is copied into Cache
 * Storage; when the network fails, the copy answers. Network first, so a
 * new build (or the dev server) is always what an online page gets.
 */
import { isApiPath } from './apiPaths';
import type { FetchEvent } from './types';

export const APP_CACHE = 'kubesim-app';

/** The slice of Cache Storage this needs (the worker's global `caches`). */
export interface AppCacheStorage {
  open(name: string): Promise<{
    match(request: Request): Promise<Response | undefined>;
    put(request: Request, response: Response): Promise<void>;
  }>;
}

export function createAppCacheListener(origin: string, caches: AppCacheStorage, fetchFn: (request: Request) => Promise<Response> = fetch): (event: FetchEvent) => void {
  return (event) => {
    const request = event.request;
    if (request.method !== 'GET') return;
    const url = new URL(request.url);
    if (url.origin !== origin || isApiPath(url.pathname)) return;
    event.respondWith(networkFirst(request, caches, fetchFn));
  };
}

async function networkFirst(request: Request, caches: AppCacheStorage, fetchFn: (request: Request) => Promise<Response>): Promise<Response> {
  const cache = await caches.open(APP_CACHE);
  try {
    const response = await fetchFn(request);
    // Only complete, successful answers are kept (not 206 ranges, errors or opaque responses).
    if (response.status === 200 && response.type !== 'opaque') await cache.put(request, response.clone());
    return response;
  } catch (error) {
    // Navigations fall back to the cached page whatever the URL's query or fragment.
    const cached = (await cache.match(request)) ?? (request.mode === 'navigate' ? await cache.match(new Request(new URL('/', request.url))) : undefined);
    if (cached) return cached;
    throw error;
  }
}

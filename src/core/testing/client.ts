/** A tiny in-process client for tests: requests go through handle(), exactly as a host sends them. */
import { createApiServer, type ApiServer, type ApiServerOptions } from '../apiserver';
import type { WatchCacheStorage } from '../storage/cacher';
import { createMemoryStorage } from '../storage/memory';
import { FakeClock, seededRandom } from '../util/clock';
import { WatchStream } from './watch';

export { WatchStream, type WatchEvent } from './watch';

export interface TestServer {
  server: ApiServer;
  clock: FakeClock;
  /** The server's watch cache, for its stats (window start, watcher count). */
  storage: WatchCacheStorage;
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  json<T = any>(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
  /** Starts a watch request; `close()` on the stream is the client going away. */
  watch(path: string, headers?: Record<string, string>): Promise<WatchStream>;
}

/**
 * The controllers a test server leaves off unless the test names them: they
 * write objects of their own (ReplicaSets and Pods, a ConfigMap in every
 * namespace), which tests of the raw API would see.
 */
export const rawApiControllers = ['*', '-deployment-controller', '-replicaset-controller', '-statefulset-controller', '-daemonset-controller', '-replicationcontroller-controller', '-disruption-controller', '-job-controller', '-cronjob-controller', '-endpoints-controller', '-endpointslice-controller', '-endpointslice-mirroring-controller', '-root-ca-certificate-publisher-controller', '-persistentvolume-binder-controller', '-ephemeral-volume-controller'];

/**
 * A server on the memory backend, a FakeClock and seeded randomness. Options
 * override any of those, or set e.g. `watchHistoryWindowMs`; `controllers: ['*']`
 * runs every default controller, as a cluster does.
 */
export async function newTestServer(options: Partial<ApiServerOptions> = {}): Promise<TestServer> {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const server = createApiServer({ storage: createMemoryStorage(), clock, random: seededRandom(42), controllers: rawApiControllers, ...options });
  await server.ready;
  const request = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}) => {
    const headers = new Headers(init.headers);
    let body: BodyInit | undefined;
    if (init.body !== undefined) {
      if (typeof init.body === 'string' || init.body instanceof Uint8Array) body = init.body as BodyInit;
      else {
        body = JSON.stringify(init.body);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
    }
    return server.handle(new Request(`http://127.0.0.1:8080${path}`, { method, headers, body, signal: init.signal }));
  };
  return {
    server,
    clock,
    storage: server.storage,
    request,
    async json(method, path, init) {
      const res = await request(method, path, init);
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: res.status, body, headers: res.headers };
    },
    async watch(path, headers) {
      const abort = new AbortController();
      const res = await request('GET', path, { headers, signal: abort.signal });
      return new WatchStream(res, abort);
    },
  };
}

import type { Storage } from './storage/interface';
import type { Clock, RandomSource } from './util/clock';

export interface ApiServerOptions {
  storage: Storage;
  clock?: Clock;
  random?: RandomSource;
}

export interface ApiServer {
  /** Answers one HTTP request. Streaming responses (watch) end when request.signal aborts. */
  handle(request: Request): Promise<Response>;
  /** Resolves once bootstrap objects (default namespaces) exist. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export function createApiServer(_options: ApiServerOptions): ApiServer {
  throw new Error('not yet implemented');
}

/**
 * The module loader of the production service worker, a classic worker
 * (scripts/vite/serviceWorkerBuild.ts builds it). A module service worker can
 * never load code after its first evaluation; a classic one can call
 * `importScripts()` at any time for a script it imported while it was
 * installing: the browser then answers from the worker's installed script
 * map, with no network. So the build emits CommonJS chunks, each wrapped in
 * `define(path, factory)`, and this loader:
 *
 *  - evaluates the core chunks at every start of the worker (top level);
 *  - imports every part while the worker installs, so all are in the
 *    installed map, and an install that cannot fetch one fails (the old
 *    worker stays);
 *  - hands a chunk that `require`s a part a stand-in whose first property
 *    read imports and runs the part, synchronously (importScripts is sync).
 *    The core reads a part's exports only when a request calls into it, so a
 *    worker that answers a ConfigMap list evaluates the core chunks alone.
 *
 * `createChunkLoader` is serialized into sw.js with Function#toString, so it
 * must not refer to anything outside its own body.
 */

/** Which chunks the build emitted, as paths relative to the worker script. */
export interface ChunkManifest {
  /** Evaluated at every start of the worker. */
  core: readonly string[];
  /** Imported at install, run on first use. */
  parts: readonly string[];
}

/** A chunk's body: CommonJS, as the bundler renders it. */
export type ChunkFactory = (require: (specifier: string) => unknown, module: { exports: object }, exports: object) => void;

/** The slice of the worker's global scope the loader uses. */
export interface ChunkLoaderScope {
  readonly location: { readonly href: string };
  importScripts(...urls: string[]): void;
  addEventListener(type: 'install', listener: (event: { waitUntil(promise: Promise<unknown>): void }) => void): void;
  /** Where each chunk's run is marked (`kubesim:chunk <path>`), on the worker's timeline with its other marks. */
  readonly performance?: { mark(name: string): unknown };
}

export interface ChunkLoader {
  /** Called by each chunk's script: records its factory (runs nothing). */
  define(path: string, factory: ChunkFactory): void;
  /** Runs the entry (sw.js) and returns its exports; reading a part while it runs throws. */
  require(path: string): unknown;
  /** Paths of the chunks that have run in this start of the worker, in order (each also a performance mark). */
  loaded(): string[];
}

export function createChunkLoader(scope: ChunkLoaderScope, manifest: ChunkManifest): ChunkLoader {
  const base = new URL('./', scope.location.href).href;
  const relative = (url: string) => (url.startsWith(base) ? url.slice(base.length) : url);
  const parts = new Set(manifest.parts.map((path) => new URL(path, base).href));
  const factories = new Map<string, ChunkFactory>();
  const modules = new Map<string, { exports: object }>();
  const order: string[] = [];

  const run = (url: string): object => {
    const done = modules.get(url);
    if (done) return done.exports;
    if (!factories.has(url)) scope.importScripts(url);
    const factory = factories.get(url);
    if (!factory) throw new Error(`kubesim: ${url} did not define a chunk`);
    const module = { exports: {} };
    modules.set(url, module);
    order.push(relative(url));
    scope.performance?.mark(`kubesim:chunk ${relative(url)}`);
    factory(requireFrom(url), module, module.exports);
    return module.exports;
  };

  /** True while the entry runs: a part read then would see the core half-evaluated (the part requires it back). */
  let starting = false;
  const runPart = (url: string): object => {
    if (starting) throw new Error(`kubesim: ${relative(url)} is read while the worker starts; read a part's exports inside the functions that use them`);
    return run(url);
  };

  /** Stands in for a part's exports until one is read; the bundler reads them at call time (`part.fn(...)`). */
  const deferred = (url: string): object =>
    new Proxy(
      {},
      {
        get: (_, key) => Reflect.get(runPart(url), key),
        has: (_, key) => Reflect.has(runPart(url), key),
        ownKeys: () => Reflect.ownKeys(runPart(url)),
        getOwnPropertyDescriptor: (_, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(runPart(url), key);
          return descriptor && { ...descriptor, configurable: true };
        },
      },
    );

  const requireFrom =
    (from: string) =>
    (specifier: string): unknown => {
      const url = new URL(specifier, from).href;
      return parts.has(url) && !modules.has(url) ? deferred(url) : run(url);
    };

  scope.addEventListener('install', (event) => {
    // Into the installed script map: later starts import them from there, online or not.
    const missing = [...manifest.core, ...manifest.parts].map((path) => new URL(path, base).href).filter((url) => !factories.has(url));
    try {
      if (missing.length > 0) scope.importScripts(...missing);
    } catch (error) {
      event.waitUntil(Promise.reject(error));
    }
  });

  return {
    define: (path, factory) => void factories.set(new URL(path, base).href, factory),
    require: (path) => {
      starting = true;
      try {
        return run(new URL(path, base).href);
      } finally {
        starting = false;
      }
    },
    loaded: () => [...order],
  };
}

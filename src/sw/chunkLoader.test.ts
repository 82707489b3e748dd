import { describe, expect, it } from 'vitest';
import { createChunkLoader, type ChunkFactory, type ChunkLoader } from './chunkLoader';

/** A worker scope whose importScripts runs the chunk scripts below, as the installed script map would serve them. */
function worker(scripts: Record<string, (loader: ChunkLoader) => void>, manifest = { core: ['assets/core.js'], parts: ['assets/cel.js', 'assets/re2.js'] }) {
  const imported: string[] = [];
  const urls: string[] = [];
  let install: ((event: { waitUntil(p: Promise<unknown>): void }) => void) | undefined;
  let offline = false;
  const marks: string[] = [];
  const scope = {
    performance: { mark: (name: string) => marks.push(name) },
    location: { href: 'https://kubesim.test/sw.js?watchHistoryWindow=5m' },
    importScripts(...requested: string[]) {
      for (const url of requested) {
        urls.push(url);
        const path = new URL(url).pathname.slice(1);
        if (offline || !scripts[path]) throw new Error(`NetworkError: ${url}`);
        imported.push(path);
        scripts[path]!(loader);
      }
    },
    addEventListener(_type: 'install', listener: typeof install) {
      install = listener;
    },
  };
  const loader = createChunkLoader(scope, manifest);
  return {
    loader,
    imported,
    urls,
    marks,
    goOffline: () => (offline = true),
    install() {
      const waited: Promise<unknown>[] = [];
      install!({ waitUntil: (p) => waited.push(p) });
      return Promise.all(waited);
    },
  };
}

const define = (path: string, factory: ChunkFactory) => (loader: ChunkLoader) => loader.define(path, factory);

// As the bundler renders CommonJS chunks: a chunk reads another's exports at call time (`require_x.fn()`).
const scripts = {
  'assets/core.js': define('assets/core.js', (require, _module, exports) => {
    const cel = require('./cel.js') as { compile(e: string): string };
    Object.assign(exports, { answer: () => 'list', validate: (e: string) => cel.compile(e) });
  }),
  'assets/cel.js': define('assets/cel.js', (require, _module, exports) => {
    const core = require('./core.js') as { answer(): string };
    const re2 = require('./re2.js') as { matches(s: string): boolean };
    Object.defineProperty(exports, 'compile', { enumerable: true, get: () => (e: string) => `compiled ${e} after ${core.answer()}${re2 ? '' : '!'}` });
  }),
  'assets/re2.js': define('assets/re2.js', (_require, _module, exports) => {
    Object.assign(exports, { matches: () => true });
  }),
};

function entry(loader: ChunkLoader): { answer(): string; validate(e: string): string } {
  loader.define('sw.js', (require, module) => {
    module.exports = require('./assets/core.js') as object;
  });
  return loader.require('sw.js') as { answer(): string; validate(e: string): string };
}

describe('createChunkLoader', () => {
  it('runs the entry and the core chunks at start, and a part only when its exports are first read', () => {
    const w = worker(scripts);
    const api = entry(w.loader);
    expect(w.loader.loaded()).toEqual(['sw.js', 'assets/core.js']);
    expect(api.answer()).toBe('list');
    expect(w.loader.loaded()).toEqual(['sw.js', 'assets/core.js']);
    expect(api.validate('self.x > 0')).toBe('compiled self.x > 0 after list');
    // cel.js required re2.js without reading it: re2.js has not run.
    expect(w.loader.loaded()).toEqual(['sw.js', 'assets/core.js', 'assets/cel.js']);
    expect(w.imported).toEqual(['assets/core.js', 'assets/cel.js']);
    // Each run is marked on the worker's timeline, where the first answer is marked too (afterFirstAnswer.ts).
    expect(w.marks).toEqual(['kubesim:chunk sw.js', 'kubesim:chunk assets/core.js', 'kubesim:chunk assets/cel.js']);
  });

  it('imports every part at install (run later, from the installed scripts) and fails the install when one cannot be fetched', async () => {
    const w = worker(scripts);
    entry(w.loader);
    await w.install();
    expect(w.imported).toEqual(['assets/core.js', 'assets/cel.js', 'assets/re2.js']);
    expect(w.loader.loaded()).toEqual(['sw.js', 'assets/core.js']);

    const broken = worker({ ...scripts, 'assets/re2.js': undefined! });
    entry(broken.loader);
    await expect(broken.install()).rejects.toThrow(/NetworkError: .*re2\.js/);
  });

  it('resolves chunk paths against the worker script, whatever its query', () => {
    const w = worker(scripts);
    entry(w.loader);
    expect(w.urls).toEqual(['https://kubesim.test/assets/core.js']);
  });

  it('refuses a part read while the entry runs, naming it: the part would see the core half-evaluated', () => {
    const w = worker(scripts);
    w.loader.define('sw.js', (require) => {
      (require('./assets/cel.js') as { compile(e: string): string }).compile('x');
    });
    expect(() => w.loader.require('sw.js')).toThrow("kubesim: assets/cel.js is read while the worker starts; read a part's exports inside the functions that use them");
    expect(w.imported).toEqual([]);
  });

  it('a part that fails to load fails the call that needed it, and the next call tries again', () => {
    let attempts = 0;
    const w = worker({
      ...scripts,
      'assets/cel.js': (loader) => {
        if (++attempts === 1) throw new Error('NetworkError: assets/cel.js');
        scripts['assets/cel.js'](loader);
      },
    });
    const api = entry(w.loader);
    expect(() => api.validate('a')).toThrow(/NetworkError/);
    expect(api.validate('a')).toBe('compiled a after list');
  });
});

/**
 * Builds the workbench (index.html -> src/ui/main.tsx) and, as a second entry,
 * the service worker (src/sw/worker.ts -> /sw.js at the origin root, so its
 * scope can be '/'). Under the dev server the worker is served from source as
 * a module worker; `Service-Worker-Allowed: /` lets it take the root scope.
 */
import react from '@vitejs/plugin-react';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Page and worker compare this in their handshake to detect a stale worker. */
const buildId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

interface DeferredJson {
  /** Absolute path of the JSON module. */
  file: string;
  /** Defer only these top-level fields, each as a file of its own; the rest stays in the script. */
  fields?: string[];
}

const PREFIX = '\0kubesim-deferred:';

/**
 * Build only: ships large JSON tables of the core as files of their own
 * instead of inside the service worker's script. Each listed JSON module
 * (or each listed field of it) is replaced by `{ deferredUrl }`, the URL of a
 * content-hashed copy emitted under assets/; the core's DeferredData fetches
 * it when a request first needs it (src/core/util/deferredData.ts), and the
 * worker keeps it in Cache Storage (src/sw/dataCache.ts). Under the dev
 * server and in Node the JSON is imported as it is.
 */
function deferredDataPlugin(entries: DeferredJson[]): Plugin {
  const byFile = new Map(entries.map((e) => [e.file, e]));
  let base = '/';
  return {
    name: 'kubesim:deferred-data',
    apply: 'build',
    enforce: 'pre',
    configResolved(config) {
      base = config.base;
    },
    async resolveId(source, importer, options) {
      if (!source.endsWith('.json') || !importer) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      // A virtual id that does not end in .json, so Vite's JSON plugin leaves the module below alone.
      return resolved && byFile.has(resolved.id) ? `${PREFIX}${resolved.id}.js` : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const file = id.slice(PREFIX.length, -'.js'.length);
      const entry = byFile.get(file)!;
      const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const emit = (value: unknown, suffix: string) => {
        const text = JSON.stringify(value);
        const hash = createHash('sha256').update(text).digest('hex').slice(0, 10);
        const fileName = `assets/${basename(file, '.json')}${suffix}-${hash}.json`;
        this.emitFile({ type: 'asset', fileName, source: text });
        return { deferredUrl: `${base}${fileName}` };
      };
      const value = entry.fields ? { ...json, ...Object.fromEntries(entry.fields.map((f) => [f, emit(json[f], `.${f}`)])) } : emit(json, '');
      return `export default ${JSON.stringify(value)};`;
    },
  };
}

export default defineConfig({
  root,
  plugins: [
    // Fast Refresh only for the workbench: the worker and the core are not React and must not load the refresh runtime.
    react({ exclude: [/\/node_modules\//, /\/src\/sw\//, /\/src\/core\//] }),
    // The worker's first answer needs none of these tables: they are fetched when a request first reads them.
    deferredDataPlugin([
      { file: fileURLToPath(new URL('src/core/registry/generated/registry.json', import.meta.url)), fields: ['definitions', 'operationParameters'] },
      { file: fileURLToPath(new URL('src/core/http/serializers/protobuf/generated/descriptor.json', import.meta.url)) },
      { file: fileURLToPath(new URL('src/core/printers/descriptions.json', import.meta.url)) },
      { file: fileURLToPath(new URL('src/core/auth/rbac/generated/bootstrapPolicy.json', import.meta.url)) },
    ]),
  ],
  resolve: {
    // monaco-yaml's worker (through monaco-worker-manager) imports monaco-editor/esm/vs/...,
    // a path monaco-editor's exports map no longer lists; point it at the files.
    alias: [{ find: /^monaco-editor\/esm\/vs\/(.*)$/, replacement: fileURLToPath(new URL('node_modules/monaco-editor/esm/vs/$1', import.meta.url)) }],
  },
  worker: {
    // Monaco's workers are ES modules (created with type: 'module').
    format: 'es',
  },
  define: {
    'import.meta.env.KUBESIM_BUILD_ID': JSON.stringify(buildId),
  },
  server: {
    headers: { 'Service-Worker-Allowed': '/' },
  },
  preview: {
    headers: { 'Service-Worker-Allowed': '/' },
  },
  optimizeDeps: {
    // Crawl the worker too, so its dependencies are pre-bundled up front instead of triggering a reload mid-session.
    entries: ['index.html', 'src/sw/worker.ts'],
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    // sw.js carries the whole API server's code (its schemas, protobuf descriptors and column descriptions are files of their own).
    // The lazily loaded Monaco chunk (~2.7 MB) is the largest, fetched only when an editor opens.
    chunkSizeWarningLimit: 3072,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        sw: fileURLToPath(new URL('src/sw/worker.ts', import.meta.url)),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});

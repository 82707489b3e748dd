/**
 * Builds the workbench (index.html -> src/ui/main.tsx) and then, as a build of
 * its own, the service worker (src/sw/worker.ts -> /sw.js at the origin root,
 * so its scope can be '/'; scripts/vite/serviceWorkerBuild.ts). Under the dev
 * server the worker is served from source as a module worker;
 * `Service-Worker-Allowed: /` lets it take the root scope.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { DEFERRED_CORE_DATA, deferredDataPlugin } from './scripts/vite/deferredData.js';
import { serviceWorkerBuildPlugin } from './scripts/vite/serviceWorkerBuild.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Page and worker compare this in their handshake to detect a stale worker. */
const buildId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const define = { 'import.meta.env.KUBESIM_BUILD_ID': JSON.stringify(buildId) };

export default defineConfig({
  root,
  plugins: [
    // Fast Refresh only for the workbench: the worker and the core are not React and must not load the refresh runtime.
    react({ exclude: [/\/node_modules\//, /\/src\/sw\//, /\/src\/core\//] }),
    // What the page imports of the core reads the same tables on first use.
    deferredDataPlugin(DEFERRED_CORE_DATA),
    // The service worker is a build of its own (a classic worker of code-split chunks), into the same directory.
    serviceWorkerBuildPlugin(define),
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
  define,
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
    // The lazily loaded Monaco chunk (~2.7 MB) is the largest, fetched only when an editor opens.
    chunkSizeWarningLimit: 3072,
    rolldownOptions: {
      input: { main: fileURLToPath(new URL('index.html', import.meta.url)) },
    },
  },
});

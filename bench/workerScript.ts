/**
 * The script a browser evaluates for the service worker, from the build's
 * chunk manifest (sw.js is a classic worker that loads CommonJS chunks with
 * importScripts, src/sw/chunkLoader.ts):
 *
 *  - start: what every start of the worker evaluates before its first API
 *    answer, sw.js and the core chunks;
 *  - install: everything the browser fetches while the worker installs, the
 *    parts too (each runs the first time a request calls into it).
 *
 * Deferred data files (fetched on first use) are in neither.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** What the build writes into sw.js: `createChunkLoader(self, {"core":[...],"parts":[...]})`. */
const MANIFEST = /createChunkLoader\(self, (\{[^\n]*\})\);/;

export interface ScriptFile {
  /** Path relative to the build directory. */
  path: string;
  bytes: number;
  gzipBytes: number;
}

async function scriptFile(outDir: string, path: string): Promise<ScriptFile> {
  const code = await readFile(join(outDir, path));
  return { path, bytes: code.byteLength, gzipBytes: gzipSync(code).byteLength };
}

export async function workerScriptFiles(outDir: string, moment: 'start' | 'install' = 'start'): Promise<ScriptFile[]> {
  const entry = await readFile(join(outDir, 'sw.js'), 'utf8');
  const match = MANIFEST.exec(entry);
  if (!match) throw new Error(`${join(outDir, 'sw.js')} has no chunk manifest`);
  const manifest = JSON.parse(match[1]!) as { core: string[]; parts: string[] };
  const paths = ['sw.js', ...manifest.core, ...(moment === 'install' ? manifest.parts : [])];
  return Promise.all(paths.map((path) => scriptFile(outDir, path)));
}

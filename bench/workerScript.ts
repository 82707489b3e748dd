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
import { pathToFileURL } from 'node:url';
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

/** Run: npx tsx bench/workerScript.ts <build dir>: the start figure, then each part's, gzip as served. */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: npx tsx bench/workerScript.ts <build dir> (npx vite build --outDir <build dir>)');
  const start = await workerScriptFiles(outDir);
  const install = await workerScriptFiles(outDir, 'install');
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const sum = (files: ScriptFile[], key: 'bytes' | 'gzipBytes') => files.reduce((n, f) => n + f[key], 0);
  console.log(`start (sw.js and ${start.length - 1} core chunks): ${kib(sum(start, 'gzipBytes'))} gzip, ${kib(sum(start, 'bytes'))} uncompressed`);
  for (const part of install.slice(start.length).sort((a, b) => b.gzipBytes - a.gzipBytes)) console.log(`  part ${part.path}: ${kib(part.gzipBytes)} gzip`);
  console.log(`install (core and ${install.length - start.length} parts): ${kib(sum(install, 'gzipBytes'))} gzip`);
}

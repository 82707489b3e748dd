/**
 * The script a browser evaluates before the service worker's first answer:
 * sw.js and, since it is a module worker, every chunk it imports statically
 * (shared with the page: the YAML library, the worker protocol), transitively.
 * Deferred data files (fetched on first use) are not part of it.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The leading static imports of an ES module, as bundlers emit them (`import{a as b}from"./x.js";`, `import"./y.js";`). */
const STATIC_IMPORT = /^\s*import\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"']+)["']\s*;?/;

export interface ScriptFile {
  /** Path relative to the build directory. */
  path: string;
  bytes: number;
  gzipBytes: number;
}

export async function workerScriptFiles(outDir: string, entry = 'sw.js'): Promise<ScriptFile[]> {
  const files: ScriptFile[] = [];
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = await readFile(file);
    files.push({ path: relative(outDir, file), bytes: code.byteLength, gzipBytes: gzipSync(code).byteLength });
    let text = code.toString('utf8');
    for (let m = STATIC_IMPORT.exec(text); m; m = STATIC_IMPORT.exec(text)) {
      if (m[1]!.startsWith('.')) await visit(join(dirname(file), m[1]!));
      text = text.slice(m[0].length);
    }
  };
  await visit(join(outDir, entry));
  return files;
}

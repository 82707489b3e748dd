/**
 * Summarises a `.cpuprofile` (from `node --cpu-prof`): the functions with the
 * most self time and the most inclusive time, each with its share of the
 * samples. tsx runs TypeScript compiled onto one line, so profile frames say
 * line 1; their columns are mapped back to source lines through the source
 * maps tsx keeps in its cache (`$TMPDIR/tsx-<uid>/`, one JSON file per
 * compiled module), the newest map per source file winning.
 *
 * Run: npx tsx bench/cpuprofile.ts <file.cpuprofile> [top=30] [filter]
 *   filter: only frames whose location contains it in the inclusive table.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Source file -> its newest source map in tsx's cache. */
function tsxSourceMaps(): Map<string, SourceMapConsumer> {
  const byFile = new Map<string, { mtime: number; map: RawSourceMap }>();
  const uid = process.getuid?.() ?? 0;
  for (const dir of new Set([join(tmpdir(), `tsx-${uid}`), `/tmp/tsx-${uid}`])) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const { map } = JSON.parse(readFileSync(path, 'utf8')) as { map?: RawSourceMap };
        const source = map?.sources?.[0];
        if (!map || !source) continue;
        const mtime = statSync(path).mtimeMs;
        const known = byFile.get(source);
        if (!known || known.mtime < mtime) byFile.set(source, { mtime, map });
      } catch {
        // not a cache entry
      }
    }
  }
  return new Map([...byFile].map(([file, { map }]) => [file, new SourceMapConsumer(map)]));
}

const [file, topArg, filter] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/cpuprofile.ts <file.cpuprofile> [top=30] [filter]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const maps = tsxSourceMaps();

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (f: CallFrame): string => {
  if (!f.url) return f.functionName || '(native)';
  const path = f.url.startsWith('file://') ? fileURLToPath(f.url) : f.url;
  const short = path.replace(/^.*\/node_modules\//, '~/').replace(/^.*?\/(src|bench|server|e2e)\//, '$1/');
  const map = maps.get(path);
  const line = map && f.lineNumber >= 0 ? map.originalPositionFor({ line: f.lineNumber + 1, column: f.columnNumber }).line : null;
  return `${f.functionName || '(anonymous)'} ${short}:${line ?? f.lineNumber + 1}`;
};
const label = new Map<number, string>();
const labelOf = (id: number) => {
  let l = label.get(id);
  if (l === undefined) label.set(id, (l = where(nodes.get(id)!.callFrame)));
  return l;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const id of profile.samples) {
  self.set(labelOf(id), (self.get(labelOf(id)) ?? 0) + 1);
  // Each frame counts once per sample, however often it recurs on the stack.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(labelOf(at));
  for (const l of seen) inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
}

const total = profile.samples.length;
const print = (title: string, counts: Map<string, number>, only?: string) => {
  console.log(`\n${title} (${total} samples)`);
  const rows = [...counts].filter(([l]) => !only || l.includes(only)).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [l, n] of rows) console.log(`${((n / total) * 100).toFixed(1).padStart(6)}%  ${l}`);
};
print('self time', self);
print('inclusive time', inclusive, filter);

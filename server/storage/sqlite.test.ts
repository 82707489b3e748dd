import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorageError, type Storage } from '../../src/core/storage/interface';
import { runStorageConformance } from '../../src/core/storage/testing/conformance';
import { createSqliteStorage, prefixEnd } from './sqlite';
import { crashWriterValue } from './testdata/crashValue';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
const freshPath = () => join(dir, `store-${++seq}.db`);
const paths = new WeakMap<Storage, string>();

function open(path: string): Storage {
  const s = createSqliteStorage(path);
  paths.set(s, path);
  return s;
}

runStorageConformance('sqlite', async () => open(freshPath()), {
  reopen: async (s) => {
    const path = paths.get(s)!;
    await s.close();
    return open(path);
  },
});

describe('sqlite storage quirks', () => {
  it('lets only one owner open the file at a time', async () => {
    const path = freshPath();
    const owner = open(path);
    await owner.create('/r/a', '1');
    let caught: unknown;
    try {
      createSqliteStorage(path);
    } catch (e) {
      caught = e;
    }
    expect(isStorageError(caught, 'Internal')).toBe(true);
    expect((caught as Error).message).toContain('owned by another process');
    await owner.close();
    const next = open(path);
    expect(await next.get('/r/a')).toEqual({ key: '/r/a', value: '1', createRevision: 1, modRevision: 1 });
    await next.close();
  });

  it('computes the end of a prefix range by code point', () => {
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('/registry/pods/')).toBe('/registry/pods0');
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('a\uD7FF')).toBe('a\uE000');
  });

  it('keeps every acknowledged write after kill -9 mid-stream, and the file stays sound', async () => {
    const path = freshPath();
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const writer = join(import.meta.dirname, 'testdata', 'crashWriter.ts');
    const child = spawn(process.execPath, ['--import', tsx, writer, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));

    // Collect acknowledged writes; kill -9 once enough have come through.
    const acked: Array<{ revision: number; key: string }> = [];
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [revision, key] = line.split(' ');
        acked.push({ revision: Number(revision), key: key! });
      }
      if (acked.length >= 300 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal, `writer ended on its own: ${stderr}`).toBe('SIGKILL');
    expect(acked.length).toBeGreaterThanOrEqual(300);

    const s = open(path);
    const current = await s.currentRevision();
    expect(current).toBeGreaterThanOrEqual(acked[acked.length - 1]!.revision);
    for (const [i, { revision, key }] of acked.entries()) {
      expect(revision).toBe(i + 1);
      expect(await s.get(key)).toEqual({ key, value: crashWriterValue(i), createRevision: revision, modRevision: revision });
    }
    // Every revision up to current is there: no torn or missing writes.
    const all = await s.range('/registry/configmaps/default/');
    expect(all.count).toBe(current);
    expect(all.kvs.map((kv) => kv.modRevision).sort((a, b) => a - b)).toEqual(Array.from({ length: current }, (_, i) => i + 1));
    expect((await s.create('/registry/after', 'x')).modRevision).toBe(current + 1);
    await s.close();

    const raw = new Database(path);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();
  });
});

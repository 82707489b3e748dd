import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFigures, renderMarkdown, summaryRows } from './reliability-report';

const date = '2026-11-27T06:00:00.000Z';

describe('reliability report', () => {
  it('reads the suites\' figures and renders each with its date and command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-rel-'));
    writeFileSync(join(dir, 'fuzz.json'), JSON.stringify({ name: 'fuzz', date, command: 'KUBESIM_FUZZ_RUNS=10 npx vitest', requests: 12345, writesRejected: 7000, byStatus: { '400': 10000, '422': 2345 }, seed: 1, storeKeys: 150 }));
    writeFileSync(join(dir, 'concurrency.json'), JSON.stringify({ name: 'concurrency', date, command: 'c', update: { clients: 8, increments: 320, final: 320, lost: 0, conflictsRetried: 900 }, apply: { clients: 8, increments: 320, final: 320, lost: 0, conflictsRetried: 800 } }));
    const figures = readFigures(dir);
    expect(Object.keys(figures).sort()).toEqual(['concurrency', 'fuzz']);
    const rows = summaryRows(figures);
    expect(rows).toContainEqual(['Bad requests tried (errors all 4xx Status, store unchanged)', '12,345', 'fuzz']);
    expect(rows).toContainEqual(['Updates lost (8 clients, read-modify-write)', '0 of 640', 'concurrency']);
    expect(rows).toContainEqual(['Crashes survived (kill -9, SQLite store)', '(not run)', '']);
    const md = renderMarkdown(figures);
    expect(md).toContain('Run 2026-11-27 06:00 UTC: `KUBESIM_FUZZ_RUNS=10 npx vitest`');
    expect(md).toContain('| 422 | 2,345 |');
    expect(md).not.toContain('## Crashes');
  });
});

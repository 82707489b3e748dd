import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFigures, renderMarkdown, summaryRows } from './reliability-report';

const date = '2026-11-27T06:00:00.000Z';

describe('reliability report', () => {
  it('reads the suites\' figures and renders each with its date and command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-rel-'));
    writeFileSync(join(dir, 'fuzz.json'), JSON.stringify({ name: 'fuzz', date, command: 'KUBESIM_FUZZ_RUNS=10 npx vitest', requests: 12345, writesRejected: 7000, byStatus: { '400': 10000, '422': 2344, '500': 1 }, serverErrors: [{ request: 'pod with a 2 MiB environment variable (POST /api/v1/namespaces/fuzz/pods, 2097300 bytes)', status: 500, message: 'etcdserver: request is too large', allowedBecause: 'kube passes etcd\'s error on' }], seed: 1, storeKeys: 150 }));
    writeFileSync(join(dir, 'concurrency.json'), JSON.stringify({ name: 'concurrency', date, command: 'c', update: { clients: 8, increments: 320, final: 320, lost: 0, conflictsRetried: 900 }, apply: { clients: 8, increments: 320, final: 320, lost: 0, conflictsRetried: 800 } }));
    const figures = readFigures(dir);
    expect(Object.keys(figures).sort()).toEqual(['concurrency', 'fuzz']);
    const rows = summaryRows(figures);
    expect(rows).toContainEqual(['Bad requests tried (errors 4xx Status or kube\'s own 5xx, store unchanged)', '12,345', 'fuzz']);
    expect(rows).toContainEqual(['Updates lost (8 clients, read-modify-write)', '0 of 640', 'concurrency']);
    expect(rows).toContainEqual(['Crashes survived (kill -9, SQLite store)', '(not run)', '']);
    const md = renderMarkdown(figures);
    expect(md).toContain('Run 2026-11-27 06:00 UTC: `KUBESIM_FUZZ_RUNS=10 npx vitest`');
    expect(md).toContain('| 422 | 2,344 |');
    expect(md).toContain('| pod with a 2 MiB environment variable (POST /api/v1/namespaces/fuzz/pods, 2097300 bytes) | 500 etcdserver: request is too large | kube passes etcd\'s error on |');
    expect(md).not.toContain('## Crashes');
  });

  it('shows the service worker\'s held-write stops beside its other stops', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-rel-'));
    const heldWrites = [
      { phase: 'before-commit', inIndexedDbWhileHeld: false, pageAnswer: 'status 201', storedOnce: true, resourceVersion: 120, nextResourceVersion: 121 },
      { phase: 'after-commit', inIndexedDbWhileHeld: true, pageAnswer: 'status 409 AlreadyExists', storedOnce: true, resourceVersion: 122, nextResourceVersion: 123 },
    ];
    writeFileSync(join(dir, 'worker.json'), JSON.stringify({ name: 'worker', date, command: 'w', stopsSurvived: 4, acknowledgedWrites: 60, eventsLost: 0, eventsRepeated: 0, heldWrites }));
    const figures = readFigures(dir);
    expect(summaryRows(figures)).toContainEqual(['Service worker stops survived (Chromium)', '4 mid-write and mid-watch (0 events lost, 0 repeated), and 2 with a write held before or after the IndexedDB commit', 'worker']);
    const md = renderMarkdown(figures);
    expect(md).toContain('| before-commit | no | status 201 | resourceVersion 120 | resourceVersion 121 |');
    expect(md).toContain('| after-commit | yes | status 409 AlreadyExists | resourceVersion 122 | resourceVersion 123 |');
  });
});

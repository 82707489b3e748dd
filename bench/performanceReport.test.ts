import { describe, expect, it } from 'vitest';
import { figurePrefix, parseFigures } from './figures';
import { goals, renderPerformanceReport } from './performanceReport';

describe('performance report', () => {
  it('collects @figure lines from bench output and skips everything else', () => {
    const output = ['a table row', `${figurePrefix}{"id":"watch.fanout.writes","label":"w","value":0.4,"unit":"ratio"}`, `${figurePrefix}{"id":"broken"`, ''].join('\n');
    expect(parseFigures(output)).toEqual([{ id: 'watch.fanout.writes', label: 'w', value: 0.4, unit: 'ratio' }]);
  });

  it('puts each goal beside its figure, says whether it is met, and lists every figure by bench', () => {
    const text = renderPerformanceReport({
      figures: [
        { id: 'foundation.create.webernetes', label: 'create Pod, kubesim / webernetes', value: 1.25, unit: 'ratio' },
        { id: 'foundation.create.ceiling', label: 'create ceiling', value: 1.7, unit: 'ratio' },
        { id: 'workbench.sw.gzip', label: 'sw gzip', value: 512.4, unit: 'KiB', baseline: '2,600 KiB raw' },
      ],
      ran: ['foundation.bench.ts', 'workbench.bench.ts'],
      failed: ['http.bench.ts'],
      command: 'npm run bench -- --report',
      date: new Date('2026-01-02T03:04:05.678Z'),
    });
    expect(text).toContain('- Date: 2026-01-02T03:04:05Z');
    expect(text).toContain('- Command: `npm run bench -- --report`');
    expect(text).toContain('failed: http.bench.ts');
    expect(text).toContain('| create Pod in process (typed clients), kubesim / @ngrok/webernetes | 1.25 | 1.70 | >= 1.0 | yes |');
    expect(text).toContain('| service worker script before the first API answer (KiB gzip) | 512 KiB |  | <= 150 | no |');
    // A goal whose bench did not run says so rather than showing a number.
    expect(text).toContain('| writes/s with 1,000 watchers / writes/s with none | watch bench did not run |  | >= 0.5 | - |');
    expect(text).toContain('### workbench');
    expect(text).toContain('| sw gzip | 512 KiB | 2,600 KiB raw |');
    expect(goals.length).toBeGreaterThan(5);
  });
});

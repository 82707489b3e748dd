import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  compactIds,
  computeCoverage,
  extractIds,
  formatReport,
  main,
  parseRequirements,
  parseVitestResults,
  removedApiVersions,
  renderConformanceDoc,
  type Requirement,
} from './spec-coverage';

const req = (id: string, kind: string, area: string, extra: Partial<Requirement> = {}): Requirement => ({
  id,
  doc: 'api-conventions',
  section: 'S',
  requirement: `statement ${id}`,
  kind,
  test: '',
  area,
  ...extra,
});

const requirements: Requirement[] = [
  req('API-RV-001', 'http', 'rv-semantics'),
  req('API-RV-002', 'http', 'rv-semantics'),
  req('API-RV-003', 'kubectl', 'rv-semantics'),
  req('API-RV-004', 'ui-none', 'rv-semantics'),
  req('AC-RBAC-001', 'config', 'rbac'),
  req('AC-RBAC-002', 'http', 'rbac'),
  req('AC-RBAC-003', 'http', 'rbac'),
  req('API-VER-065', 'informational', 'versioning-deprecation', {
    section: 'Removed API versions by release',
    requirement: 'CronJob batch/v1beta1 was removed in release 1.25; use batch/v1 (since 1.21) instead.',
  }),
  req('API-VER-066', 'informational', 'versioning-deprecation', {
    section: 'Removed API versions by release',
    requirement: 'EndpointSlice discovery.<D>/v1beta1 was removed in release 1.25; use discovery.<D>/v1 (since 1.21) instead.',
  }),
  req('API-VER-152', 'informational', 'versioning-deprecation', { section: 'Removed API versions by release', requirement: 'DaemonSet apps/v1: templateGeneration was removed.' }),
  req('API-VER-001', 'informational', 'versioning-deprecation', { section: 'Levels', requirement: 'Stability levels are not object states.' }),
];

/** A vitest JSON report as `--reporter=json` writes it, trimmed to the fields the script reads. */
const fixtureResults = {
  numTotalTests: 7,
  success: false,
  testResults: [
    {
      name: '/repo/src/core/a.test.ts',
      status: 'failed',
      message: '',
      assertionResults: [
        { ancestorTitles: ['lists'], fullName: 'lists [API-RV-001] continue with rv is 400', title: '[API-RV-001] continue with rv is 400', status: 'passed', failureMessages: [] },
        { ancestorTitles: ['[API-RV-002] exact reads'], fullName: '[API-RV-002] exact reads at a revision', title: 'at a revision', status: 'passed', failureMessages: [] },
        { ancestorTitles: ['[API-RV-002] exact reads'], fullName: '[API-RV-002] exact reads too old', title: 'too old', status: 'failed', failureMessages: ['boom'] },
        { ancestorTitles: [], fullName: '[AC-RBAC-001][AC-RBAC-002] bootstrap policy', title: '[AC-RBAC-001][AC-RBAC-002] bootstrap policy', status: 'passed', failureMessages: [] },
        { ancestorTitles: [], fullName: '[AC-RBAC-003] later', title: '[AC-RBAC-003] later', status: 'skipped', failureMessages: [] },
        { ancestorTitles: [], fullName: '[API-NOPE-999] typo in an id', title: '[API-NOPE-999] typo in an id', status: 'passed', failureMessages: [] },
        { ancestorTitles: [], fullName: 'plain test', title: 'plain test', status: 'passed', failureMessages: [] },
      ],
    },
    { name: '/repo/src/core/broken.test.ts', status: 'failed', message: 'SyntaxError: Unexpected token\n  at x', assertionResults: [] },
  ],
};

describe('extractIds', () => {
  const cases: { name: string; title: string; want: string[] }[] = [
    { name: 'one id', title: '[API-RV-018] list with continue and rv is 400', want: ['API-RV-018'] },
    { name: 'adjacent ids', title: '[API-RV-018][API-RV-019] both', want: ['API-RV-018', 'API-RV-019'] },
    { name: 'access-control ids', title: 'x [AC-AUTHN-081] y', want: ['AC-AUTHN-081'] },
    { name: 'repeats collapse', title: '[API-RV-018] a [API-RV-018]', want: ['API-RV-018'] },
    { name: 'unbracketed ids do not count', title: 'API-RV-018 mentioned in passing', want: [] },
    { name: 'other bracketed words do not count', title: '[slow] [API-rv-1] [FOO-RV-001]', want: [] },
  ];
  for (const c of cases) it(c.name, () => expect(extractIds(c.title)).toEqual(c.want));
});

describe('parseRequirements', () => {
  it('reads JSON lines and reports broken ones', () => {
    const text = `${JSON.stringify(requirements[0])}\n\nnot json\n{"id":"X"}\n`;
    const { requirements: parsed, problems } = parseRequirements(text);
    expect(parsed.map((r) => r.id)).toEqual(['API-RV-001']);
    expect(problems).toEqual(['requirements line 3: not JSON', 'requirements line 4: missing id, kind or area']);
  });
});

describe('parseVitestResults', () => {
  it('takes ids from titles and enclosing describes, and normalises statuses', () => {
    const { outcomes, problems } = parseVitestResults(fixtureResults, '/repo');
    expect(outcomes.map((o) => [o.status, o.ids])).toEqual([
      ['passed', ['API-RV-001']],
      ['passed', ['API-RV-002']],
      ['failed', ['API-RV-002']],
      ['passed', ['AC-RBAC-001', 'AC-RBAC-002']],
      ['skipped', ['AC-RBAC-003']],
      ['passed', ['API-NOPE-999']],
      ['passed', []],
    ]);
    expect(outcomes[0]!.file).toBe('src/core/a.test.ts');
    expect(problems).toEqual(['src/core/broken.test.ts: failed to run (SyntaxError: Unexpected token)']);
  });

  it('rejects something that is not a report', () => {
    expect(parseVitestResults({ hello: 1 }).problems).toEqual(['not a vitest JSON report (no testResults)']);
  });
});

describe('computeCoverage', () => {
  const { outcomes } = parseVitestResults(fixtureResults, '/repo');
  const report = computeCoverage(requirements, outcomes, ['build/vitest-unit.json']);

  it('counts only http, kubectl and config, per area and in total', () => {
    const rv = report.areas.find((a) => a.area === 'rv-semantics')!;
    // API-RV-002 has a passing and a failing test: not covered.
    expect(rv.counts.http).toEqual({ covered: 1, total: 2 });
    expect(rv.counts.kubectl).toEqual({ covered: 0, total: 1 });
    expect(rv.counts.all).toEqual({ covered: 1, total: 3 });
    expect(rv.covered).toEqual(['API-RV-001']);
    expect(rv.uncovered).toEqual(['API-RV-002', 'API-RV-003']);
    expect(rv.failing).toEqual(['API-RV-002']);

    const rbac = report.areas.find((a) => a.area === 'rbac')!;
    // A skipped test proves nothing.
    expect(rbac.counts.config).toEqual({ covered: 1, total: 1 });
    expect(rbac.counts.http).toEqual({ covered: 1, total: 2 });
    expect(rbac.uncovered).toEqual(['AC-RBAC-003']);

    expect(report.total.all).toEqual({ covered: 3, total: 6 });
    expect(report.total.http).toEqual({ covered: 2, total: 4 });
    expect(report.areas.find((a) => a.area === 'versioning-deprecation')!.counts.all.total).toBe(0);
  });

  it('lists failing tests that name ids, and ids that do not exist', () => {
    expect(report.failingTests).toEqual([{ file: 'src/core/a.test.ts', name: '[API-RV-002] exact reads too old', ids: ['API-RV-002'] }]);
    expect(report.unknownIds).toEqual([{ id: 'API-NOPE-999', tests: ['[API-NOPE-999] typo in an id'] }]);
    expect(report.tests).toEqual({ passed: 5, failed: 1, skipped: 1, namingIds: 6 });
  });

  it('with no results everything counted is uncovered', () => {
    const empty = computeCoverage(requirements, []);
    expect(empty.total.all).toEqual({ covered: 0, total: 6 });
    expect(formatReport(empty)).toContain('No vitest results found');
  });
});

describe('removedApiVersions', () => {
  it('splits removal sentences and keeps other notes as text, with real names', () => {
    expect(removedApiVersions(requirements)).toEqual([
      { id: 'API-VER-065', kind: 'CronJob', groupVersion: 'batch/v1beta1', removedIn: '1.25', replacement: 'batch/v1 (since 1.21)', text: requirements[7]!.requirement },
      {
        id: 'API-VER-066',
        kind: 'EndpointSlice',
        groupVersion: 'discovery.k8s.io/v1beta1',
        removedIn: '1.25',
        replacement: 'discovery.k8s.io/v1 (since 1.21)',
        text: 'EndpointSlice discovery.k8s.io/v1beta1 was removed in release 1.25; use discovery.k8s.io/v1 (since 1.21) instead.',
      },
      { id: 'API-VER-152', text: 'DaemonSet apps/v1: templateGeneration was removed.' },
    ]);
  });
});

describe('compactIds', () => {
  const cases: { name: string; ids: string[]; want: string }[] = [
    { name: 'runs collapse', ids: ['API-RV-001', 'API-RV-002', 'API-RV-003', 'API-RV-007'], want: 'API-RV-001..003, 007' },
    { name: 'prefixes are grouped', ids: ['API-RV-002', 'AC-RBAC-010', 'API-RV-001'], want: 'API-RV-001..002; AC-RBAC-010' },
    { name: 'nothing', ids: [], want: '' },
  ];
  for (const c of cases) it(c.name, () => expect(compactIds(c.ids)).toBe(c.want));
});

describe('formatReport and renderConformanceDoc', () => {
  const { outcomes } = parseVitestResults(fixtureResults, '/repo');
  const report = computeCoverage(requirements, outcomes, ['build/vitest-unit.json']);

  it('prints the table, failing tests, unknown ids and compact gaps', () => {
    const text = formatReport(report);
    expect(text).toMatch(/^rv-semantics\s+1\/2\s+0\/1\s+-\s+1\/3\s+33%$/m);
    expect(text).toMatch(/^TOTAL\s+2\/4\s+0\/1\s+1\/1\s+3\/6\s+50%$/m);
    expect(text).toContain('API-RV-002  src/core/a.test.ts > [API-RV-002] exact reads too old');
    expect(text).toContain('warning: tests name ids that are not in requirements.jsonl (1)');
    expect(text).toContain('rv-semantics (2): API-RV-002..003');
  });

  it('renders the user-facing table and the removed-versions list', () => {
    const doc = renderConformanceDoc(report, requirements);
    expect(doc).toContain('| rv-semantics | 1/2 | 0/1 | - | 1/3 | 33% |');
    expect(doc).toContain('| **Total** | **2/4** | **0/1** | **1/1** | **3/6** | **50%** |');
    expect(doc).not.toContain('| versioning-deprecation |');
    expect(doc).toContain('| API-VER-065 | CronJob | `batch/v1beta1` | 1.25 | batch/v1 (since 1.21) |');
    expect(doc).toContain('- API-VER-152: DaemonSet apps/v1: templateGeneration was removed.');
    expect(doc).toContain('- API-RV-002: statement API-RV-002');
  });
});

describe('main', () => {
  let dir = '';
  afterEach(() => {
    vi.restoreAllMocks();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function layout(withRequirements: boolean): string {
    dir = mkdtempSync(join(tmpdir(), 'spec-coverage-'));
    const root = join(dir, 'main');
    mkdirSync(join(root, 'build'), { recursive: true });
    if (withRequirements) {
      mkdirSync(join(dir, 'shared', 'spec'), { recursive: true });
      writeFileSync(join(dir, 'shared', 'spec', 'requirements.jsonl'), requirements.map((r) => JSON.stringify(r)).join('\n'));
    }
    return root;
  }

  it('says so and writes nothing when requirements.jsonl is absent', () => {
    const root = layout(false);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    main([], root);
    expect(log.mock.calls[0]![0]).toMatch(/requirements\.jsonl not found/);
    expect(existsSync(join(root, 'build', 'spec-coverage.json'))).toBe(false);
  });

  it('reads build/vitest-*.json, writes the summary and, on request, the docs', () => {
    const root = layout(true);
    writeFileSync(join(root, 'build', 'vitest-unit.json'), JSON.stringify(fixtureResults));
    writeFileSync(join(root, 'build', 'vitest-e2e.json'), '{ truncated');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    main(['--write-docs'], root);
    const summary = JSON.parse(readFileSync(join(root, 'build', 'spec-coverage.json'), 'utf8')) as {
      resultFiles: string[];
      total: { all: { covered: number; total: number } };
      problems: string[];
    };
    expect(summary.resultFiles).toEqual(['build/vitest-unit.json']);
    expect(summary.total.all).toEqual({ covered: 3, total: 6 });
    expect(summary.problems.some((p) => p.startsWith('build/vitest-e2e.json: unreadable'))).toBe(true);
    expect(readFileSync(join(root, 'docs', 'conformance.md'), 'utf8')).toContain('# Conformance');
  });

  it('reports missing results without failing', () => {
    const root = layout(true);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    main([], root);
    expect(String(log.mock.calls[0]![0])).toContain('No vitest results found');
    expect(existsSync(join(root, 'docs', 'conformance.md'))).toBe(false);
  });
});

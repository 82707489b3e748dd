/**
 * Spec coverage you can count.
 *
 * Reads the numbered requirements (../shared/spec/requirements.jsonl) and the
 * vitest JSON results (build/vitest-*.json, or files given as arguments), and
 * reports, per area and in total, how many requirements of kind http, kubectl
 * and config are proved by passing tests. A test proves an id by naming it in
 * brackets in its title or in an enclosing describe: `[API-RV-018]`.
 *
 * An id counts as covered when at least one passing test names it and no
 * failing test does. Skipped and todo tests count for nothing.
 *
 *   npm run spec-coverage                      print the report, write build/spec-coverage.json
 *   npm run spec-coverage -- --write-docs      also regenerate docs/conformance.md
 *   npm run spec-coverage -- a.json b.json     read these result files instead
 *
 * It always exits 0: missing inputs are reported, never fatal.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const COUNTED_KINDS = ['http', 'kubectl', 'config'] as const;
export type CountedKind = (typeof COUNTED_KINDS)[number];

export interface Requirement {
  id: string;
  doc: string;
  section: string;
  requirement: string;
  kind: string;
  test: string;
  area: string;
}

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestOutcome {
  file: string;
  name: string;
  status: TestStatus;
  ids: string[];
}

export interface KindCount {
  covered: number;
  total: number;
}

export type KindCounts = Record<CountedKind | 'all', KindCount>;

export interface AreaCoverage {
  area: string;
  counts: KindCounts;
  /** Counted-kind ids proved by passing tests (and not named by a failing one). */
  covered: string[];
  /** Counted-kind ids no passing test proves. */
  uncovered: string[];
  /** Ids of this area named by at least one failing test. */
  failing: string[];
}

export interface RemovedApiVersion {
  id: string;
  kind?: string;
  groupVersion?: string;
  removedIn?: string;
  replacement?: string;
  text: string;
}

export interface CoverageReport {
  resultFiles: string[];
  problems: string[];
  tests: { passed: number; failed: number; skipped: number; namingIds: number };
  total: KindCounts;
  areas: AreaCoverage[];
  failingTests: { file: string; name: string; ids: string[] }[];
  unknownIds: { id: string; tests: string[] }[];
  removedApiVersions: RemovedApiVersion[];
}

// ---- parsing -----------------------------------------------------------------

const ID_IN_BRACKETS = /\[((?:API|AC)-[A-Z]+-\d+)\]/g;

/** The requirement ids a test title names, each in its own brackets, in order, without repeats. */
export function extractIds(title: string): string[] {
  const ids: string[] = [];
  for (const m of title.matchAll(ID_IN_BRACKETS)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
  return ids;
}

/** One JSON object per line; blank lines ignored, broken lines reported. */
export function parseRequirements(text: string): { requirements: Requirement[]; problems: string[] } {
  const requirements: Requirement[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const r = JSON.parse(line) as Partial<Requirement>;
      if (typeof r.id !== 'string' || typeof r.kind !== 'string' || typeof r.area !== 'string') {
        problems.push(`requirements line ${i + 1}: missing id, kind or area`);
        return;
      }
      requirements.push({
        id: r.id,
        doc: r.doc ?? '',
        section: r.section ?? '',
        requirement: r.requirement ?? '',
        kind: r.kind,
        test: r.test ?? '',
        area: r.area,
      });
    } catch {
      problems.push(`requirements line ${i + 1}: not JSON`);
    }
  });
  return { requirements, problems };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toStatus(s: unknown): TestStatus {
  if (s === 'passed') return 'passed';
  if (s === 'failed') return 'failed';
  return 'skipped'; // skipped, pending, todo, or anything unknown
}

/**
 * The tests of one vitest JSON report (the jest-compatible shape written by
 * `--reporter=json`). Ids are taken from the full name, so an id in a describe
 * title applies to every test inside it. Files that failed to load are
 * returned as problems.
 */
export function parseVitestResults(json: unknown, root = ''): { outcomes: TestOutcome[]; problems: string[] } {
  const outcomes: TestOutcome[] = [];
  const problems: string[] = [];
  if (!isRecord(json) || !Array.isArray(json.testResults)) return { outcomes, problems: ['not a vitest JSON report (no testResults)'] };
  for (const file of json.testResults) {
    if (!isRecord(file)) continue;
    const fileName = typeof file.name === 'string' ? (root ? relative(root, file.name) : file.name) : '(unknown file)';
    const assertions = Array.isArray(file.assertionResults) ? file.assertionResults : [];
    if (file.status === 'failed' && assertions.length === 0) {
      const first = typeof file.message === 'string' ? file.message.split('\n')[0] : '';
      problems.push(`${fileName}: failed to run${first ? ` (${first})` : ''}`);
    }
    for (const a of assertions) {
      if (!isRecord(a)) continue;
      const ancestors = Array.isArray(a.ancestorTitles) ? a.ancestorTitles.filter((t): t is string => typeof t === 'string') : [];
      const title = typeof a.title === 'string' ? a.title : '';
      const name = typeof a.fullName === 'string' && a.fullName ? a.fullName : [...ancestors, title].join(' ');
      // fullName already joins ancestors and title; scan both in case a reporter leaves one out.
      const ids = extractIds([name, ...ancestors, title].join(' '));
      outcomes.push({ file: fileName, name, status: toStatus(a.status), ids });
    }
  }
  return { outcomes, problems };
}

const REMOVED = /^(.+?) (\S+\/\S+) was removed in release (\d+\.\d+); use (.+?) instead\.?$/;

/** Informational ids of the "Removed API versions" section, split into fields where the sentence allows. */
export function removedApiVersions(requirements: readonly Requirement[]): RemovedApiVersion[] {
  return requirements
    .filter((r) => r.kind === 'informational' && /removed api versions/i.test(r.section))
    .map((r) => {
      const text = realNames(r.requirement);
      const m = REMOVED.exec(text);
      return m ? { id: r.id, kind: m[1], groupVersion: m[2], removedIn: m[3], replacement: m[4], text } : { id: r.id, text };
    });
}

/** The specs abstract a few names; users read the real ones. */
export function realNames(text: string): string {
  return text.replaceAll('<D>', 'k8s.io').replaceAll('<system_namespace>', 'kube-system').replaceAll('<public_namespace>', 'kube-public');
}

// ---- counting ----------------------------------------------------------------

const isCounted = (kind: string): kind is CountedKind => (COUNTED_KINDS as readonly string[]).includes(kind);

function emptyCounts(): KindCounts {
  return { http: { covered: 0, total: 0 }, kubectl: { covered: 0, total: 0 }, config: { covered: 0, total: 0 }, all: { covered: 0, total: 0 } };
}

export function computeCoverage(
  requirements: readonly Requirement[],
  outcomes: readonly TestOutcome[],
  resultFiles: string[] = [],
  problems: string[] = [],
): CoverageReport {
  const passingIds = new Set<string>();
  const failingIds = new Set<string>();
  const testsById = new Map<string, string[]>();
  const tests = { passed: 0, failed: 0, skipped: 0, namingIds: 0 };
  const failingTests: CoverageReport['failingTests'] = [];

  for (const o of outcomes) {
    tests[o.status]++;
    if (o.ids.length) tests.namingIds++;
    for (const id of o.ids) {
      if (o.status === 'passed') passingIds.add(id);
      if (o.status === 'failed') failingIds.add(id);
      testsById.set(id, [...(testsById.get(id) ?? []), o.name]);
    }
    if (o.status === 'failed' && o.ids.length) failingTests.push({ file: o.file, name: o.name, ids: o.ids });
  }

  const known = new Set(requirements.map((r) => r.id));
  const areas = new Map<string, AreaCoverage>();
  const total = emptyCounts();
  for (const r of requirements) {
    let area = areas.get(r.area);
    if (!area) {
      area = { area: r.area, counts: emptyCounts(), covered: [], uncovered: [], failing: [] };
      areas.set(r.area, area);
    }
    if (failingIds.has(r.id)) area.failing.push(r.id);
    if (!isCounted(r.kind)) continue;
    const covered = passingIds.has(r.id) && !failingIds.has(r.id);
    for (const counts of [area.counts, total]) {
      counts[r.kind].total++;
      counts.all.total++;
      if (covered) {
        counts[r.kind].covered++;
        counts.all.covered++;
      }
    }
    (covered ? area.covered : area.uncovered).push(r.id);
  }

  const unknownIds = [...testsById.keys()]
    .filter((id) => !known.has(id))
    .sort()
    .map((id) => ({ id, tests: testsById.get(id)! }));

  return {
    resultFiles,
    problems,
    tests,
    total,
    areas: [...areas.values()],
    failingTests,
    unknownIds,
    removedApiVersions: removedApiVersions(requirements),
  };
}

// ---- formatting --------------------------------------------------------------

/** `API-RV-001..003, 007` style: runs of consecutive numbers collapse, the prefix is written once per run. */
export function compactIds(ids: readonly string[]): string {
  const groups = new Map<string, number[]>();
  for (const id of ids) {
    const m = /^(.*)-(\d+)$/.exec(id);
    if (!m) continue;
    groups.set(m[1]!, [...(groups.get(m[1]!) ?? []), Number(m[2])]);
  }
  const parts: string[] = [];
  for (const [prefix, nums] of groups) {
    const sorted = [...new Set(nums)].sort((a, b) => a - b);
    const pad = (n: number): string => String(n).padStart(3, '0');
    const runs: string[] = [];
    for (let i = 0; i < sorted.length; i++) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
      runs.push(j > i ? `${pad(sorted[i]!)}..${pad(sorted[j]!)}` : pad(sorted[i]!));
      i = j;
    }
    parts.push(`${prefix}-${runs.join(', ')}`);
  }
  return parts.join('; ');
}

const cell = (c: KindCount): string => (c.total === 0 ? '-' : `${c.covered}/${c.total}`);
const percent = (c: KindCount): string => (c.total === 0 ? '-' : `${Math.round((100 * c.covered) / c.total)}%`);

/** The console report. */
export function formatReport(report: CoverageReport): string {
  const lines: string[] = [];
  if (report.resultFiles.length === 0) {
    lines.push('No vitest results found (build/vitest-*.json, or the files given as arguments). Run `npm test` first; every requirement shows as uncovered.');
  } else {
    lines.push(`Results: ${report.resultFiles.join(', ')}`);
    const t = report.tests;
    lines.push(`Tests: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped; ${t.namingIds} name requirement ids.`);
  }
  for (const p of report.problems) lines.push(`warning: ${p}`);
  lines.push('');

  const header = ['area', ...COUNTED_KINDS, 'all', '%'];
  const rows = report.areas.map((a) => [a.area, ...COUNTED_KINDS.map((k) => cell(a.counts[k])), cell(a.counts.all), percent(a.counts.all)]);
  rows.push(['TOTAL', ...COUNTED_KINDS.map((k) => cell(report.total[k])), cell(report.total.all), percent(report.total.all)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(header), ...rows.map(fmt), '');

  if (report.failingTests.length) {
    lines.push(`Failing tests that name requirement ids (${report.failingTests.length}):`);
    for (const f of report.failingTests) lines.push(`  ${f.ids.join(' ')}  ${f.file} > ${f.name}`);
    lines.push('');
  }
  if (report.unknownIds.length) {
    lines.push(`warning: tests name ids that are not in requirements.jsonl (${report.unknownIds.length}):`);
    for (const u of report.unknownIds) lines.push(`  ${u.id}  (${u.tests.length} test${u.tests.length === 1 ? '' : 's'}, e.g. ${u.tests[0]})`);
    lines.push('');
  }
  lines.push('Uncovered ids by area:');
  for (const a of report.areas) if (a.uncovered.length) lines.push(`  ${a.area} (${a.uncovered.length}): ${compactIds(a.uncovered)}`);
  return lines.join('\n');
}

/** The machine-readable summary written to build/spec-coverage.json. */
export function summaryJson(report: CoverageReport): string {
  return `${JSON.stringify({ countedKinds: COUNTED_KINDS, ...report }, null, 2)}\n`;
}

const escapeCell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** docs/conformance.md: what kubesim implements, as proved by its tests. */
export function renderConformanceDoc(report: CoverageReport, requirements: readonly Requirement[]): string {
  const byId = new Map(requirements.map((r) => [r.id, r]));
  const out: string[] = [];
  out.push('# Conformance');
  out.push('');
  out.push('<!-- Generated by `npm run spec-coverage -- --write-docs`. Do not edit by hand. -->');
  out.push('');
  out.push(
    'kubesim is measured against the numbered requirements of its two specs (API conventions and access control). ' +
      'A requirement counts as implemented only when a passing test names its id (for example `[API-RV-018]`) and no failing test does. ' +
      'Requirements of kind `http` (observable through the API), `kubectl` and `config` are counted; ' +
      '`ui-none` and `informational` statements cannot be proved by a test and are left out.',
  );
  out.push('');
  if (report.resultFiles.length === 0) {
    out.push('**No test results were available when this page was generated, so nothing is counted as covered.**');
  } else {
    const t = report.tests;
    out.push(`Generated from ${t.passed + t.failed + t.skipped} tests (${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped), of which ${t.namingIds} name requirement ids.`);
  }
  out.push('');
  out.push('## Coverage by area');
  out.push('');
  out.push('| Area | http | kubectl | config | Covered / total | % |');
  out.push('|---|---:|---:|---:|---:|---:|');
  for (const a of report.areas) {
    if (a.counts.all.total === 0) continue;
    out.push(`| ${a.area} | ${cell(a.counts.http)} | ${cell(a.counts.kubectl)} | ${cell(a.counts.config)} | ${cell(a.counts.all)} | ${percent(a.counts.all)} |`);
  }
  const t = report.total;
  out.push(`| **Total** | **${cell(t.http)}** | **${cell(t.kubectl)}** | **${cell(t.config)}** | **${cell(t.all)}** | **${percent(t.all)}** |`);
  out.push('');

  const failing = report.areas.filter((a) => a.failing.length);
  if (failing.length) {
    out.push('## Failing');
    out.push('');
    out.push('Requirements named by a failing test (not counted as covered):');
    out.push('');
    for (const a of failing) out.push(`- ${a.area}: ${compactIds(a.failing)}`);
    out.push('');
  }

  out.push('## Notable gaps');
  out.push('');
  out.push('Per area, the requirements no passing test proves yet, with a few examples of what they say.');
  out.push('');
  for (const a of report.areas) {
    if (a.uncovered.length === 0) continue;
    out.push(`### ${a.area} (${a.uncovered.length} of ${a.counts.all.total} not yet proved)`);
    out.push('');
    out.push(`Ids: ${compactIds(a.uncovered)}`);
    out.push('');
    for (const id of a.uncovered.slice(0, 3)) {
      const r = byId.get(id);
      if (r) out.push(`- ${id}: ${realNames(r.requirement)}`);
    }
    if (a.uncovered.length > 3) out.push(`- and ${a.uncovered.length - 3} more`);
    out.push('');
  }

  out.push('## Removed API versions');
  out.push('');
  out.push(
    'These informational requirements record API versions that Kubernetes no longer serves, and what to use instead. ' +
      'kubesim serves only current versions; the list feeds the deprecation check for manifests.',
  );
  out.push('');
  const structured = report.removedApiVersions.filter((r) => r.groupVersion);
  const notes = report.removedApiVersions.filter((r) => !r.groupVersion);
  if (structured.length) {
    out.push('| Id | Kind | Removed version | Removed in | Use instead |');
    out.push('|---|---|---|---|---|');
    for (const r of structured) out.push(`| ${r.id} | ${escapeCell(r.kind!)} | \`${r.groupVersion}\` | ${r.removedIn} | ${escapeCell(r.replacement!)} |`);
    out.push('');
  }
  if (notes.length) {
    out.push('Related notes:');
    out.push('');
    for (const r of notes) out.push(`- ${r.id}: ${r.text}`);
    out.push('');
  }
  return out.join('\n');
}

// ---- command line ----------------------------------------------------------------

function findResultFiles(root: string, args: string[]): string[] {
  if (args.length) return args.map((a) => resolve(a));
  const build = join(root, 'build');
  if (!existsSync(build)) return [];
  return readdirSync(build)
    .filter((f) => /^vitest-.*\.json$/.test(f))
    .sort()
    .map((f) => join(build, f));
}

export function main(argv: string[], root: string): void {
  const writeDocs = argv.includes('--write-docs');
  const args = argv.filter((a) => !a.startsWith('--'));
  const reqPath = resolve(root, '../shared/spec/requirements.jsonl');
  if (!existsSync(reqPath)) {
    console.log(`spec-coverage: ${reqPath} not found (CI keeps shared/ beside the clone); nothing to count.`);
    return;
  }
  const { requirements, problems } = parseRequirements(readFileSync(reqPath, 'utf8'));

  const outcomes: TestOutcome[] = [];
  const resultFiles: string[] = [];
  for (const file of findResultFiles(root, args)) {
    const rel = relative(root, file);
    const shown = rel && !rel.startsWith('..') ? rel : file;
    try {
      const parsed = parseVitestResults(JSON.parse(readFileSync(file, 'utf8')) as unknown, root);
      outcomes.push(...parsed.outcomes);
      problems.push(...parsed.problems.map((p) => `${shown}: ${p}`));
      resultFiles.push(shown);
    } catch (err) {
      problems.push(`${shown}: unreadable (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  const report = computeCoverage(requirements, outcomes, resultFiles, problems);
  console.log(formatReport(report));

  mkdirSync(join(root, 'build'), { recursive: true });
  writeFileSync(join(root, 'build', 'spec-coverage.json'), summaryJson(report));
  console.log('\nWrote build/spec-coverage.json');
  if (writeDocs) {
    mkdirSync(join(root, 'docs'), { recursive: true });
    writeFileSync(join(root, 'docs', 'conformance.md'), renderConformanceDoc(report, requirements));
    console.log('Wrote docs/conformance.md');
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  try {
    main(process.argv.slice(2), resolve(dirname(fileURLToPath(import.meta.url)), '..'));
  } catch (err) {
    // Coverage is a report, never a gate.
    console.log(`spec-coverage: ${err instanceof Error ? err.message : String(err)}`);
  }
  process.exitCode = 0;
}

/**
 * The lessons shipped in scenarios/ stay true: each is parsed and played
 * headless, exactly as `kubesim run` does, on a fresh in-process server, and
 * every step's expectation must hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenarioCommand } from '../../../../server/scenario';
import { parseScenario } from './scenario';

const dir = join(import.meta.dirname, '../../../../scenarios');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

/** The requirements each lesson pins, for spec coverage. */
const REQUIREMENTS: Record<string, string> = {
  'rbac-basics.yaml': '[API-RBAC-002] ',
  'server-side-apply-conflicts.yaml': '[API-SSA-001] [API-SSA-002] [API-SSA-003] ',
  'optimistic-concurrency.yaml': '[API-ERR-002] ',
  'finalizers-and-deletion.yaml': '[API-DEL-002] [API-DEL-009] ',
  'crd-cel-validation.yaml': '[API-CEL-001] ',
  'watch-and-resource-versions.yaml': '[API-RV-001] ',
};

describe('the lessons library (scenarios/)', () => {
  it('ships lessons', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s parses, has a description and names every step', (file) => {
    const parsed = parseScenario(readFileSync(join(dir, file), 'utf8'));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.scenario.name).toBe(file.replace(/\.yaml$/, ''));
    expect(parsed.scenario.description).toBeTruthy();
    expect(parsed.scenario.steps.filter((s) => s.kind === 'request' && !s.name)).toEqual([]);
  });

  // A lesson waits in real time for controllers, kubelets and its pods' loops (each `wait:` step up to its own
  // limit): network-policies, whose clients retry every two seconds, takes about 20 s alone, more on a busy machine.
  it.each(files.map((file) => [REQUIREMENTS[file] ?? '', file]))('%s%s passes every step headless', async (_ids, file) => {
    const lines: string[] = [];
    const code = await runScenarioCommand([join(dir, file)], { write: (l) => lines.push(l) });
    expect(lines.filter((l) => !l.startsWith('PASS ') && !l.startsWith('scenario: ') && !/^\d+ passed, 0 failed$/.test(l))).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});

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

  it.each(files)('%s passes every step headless', async (file) => {
    const lines: string[] = [];
    const code = await runScenarioCommand([join(dir, file)], { write: (l) => lines.push(l) });
    expect(lines.filter((l) => !l.startsWith('PASS ') && !l.startsWith('scenario: ') && !/^\d+ passed, 0 failed$/.test(l))).toEqual([]);
    expect(code).toBe(0);
  });
});

/**
 * The field manager's observable behaviour pinned on a seeded random corpus
 * of applies and updates (see testing/corpus.ts). The digests were recorded
 * from the straightforward implementation that predates the performance
 * work (paths copied at every node, no shared elements); any change in
 * merged objects, managedFields, conflicts or error messages changes them.
 */
import { describe, expect, it } from 'vitest';
import { newFieldManager } from './index';
import { CORPUS_KINDS, digest, runCorpus, type FieldManagerFactory } from './testing/corpus';

const SEEDS = 25;
const STEPS = 30;
const RECORDED: Record<string, string> = {
  markers: '9329d224c1d6',
  deployment: '16b8596168a62e',
  schemaless: '1d6204718f90f9',
  'markers-wide': '1f5d3e73e5631b',
  'deployment-wide': '1a226347ea12c6',
};

const factory = newFieldManager as unknown as FieldManagerFactory;

describe('field manager on a random corpus', () => {
  for (const kind of CORPUS_KINDS) {
    it(`${kind.name}: every step matches the recorded run`, () => {
      const lines: string[] = [];
      for (let seed = 1; seed <= SEEDS; seed++) lines.push(...runCorpus(factory, kind, seed, STEPS));
      expect(lines).toHaveLength(SEEDS * STEPS);
      // The corpus must exercise every outcome, or the digest pins little.
      expect(lines.some((l) => / apply .* ok /.test(l))).toBe(true);
      expect(lines.some((l) => l.includes(' Conflict '))).toBe(true);
      expect(lines.some((l) => / update /.test(l))).toBe(true);
      expect(digest(lines)).toBe(RECORDED[kind.name]);
    });
  }

  it('a run does not depend on what ran before it (no state leaks between field managers)', () => {
    const kind = CORPUS_KINDS[0];
    const first = runCorpus(factory, kind, 7, STEPS);
    for (const other of CORPUS_KINDS) runCorpus(factory, other, 99, STEPS);
    expect(runCorpus(factory, kind, 7, STEPS)).toEqual(first);
  });
});

/**
 * The field manager's observable behaviour pinned on a seeded random corpus
 * of applies and updates (see testing/corpus.ts). The digests were recorded
 * from the straightforward implementation that predates the performance
 * work (paths copied at every node, no shared elements); any change in
 * merged objects, managedFields, conflicts or error messages changes them.
 *
 * Re-pinned once, when applied objects started being validated against the
 * schema (typed/validate.ts). Every run that changed first differs at a step
 * whose input is invalid, and the steps after it differ only because the
 * object they start from does:
 * - applies of an object that does not fit the schema (a scalar where a
 *   map or list belongs, a map item in a keyed list or a set, an item
 *   without its key, an undeclared field) used to merge, or conflict, and
 *   now fail with `failed to create typed patch object: <errors>`;
 * - applies with repeated list keys still fail, but name the key as the
 *   server does (`[name="a"]`, `[="b"]`, not `{"name":"a"}`), may list
 *   several errors (`errors:` then one per line), and carry reason
 *   InternalError (the server answers a plain 500) rather than BadRequest;
 * - updates whose object cannot be typed (a non-map item in a keyed list)
 *   keep the live object's managedFields instead of dropping them all
 *   (kubernetes/kubernetes#136949).
 * Valid inputs produce the same lines as before.
 */
import { describe, expect, it } from 'vitest';
import { newFieldManager } from './index';
import { CORPUS_KINDS, digest, runCorpus, type FieldManagerFactory } from './testing/corpus';

const SEEDS = 25;
const STEPS = 30;
const RECORDED: Record<string, string> = {
  markers: '135199c4e9d785',
  deployment: '11d0c59b902a62',
  schemaless: '1b76dbfae5f547',
  'markers-wide': '1a29afecc22a5c',
  'deployment-wide': '57b4f293f632',
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

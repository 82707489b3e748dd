import { describe, expect, it } from 'vitest';
import { newEnvironment } from '../environments';
import { fromJson } from '../common/values';
import { literalPattern } from './matches';

// A literal pattern is prepared once at plan time (compiled regex plus the
// pattern's cost factor); the cross-check of its results and costs against
// the general path is in specialize.test.ts.

const env = newEnvironment('admission');
const cands = env.functions.overloads('matches', true, 2);

describe('literal matches patterns', () => {
  it('precomputes ceil(code points × 0.25) as the cost factor', () => {
    expect(literalPattern('^[a-z]+$', cands)?.factor).toBe(2);
    expect(literalPattern('', cands)?.factor).toBe(0);
    // four astral characters are four code points (eight UTF-16 units)
    expect(literalPattern('😀😀😀😀x', cands)?.factor).toBe(2);
  });

  it('is not prepared for a pattern that does not compile (the call fails at run time instead)', () => {
    expect(literalPattern('(', cands)).toBeUndefined();
    const r = env.compile("object.metadata.name.matches('(')").program!.eval({ object: fromJson({ metadata: { name: 'a' } }) });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error.message).toMatch(/missing closing \)/);
  });

  it('is not prepared for other overloads', () => {
    expect(literalPattern('a', env.functions.overloads('startsWith', true, 2))).toBeUndefined();
    expect(literalPattern('a', [])).toBeUndefined();
  });

  it('charges (ceil((size + 1) × 0.1)) × factor per evaluation', () => {
    const p = env.compile("object.s.matches('^a+$')").program!; // factor ceil(4 × 0.25) = 1
    const run = (s: string) => p.eval({ object: fromJson({ s }) });
    // object, .s: 2; 25 code points: ceil(26 × 0.1) = 3
    expect(run('a'.repeat(25))).toMatchObject({ ok: true, value: true, cost: 2 + 3 });
    expect(run('b')).toMatchObject({ ok: true, value: false, cost: 2 + 1 });
  });
});

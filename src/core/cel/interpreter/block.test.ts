import { describe, expect, it } from 'vitest';
import { formatIssues } from '../ast';
import { T } from '../common/types';
import { debugString } from '../debug';
import { CelEnv } from '../env';
import { newEnvironment } from '../environments';
import { extensionLibraries } from '../library';
import { parse } from '../parser/parser';

// cel.block / cel.index / cel.iterVar: the form cel-go's common-subexpression
// optimizer emits. Slots are evaluated lazily, at most once per entry.

describe('cel.block parse (golden debug output)', () => {
  const cases: [string, string][] = [
    ['cel.block([1], cel.index(0))', 'cel.@block([1^#2]^#3, @index0^#6)^#7'],
    [
      'cel.block([x + 1, cel.index(0) * 2], cel.index(1) > cel.index(0))',
      'cel.@block([_+_(x^#2, 1^#3)^#4, _*_(@index0^#7, 2^#8)^#9]^#10, _>_(@index1^#13, @index0^#16)^#17)^#18',
    ],
    [
      '[1].exists(cel.iterVar(0, 0), cel.iterVar(0, 0) > 0)',
      '__comprehension__(\n  // Variable\n  @it:0:0,\n  // Target\n  [1^#1]^#2,\n  // Accumulator\n  @result,\n  // Init\n  false^#13,\n  // LoopCondition\n  @not_strictly_false(!_(@result^#14)^#15)^#16,\n  // LoopStep\n  _||_(@result^#17, _>_(@it:0:0^#10, 0^#11)^#12)^#18,\n  // Result\n  @result^#19)^#20',
    ],
  ];
  it.each(cases)('%s', (src, want) => {
    const r = parse(src, { enableBind: true });
    expect(r.issues).toEqual([]);
    expect(debugString(r.expr!)).toBe(want);
  });

  const errors: [string, string][] = [
    ['cel.block(x, 1)', 'ERROR: <input>:1:11: cel.block requires the first arg to be a list literal\n | cel.block(x, 1)\n | ..........^'],
    ['cel.block([1], cel.index(-1))', 'ERROR: <input>:1:26: cel.index requires a single non-negative int constant arg\n | cel.block([1], cel.index(-1))\n | .........................^'],
    ["cel.block([1], cel.index('a'))", "ERROR: <input>:1:26: cel.index requires a single non-negative int constant arg\n | cel.block([1], cel.index('a'))\n | .........................^"],
  ];
  it.each(errors)('%s is rejected', (src, want) => {
    const r = parse(src, { enableBind: true });
    expect(formatIssues(r.issues, r.source)).toBe(want);
  });
});

describe('cel.block evaluation', () => {
  const env = new CelEnv({ libraries: extensionLibraries(), enableBind: true, variables: { x: T.int, s: T.string } });
  const cases: [string, Record<string, unknown>, unknown, string][] = [
    ['cel.block([x + 1, cel.index(0) * 2], cel.index(1) + cel.index(0))', { x: 2n }, 9n, 'int'],
    ["cel.block([s + s, size(cel.index(0))], cel.index(1) == 4 ? cel.index(0) : '')", { s: 'ab' }, 'abab', 'string'],
    // slots of different types in one block
    ["cel.block([[1, 2], 'a', cel.index(0).size()], cel.index(2) == 2 && cel.index(1) == 'a')", {}, true, 'bool'],
    // a slot that errors does not matter unless it is used
    ['cel.block([1 / 0, x], cel.index(1))', { x: 3n }, 3n, 'int'],
    ['cel.block([[1, 2, 3]], cel.index(0).map(cel.iterVar(0, 0), cel.index(0).filter(cel.iterVar(1, 0), cel.iterVar(1, 0) < cel.iterVar(0, 0)).size()))', {}, [0n, 1n, 2n], 'list(int)'],
  ];
  it.each(cases)('%s', (src, vars, want, type) => {
    const c = env.compile(src);
    expect(c.message).toBeUndefined();
    expect(c.ast && (c.ast.type.kind === 'list' ? `list(${c.ast.type.elem.kind})` : c.ast.type.kind)).toBe(type);
    const r = c.program!.eval(vars as never);
    expect(r.ok && r.value).toEqual(want);
  });

  it('a used slot that errors reports the error of its sub-expression', () => {
    const r = env.compile('cel.block([1 / 0], cel.index(0) + 1)').program!.eval({});
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toBe('division by zero');
  });

  it('evaluates each slot once: the cost of reusing a slot is one unit', () => {
    const once = env.compile("cel.block([s.matches('^a+$')], cel.index(0) && cel.index(0) && cel.index(0))").program!;
    const plain = env.compile("s.matches('^a+$')").program!;
    const s = 'a'.repeat(200);
    const c1 = once.eval({ s }).cost;
    const c0 = plain.eval({ s }).cost;
    // three identifier reads instead of three regex evaluations
    expect(c1).toBe(c0 + 3);
  });

  it('slots are fresh each time the block is entered inside a loop', () => {
    const r = env.compile('[1, 2, 3].map(cel.iterVar(0, 0), cel.block([cel.iterVar(0, 0) * 10], cel.index(0) + 1))').program!.eval({});
    expect(r.ok && r.value).toEqual([11n, 21n, 31n]);
  });

  it('an index outside the block is an undeclared reference', () => {
    const c = env.compile('cel.block([1], cel.index(1))');
    expect(c.message).toBe("ERROR: <input>:1:25: undeclared reference to '@index1' (in container '')\n | cel.block([1], cel.index(1))\n | ........................^");
  });

  it('the Kubernetes environments do not accept cel.block (no bindings library)', () => {
    const c = newEnvironment('crd').compile('cel.block([1], cel.index(0))');
    expect(c.program).toBeUndefined();
    expect(c.message).toContain("undeclared reference to 'cel'");
  });
});

import { describe, expect, it } from 'vitest';
import { formatIssues } from '../ast';
import { debugString } from '../debug';
import { parse } from './parser';

// Golden output of the debug printer: node ids, literal decoding, operator
// names, balanced && / || trees and macro expansions.
const cases: [string, string][] = [
  ['1 + 2 * 3', '_+_(1^#1, _*_(2^#2, 3^#3)^#4)^#5'],
  ['-9223372036854775808', '-9223372036854775808^#1'],
  ['--1', '1^#1'],
  ['!!true', 'true^#1'],
  ['a.b.c', 'a^#1.b^#2.c^#3'],
  ['a && b && c && d', '_&&_(_&&_(a^#1, b^#2)^#5, _&&_(c^#3, d^#4)^#6)^#7'],
  ["x ? 'a' : b'\\x01'", 'x^#1 ? _?_:_ placeholder'],
  ['[1, ?x]', '[1^#1, ?x^#2]^#3'],
  ['{?"k": v}', '{?"k"^#2:v^#3^#4}^#1'],
  ['m[?k].?f', '_?._(_[?_](m^#1, k^#2)^#3, "f"^#4)^#5'],
  ['has(a.b)', 'a^#1.b~test-only~^#3'],
  ['1u + 2.5 + r"\\n"', '_+_(_+_(1u^#1, 2.5^#2)^#3, "\\\\n"^#4)^#5'],
  ['"\\u00e9\\101" == \'éA\'', '_==_("éA"^#1, "éA"^#2)^#3'],
  ['a . b // comment\n . C { c : 1 }', 'a.b.C{c:1^#2^#3}^#1'],
  ['-1 . x', '-_(1^#1.x^#2)^#3'],
  ['[1].all(x, x > 0)', '__comprehension__(\n  // Variable\n  x,\n  // Target\n  [1^#1]^#2,\n  // Accumulator\n  @result,\n  // Init\n  true^#7,\n  // LoopCondition\n  @not_strictly_false(@result^#8)^#9,\n  // LoopStep\n  _&&_(@result^#10, _>_(x^#4, 0^#5)^#6)^#11,\n  // Result\n  @result^#12)^#13'],
];

describe('parser golden output', () => {
  it.each(cases.filter(([, want]) => !want.includes('placeholder')))('%s', (src, want) => {
    const r = parse(src);
    expect(r.issues).toEqual([]);
    expect(debugString(r.expr!)).toBe(want);
  });

  it('conditional', () => {
    const r = parse("x ? 'a' : b'\\x01'");
    expect(debugString(r.expr!)).toBe('_?_:_(x^#1, "a"^#2, b"\\u0001"^#3)^#4');
  });
});

describe('parse errors carry positions (cel-go display)', () => {
  const errors: [string, string][] = [
    ['1 +', "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^"],
    ['a.b(\n  c,, d)', "ERROR: <input>:2:5: Syntax error: mismatched input ',' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   c,, d)\n | ....^"],
    ['9223372036854775808', 'ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^'],
    ['if', 'ERROR: <input>:1:1: reserved identifier: if\n | if\n | ^'],
    ['[1].all(1, true)', 'ERROR: <input>:1:9: argument must be a simple name\n | [1].all(1, true)\n | ........^'],
    ['has(a)', 'ERROR: <input>:1:4: invalid argument to has() macro\n | has(a)\n | ...^'],
    // a character the scanner cannot read is reported before an earlier syntax error, as cel-go's lexer errors are
    ['1 + ) #', "ERROR: <input>:1:7: Syntax error: token recognition error at: '#'\n | 1 + ) #\n | ......^"],
    ['f(1,,2) \'x', "ERROR: <input>:1:9: Syntax error: token recognition error at: ''x'\n | f(1,,2) 'x\n | ........^"],
  ];
  it.each(errors)('%s', (src, want) => {
    const r = parse(src);
    expect(r.expr).toBeUndefined();
    expect(formatIssues(r.issues, r.source)).toBe(want);
  });
});

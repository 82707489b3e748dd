import { describe, expect, it } from 'vitest';
import { goFloat, goQuote, goSharpV, goType, goV } from './index';

describe("Go's fmt verbs on decoded JSON", () => {
  it.each([
    [5, '5'],
    [-5, '-5'],
    [0, '0'],
    [1.5, '1.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [1234567, '1.234567e+06'],
    [1e21, '1e+21'],
    [1.5e-300, '1.5e-300'],
  ])('%v of float64 %s', (n, s) => expect(goFloat(n)).toBe(s));

  it('%q escapes as strconv.Quote does', () => {
    expect(goQuote('a"b\\c\n\t\x01\x7f é')).toBe('"a\\"b\\\\c\\n\\t\\x01\\x7f é"');
  });

  it('%#v, %v and %T of maps, lists and scalars', () => {
    const v = { b: [1, 'x', null, true], a: { c: 2 } };
    expect(goSharpV(v)).toBe('map[string]interface {}{"a":map[string]interface {}{"c":2}, "b":[]interface {}{1, "x", interface {}(nil), true}}');
    expect(goV(v)).toBe('map[a:map[c:2] b:[1 x <nil> true]]');
    expect([goType(v), goType([]), goType('s'), goType(1), goType(false), goType(null)]).toEqual([
      'map[string]interface {}',
      '[]interface {}',
      'string',
      'float64',
      'bool',
      '<nil>',
    ]);
  });
});

/** resource.Quantity: parsing, comparison and the canonical String() form, from kube's quantity_test.go cases. */
import { describe, expect, it } from 'vitest';
import { canonicalMilliQuantity, canonicalQuantity, compareQuantities, parseQuantity, quantityMilliValue } from './quantity';

describe('canonical form', () => {
  const cases: [string | number, string][] = [
    ['0', '0'], ['0Mi', '0'], ['1', '1'], ['1000', '1k'], ['1500m', '1500m'], ['0.5', '500m'], ['.1', '100m'],
    ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'], ['1Ki', '1Ki'], ['1023Ki', '1023Ki'], ['100Ki', '100Ki'], ['1.5Ki', '1536'],
    ['0.5Ki', '512'], ['1e3', '1e3'], ['1E6', '1e6'], ['12e3', '12e3'], ['100e-3', '100e-3'], ['1n', '1n'], ['1u', '1u'],
    ['0.0000000001', '1n'], ['-1', '-1'], ['-1.5Gi', '-1536Mi'], ['2000m', '2'], ['1M', '1M'], ['1000000', '1M'],
    ['+5', '5'], [0.25, '250m'], [3, '3'],
  ];
  for (const [input, want] of cases) it(`${JSON.stringify(input)} -> ${want}`, () => expect(canonicalQuantity(input)).toBe(want));
});

describe('rounded up to milli scale, as SetDefaults_ResourceList stores a resource list', () => {
  const cases: [string | number, string][] = [
    ['1500u', '2m'], ['1u', '1m'], ['1n', '1m'], ['0.0001', '1m'], ['1.0001', '1001m'], ['100.5m', '101m'], ['1e-4', '1e-3'],
    ['2m', '2m'], ['0.5', '500m'], ['128Mi', '128Mi'], ['1.5Gi', '1536Mi'], ['0', '0'], ['-1500u', '-2m'], ['nope', 'nope'],
  ];
  for (const [input, want] of cases) it(`${JSON.stringify(input)} -> ${want}`, () => expect(canonicalMilliQuantity(input)).toBe(want));
});

describe('parse and compare', () => {
  it('rejects what ParseQuantity rejects', () => {
    for (const bad of ['', 'x', '1.2.3', '1iK', 'Gi', '1 Gi', '--1']) expect(parseQuantity(bad), bad).toBeUndefined();
  });
  it('compares across suffixes exactly', () => {
    const q = (s: string) => parseQuantity(s)!;
    expect(compareQuantities(q('1Gi'), q('1024Mi'))).toBe(0);
    expect(compareQuantities(q('1G'), q('1Gi'))).toBe(-1);
    expect(compareQuantities(q('1500m'), q('1.5'))).toBe(0);
    expect(compareQuantities(q('2'), q('1999m'))).toBe(1);
    expect(compareQuantities(q('-1'), q('0'))).toBe(-1);
    expect(quantityMilliValue(q('1.5'))).toBe(1500n);
    expect(quantityMilliValue(q('1n'))).toBe(1n);
  });
});

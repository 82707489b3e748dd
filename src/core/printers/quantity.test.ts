import { describe, expect, it } from 'vitest';
import { formatQuantity } from './quantity';

describe('formatQuantity (resource.Quantity.String)', () => {
  it.each([
    ['binary stays binary', '10Gi', '10Gi'],
    ['binary collapses to the largest exact suffix', '1024Mi', '1Gi'],
    ['fractional binary becomes a smaller binary suffix', '1.5Gi', '1536Mi'],
    ['binary below 1024 prints decimal', '0.5Ki', '512'],
    ['decimal collapses thousands', '1000', '1k'],
    ['decimal keeps non-multiples', '1500', '1500'],
    ['milli stays milli', '100m', '100m'],
    ['fraction becomes milli', '0.5', '500m'],
    ['decimal SI suffix', '2G', '2G'],
    ['exponent form is kept', '1e3', '1e3'],
    ['zero', '0', '0'],
    ['zero with suffix', '0Gi', '0'],
    ['number input', 4, '4'],
    ['absent quantity is zero', undefined, '0'],
    ['negative', '-1Gi', '-1Gi'],
    ['unparsable is returned as is', 'lots', 'lots'],
  ])('%s', (_name, input, expected) => {
    expect(formatQuantity(input)).toBe(expected);
  });
});

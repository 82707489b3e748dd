/** Resource-list arithmetic as quota does it (k8s.io/apiserver/pkg/quota/v1 resources.go), named cases. */
import { describe, expect, it } from 'vitest';
import { parseQuantity, formatQuantity } from '../api/quantity';
import { add, addQuantity, lessThanOrEqual, mask, parseResourceList, prettyPrint, removeZeros, resourceListJson, roundUpQuantity, subtractNonNegative, zeroQuantity } from './resources';

const q = (s: string) => parseQuantity(s)!;

describe('Quantity.Add as quota sums usage', () => {
  const cases: [string, string, string, string][] = [
    ['millis and cores', '500m', '1', '1500m'],
    ['binary stays binary', '128Mi', '128Mi', '256Mi'],
    ['binary plus decimal keeps the receiver\'s format', '1Gi', '512Mi', '1536Mi'],
    ['a decimal receiver prints decimal', '1G', '1Gi', '2073741824'],
    ['sub-milli exactness', '100m', '1n', '100000001n'],
  ];
  for (const [name, a, b, want] of cases) it(name, () => expect(formatQuantity(addQuantity(q(a), q(b)))).toBe(want));
  it('a zero receiver takes the other\'s format (usage starts from Quantity{Format: DecimalSI})', () => {
    expect(formatQuantity(addQuantity(zeroQuantity, q('64Mi')))).toBe('64Mi');
  });
});

describe('resource lists', () => {
  it('add is a union summing shared keys; the JSON form sorts keys', () => {
    const sum = add(parseResourceList({ pods: '1', cpu: '100m' }), parseResourceList({ cpu: '200m', memory: '1Gi' }));
    expect(resourceListJson(sum)).toEqual({ cpu: '300m', memory: '1Gi', pods: '1' });
    expect(Object.keys(resourceListJson(sum))).toEqual(['cpu', 'memory', 'pods']);
  });
  it('subtractNonNegative floors at zero and keeps keys only the subtrahend has', () => {
    expect(resourceListJson(subtractNonNegative(parseResourceList({ 'requests.storage': '6Gi', pods: '1' }), parseResourceList({ 'requests.storage': '3Gi', pods: '2', secrets: '1' })))).toEqual({
      pods: '0', 'requests.storage': '3Gi', secrets: '0',
    });
  });
  it('lessThanOrEqual names the exceeded keys; keys the limits lack are not limited', () => {
    expect(lessThanOrEqual(parseResourceList({ cpu: '2', pods: '3', secrets: '9' }), parseResourceList({ cpu: '1', pods: '3' }))).toEqual({ allowed: false, exceeded: ['cpu'] });
  });
  it('mask, removeZeros and prettyPrint (sorted, comma-joined, canonical)', () => {
    const l = parseResourceList({ 'requests.cpu': '0.5', pods: '0', configmaps: '2' });
    expect(prettyPrint(l)).toBe('configmaps=2,pods=0,requests.cpu=500m');
    expect(prettyPrint(removeZeros(l))).toBe('configmaps=2,requests.cpu=500m');
    expect(prettyPrint(mask(l, ['pods', 'absent']))).toBe('pods=0');
  });
  it('RoundUp(0) counts storage in whole bytes', () => {
    expect(formatQuantity(roundUpQuantity(q('1500m')))).toBe('2');
    expect(formatQuantity(roundUpQuantity(q('1Gi')))).toBe('1Gi');
  });
});

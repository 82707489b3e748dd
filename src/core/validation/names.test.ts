import { describe, expect, it } from 'vitest';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './names';

// The patterns upstream documents (k8s.io/apimachinery/pkg/util/validation): the reference the checks' fast loops must agree with.
const label = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const qualified = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const reference: [string, (v: string) => string[], (v: string) => boolean][] = [
  ['IsDNS1123Label', isDNS1123Label, (v) => v.length <= 63 && new RegExp(`^${label}$`).test(v)],
  ['IsDNS1123Subdomain', isDNS1123Subdomain, (v) => v.length <= 253 && new RegExp(`^${label}(\\.${label})*$`).test(v)],
  ['IsDNS1035Label', isDNS1035Label, (v) => v.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)],
  ['IsValidLabelValue', isValidLabelValue, (v) => v.length <= 63 && new RegExp(`^(${qualified})?$`).test(v)],
  [
    'IsQualifiedName',
    isQualifiedName,
    (v) => {
      const parts = v.split('/');
      const name = parts[parts.length - 1]!;
      if (parts.length > 2 || name.length > 63 || !new RegExp(`^${qualified}$`).test(name)) return false;
      return parts.length === 1 || (parts[0]!.length <= 253 && new RegExp(`^${label}(\\.${label})*$`).test(parts[0]!));
    },
  ],
];

/** A small deterministic generator (no Math.random in tests). */
function* values(count: number): Generator<string> {
  const alphabet = 'ab09AZ-._/ é';
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < count; i++) {
    const len = next() % 12;
    let s = '';
    for (let j = 0; j < len; j++) s += alphabet[next() % alphabet.length];
    yield s;
  }
  yield* ['', '-', 'a', 'a-', '-a', 'a.b', 'a..b', '.a', 'a.', 'A', 'a_b', 'a/b', '/a', 'a/', 'a/b/c', 'x'.repeat(63), 'x'.repeat(64), `${'x'.repeat(250)}.io/a`, `${'x.'.repeat(127)}x/a`];
}

describe('name and label syntax', () => {
  it.each(reference)('%s: valid exactly when upstream pattern and length limit accept the value', (_name, check, accepts) => {
    const disagreements = [...values(5000)].filter((v) => (check(v).length === 0) !== accepts(v));
    expect(disagreements).toEqual([]);
  });

  it('an invalid value gets upstream messages every time it is checked', () => {
    for (let i = 0; i < 2; i++) {
      expect(isDNS1123Label('Web_1')).toEqual([
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ]);
    }
    expect(isQualifiedName('a/b/c')).toHaveLength(1);
  });
});

// Kubernetes semver library (1.33+): semver(), isSemver() and comparisons.

import { CelError, CelOpaque, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';

export class CelSemver extends CelOpaque {
  readonly typeName = 'kubernetes.Semver';
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string[],
  ) {
    super();
  }
  equal(o: CelValue): boolean {
    return o instanceof CelSemver && cmp(this, o) === 0;
  }
  compare(o: CelValue): number | undefined {
    return o instanceof CelSemver ? cmp(this, o) : undefined;
  }
}

function cmp(a: CelSemver, b: CelSemver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (!a.pre.length || !b.pre.length) return a.pre.length === b.pre.length ? 0 : a.pre.length ? -1 : 1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[-A-Za-z0-9]*$/;
const UINT64_MAX = 2n ** 64n - 1n;
const q = (s: string): string => JSON.stringify(s);
const leadingZero = (s: string): boolean => s.length > 1 && s[0] === '0';

/** strconv.ParseUint(s, 10, 64) */
function parseUint(s: string): bigint | Error {
  if (!/^[0-9]+$/.test(s)) return new Error(`strconv.ParseUint: parsing ${q(s)}: invalid syntax`);
  const n = BigInt(s);
  return n > UINT64_MAX ? new Error(`strconv.ParseUint: parsing ${q(s)}: value out of range`) : n;
}

/** blang/semver v4 Parse, with its error texts (the API server returns them as they are). */
function parseStrict(s: string): CelSemver | Error {
  if (s === '') return new Error('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) return new Error('No Major.Minor.Patch elements found');
  const nums: bigint[] = [];
  for (const [i, name] of ['major', 'minor'].entries()) {
    const p = parts[i]!;
    if (!NUMBERS.test(p)) return new Error(`Invalid character(s) found in ${name} number ${q(p)}`);
    if (leadingZero(p)) return new Error(`${name[0]!.toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${q(p)}`);
    const n = parseUint(p);
    if (n instanceof Error) return n;
    nums.push(n);
  }
  let patchStr = parts[2]!;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    pre = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  if (!NUMBERS.test(patchStr)) return new Error(`Invalid character(s) found in patch number ${q(patchStr)}`);
  if (leadingZero(patchStr)) return new Error(`Patch number must not contain leading zeroes ${q(patchStr)}`);
  const patch = parseUint(patchStr);
  if (patch instanceof Error) return patch;
  for (const p of pre) {
    if (p === '') return new Error('Prerelease is empty');
    if (NUMBERS.test(p)) {
      if (leadingZero(p)) return new Error(`Numeric PreRelease version must not contain leading zeroes ${q(p)}`);
      const n = parseUint(p);
      if (n instanceof Error) return n;
    } else if (!ALPHANUM.test(p)) return new Error(`Invalid character(s) found in prerelease ${q(p)}`);
  }
  for (const b of build) {
    if (b === '') return new Error('Build meta data is empty');
    if (!ALPHANUM.test(b)) return new Error(`Invalid character(s) found in build meta data ${q(b)}`);
  }
  return new CelSemver(nums[0]!, nums[1]!, patch, pre);
}

/** strings.SplitN */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  out.push(rest);
  return out;
}

/** The library's normalizeAndParse: no `v` prefix, no leading zeros, missing minor and patch filled with 0. */
function normalizeAndParse(s: string): CelSemver | Error {
  const parts = splitN(s.startsWith('v') ? s.slice(1) : s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/[0-9]/.test(t[0]!) ? '0' + t : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) return new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseStrict(parts.join('.'));
}

export function parseSemver(s: string, norm = false): CelSemver | CelError {
  const v = norm ? normalizeAndParse(s) : parseStrict(s);
  return v instanceof Error ? new CelError(v.message) : v;
}

export function k8sSemverLibrary(): Library {
  const S = 'kubernetes.Semver';
  const V = (v: CelValue): CelSemver => v as CelSemver;
  return {
    name: 'k8s.semver',
    types: ['kubernetes.Semver'],
    overloads: [
      def('string_to_semver', `semver(string) -> ${S}`, (s) => parseSemver(s as string)),
      def('string_to_semver_normalize', `semver(string, bool) -> ${S}`, (s, n) => parseSemver(s as string, n as boolean)),
      def('is_semver', 'isSemver(string) -> bool', (s) => !(parseSemver(s as string) instanceof CelError)),
      def('is_semver_normalize', 'isSemver(string, bool) -> bool', (s, n) => !(parseSemver(s as string, n as boolean) instanceof CelError)),
      def('semver_major', `${S}.major() -> int`, (v) => V(v).major),
      def('semver_minor', `${S}.minor() -> int`, (v) => V(v).minor),
      def('semver_patch', `${S}.patch() -> int`, (v) => V(v).patch),
      def('semver_is_greater_than', `${S}.isGreaterThan(${S}) -> bool`, (a, b) => cmp(V(a), V(b)) > 0),
      def('semver_is_less_than', `${S}.isLessThan(${S}) -> bool`, (a, b) => cmp(V(a), V(b)) < 0),
      def('semver_compare_to', `${S}.compareTo(${S}) -> int`, (a, b) => BigInt(cmp(V(a), V(b)))),
    ],
  };
}

export { CelError };

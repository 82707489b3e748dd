// Kubernetes semver library (1.33+): semver(), isSemver() and comparisons.

import { CelError, CelOpaque, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

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

function normalize(s: string): string {
  let v = s.startsWith('v') ? s.slice(1) : s;
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(v);
  if (m) v = `${BigInt(m[1]!)}.${BigInt(m[2] ?? '0')}.${BigInt(m[3] ?? '0')}${m[4]}`;
  return v;
}

export function parseSemver(s: string, norm = false): CelSemver | CelError {
  const m = SEMVER.exec(norm ? normalize(s) : s);
  if (!m) return new CelError(`error converting string to semver: ${s}`);
  return new CelSemver(BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!), m[4] ? m[4].split('.') : []);
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

/**
 * Kubernetes version priority, as apimachinery's CompareKubeAwareVersionStrings
 * orders versions: GA before beta before alpha, then the higher major, then the
 * higher pre-release number (v2 > v1 > v1beta2 > v1beta1 > v1alpha1); strings
 * that are not Kubernetes versions sort last, alphabetically.
 */

interface ParsedVersion {
  major: number;
  /** 2 = GA, 1 = beta, 0 = alpha. */
  level: number;
  minor: number;
}

const kubeVersion = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

function parse(version: string): ParsedVersion | undefined {
  const m = kubeVersion.exec(version);
  if (!m) return undefined;
  const level = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return { major: Number(m[1]), level, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** Negative when `a` has the higher priority (so `versions.sort(compareVersionPriority)` puts the preferred first). */
export function compareVersionPriority(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.level !== pb.level) return pb.level - pa.level;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

/** Stability level of a version string, for --runtime-config's api/ga, api/beta and api/alpha keys. */
export function versionLevel(version: string): 'ga' | 'beta' | 'alpha' | 'unknown' {
  const p = parse(version);
  if (!p) return 'unknown';
  return p.level === 2 ? 'ga' : p.level === 1 ? 'beta' : 'alpha';
}

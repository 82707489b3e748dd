/**
 * Levels, versions and namespace labels of Pod Security admission
 * (k8s.io/pod-security-admission/api): a namespace's
 * `pod-security.kubernetes.io/<mode>[-version]` labels resolve to one
 * level:version per mode; labels that do not parse are field errors, and
 * fall back to restricted for enforce and to privileged for audit and warn.
 */

export type Level = 'privileged' | 'baseline' | 'restricted';

export const validLevels: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `latest` or v1.<minor>. */
export type Version = { latest: true } | { latest: false; minor: number };

export const latestVersion: Version = { latest: true };

export const versionString = (v: Version): string => (v.latest ? 'latest' : `v1.${v.minor}`);

export interface LevelVersion {
  level: Level;
  version: Version;
}

export const levelVersionString = (lv: LevelVersion): string => `${lv.level}:${versionString(lv.version)}`;

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean => levelVersionString(a) === levelVersionString(b);

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const labelPrefix = 'pod-security.kubernetes.io/';
export const enforceLevelLabel = `${labelPrefix}enforce`;
export const enforceVersionLabel = `${labelPrefix}enforce-version`;
export const auditLevelLabel = `${labelPrefix}audit`;
export const auditVersionLabel = `${labelPrefix}audit-version`;
export const warnLevelLabel = `${labelPrefix}warn`;
export const warnVersionLabel = `${labelPrefix}warn-version`;

/** Audit annotation keys, each written under the label prefix. */
export const exemptionReasonAnnotationKey = 'exempt';
export const auditViolationsAnnotationKey = 'audit-violations';
export const enforcedPolicyAnnotationKey = 'enforce-policy';

/** The kube-apiserver default PodSecurityConfiguration: everything privileged:latest, no exemptions. */
export const defaultPolicy: Policy = {
  enforce: { level: 'privileged', version: latestVersion },
  audit: { level: 'privileged', version: latestVersion },
  warn: { level: 'privileged', version: latestVersion },
};

/** One label that did not parse, as field.Invalid on metadata.labels[<key>]. */
export interface LabelError {
  field: string;
  value: string;
  detail: string;
}

const versionPattern = /^v1\.([0-9]|[1-9][0-9]*)$/;

export function parseLevel(value: string): Level | undefined {
  return (validLevels as readonly string[]).includes(value) ? (value as Level) : undefined;
}

export function parseVersion(value: string): Version | undefined {
  if (value === 'latest') return latestVersion;
  const m = versionPattern.exec(value);
  return m ? { latest: false, minor: Number(m[1]) } : undefined;
}

/** PolicyToEvaluate: the namespace labels over the defaults; a valid policy always comes back, with the label errors. */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy = defaultPolicy): { policy: Policy; errors: LabelError[] } {
  const policy: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: LabelError[] = [];
  if (!labels) return { policy, errors };
  const invalid = (key: string, value: string, detail: string) => errors.push({ field: `metadata.labels[${key}]`, value, detail });
  const modes = [
    ['enforce', enforceLevelLabel, enforceVersionLabel, 'restricted'],
    ['audit', auditLevelLabel, auditVersionLabel, 'privileged'],
    ['warn', warnLevelLabel, warnVersionLabel, 'privileged'],
  ] as const;
  for (const [mode, levelKey, versionKey, failLevel] of modes) {
    const level = labels[levelKey];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      // Enforce fails closed; audit and warn fail open.
      policy[mode].level = parsed ?? failLevel;
      if (!parsed) invalid(levelKey, level, `must be one of ${validLevels.join(', ')}`);
    }
    const version = labels[versionKey];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      policy[mode].version = parsed ?? latestVersion;
      if (!parsed) invalid(versionKey, version, 'must be "latest" or "v1.x"');
    }
  }
  return { policy, errors };
}

/** CompareLevels: -1 when a is less strict than b, 0 when equal, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  const rank = { privileged: 0, baseline: 1, restricted: 2 };
  return Math.sign(rank[a] - rank[b]);
}

export const fullyPrivileged = (p: Policy): boolean => p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';

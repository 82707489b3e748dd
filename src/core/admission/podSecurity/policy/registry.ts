/**
 * The check registry (policy/registry.go): for a level and version, the
 * revision of every check that applies, baseline checks first then
 * restricted ones, each group sorted by id, so messages list reasons in a
 * stable order. At restricted, a baseline check a restricted revision
 * overrides (hostPath volumes, baseline capabilities, baseline seccomp)
 * is left out. Versions newer than the newest check, and `latest`, evaluate
 * the newest revisions.
 */
import type { ObjectMeta } from '../../../api/types';
import type { LevelVersion } from '../api';
import { byteOrder, type Check, type CheckPodFn, type CheckResult, type PodSpec, type VersionedCheck } from './check';

export interface AggregateCheckResult {
  allowed: boolean;
  forbiddenReasons: string[];
  forbiddenDetails: string[];
}

export interface Evaluator {
  /** The policy minor `latest` (and any newer version) evaluates. */
  readonly maxVersion: number;
  evaluatePod(lv: LevelVersion, meta: ObjectMeta, spec: PodSpec): CheckResult[];
}

function revisionAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minimumVersion <= minor) found = v;
  return found;
}

/**
 * NewEvaluator; `emulatedMinor` (the server's minor) caps `latest`, as
 * kube-apiserver's emulation version does.
 */
export function newEvaluator(checks: readonly Check[], emulatedMinor?: number): Evaluator {
  const ids = new Set<string>();
  for (const c of checks) {
    if (ids.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    ids.add(c.id);
  }
  const ordered = [...checks.filter((c) => c.level === 'baseline').sort((a, b) => byteOrder(a.id, b.id)), ...checks.filter((c) => c.level === 'restricted').sort((a, b) => byteOrder(a.id, b.id))];
  let maxVersion = Math.max(...checks.map((c) => c.versions[c.versions.length - 1]!.minimumVersion));
  if (emulatedMinor !== undefined && emulatedMinor < maxVersion) maxVersion = emulatedMinor;
  const cache = new Map<string, CheckPodFn[]>();

  function checksFor(level: 'baseline' | 'restricted', minor: number): CheckPodFn[] {
    const key = `${level}:${minor}`;
    const known = cache.get(key);
    if (known) return known;
    const active = ordered.map((c) => ({ check: c, revision: revisionAt(c, minor) })).filter((a) => a.revision !== undefined);
    const overridden = new Set(level === 'restricted' ? active.filter((a) => a.check.level === 'restricted').flatMap((a) => a.revision!.overrideCheckIDs ?? []) : []);
    const fns = active.filter((a) => (level === 'baseline' ? a.check.level === 'baseline' : !overridden.has(a.check.id))).map((a) => a.revision!.checkPod);
    cache.set(key, fns);
    return fns;
  }

  return {
    maxVersion,
    evaluatePod(lv, meta, spec) {
      if (lv.level === 'privileged') return [];
      const minor = lv.version.latest || lv.version.minor > maxVersion ? maxVersion : lv.version.minor;
      return checksFor(lv.level, minor).map((fn) => fn(meta, spec));
    },
  };
}

export function aggregateCheckResults(results: readonly CheckResult[]): AggregateCheckResult {
  const forbiddenReasons: string[] = [];
  const forbiddenDetails: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    forbiddenReasons.push(r.forbiddenReason || 'unknown forbidden reason');
    forbiddenDetails.push(r.forbiddenDetail ?? '');
  }
  return { allowed: forbiddenReasons.length === 0, forbiddenReasons, forbiddenDetails };
}

/** `host ports, privileged` */
export const forbiddenReason = (r: AggregateCheckResult): string => r.forbiddenReasons.join(', ');

/** `host ports (8080, 9090), privileged (container "a" must not ...)` */
export const forbiddenDetail = (r: AggregateCheckResult): string => r.forbiddenReasons.map((reason, i) => (r.forbiddenDetails[i] ? `${reason} (${r.forbiddenDetails[i]})` : reason)).join(', ');

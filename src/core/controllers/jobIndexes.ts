/**
 * Completion indexes of Indexed Jobs (pkg/controller/job/indexed_job_utils.go):
 * a pod's index read from its annotation, and sets of indexes kept as ordered
 * intervals, written as status.completedIndexes and failedIndexes spell them
 * ("1,3-5,7": a run of two is "3,4", of three or more "3-5").
 */
import type { KubeObject } from '../api/types';

export const completionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';
/** No index, or one that does not parse (unknownCompletionIndex). */
export const unknownIndex = -1;

/** getCompletionIndex: the annotation as a non-negative integer, else unknownIndex. */
export function completionIndexOf(pod: KubeObject): number {
  const v = pod.metadata.annotations?.[completionIndexAnnotation];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return unknownIndex;
  const i = Number(v);
  return i < 0 || !Number.isSafeInteger(i) ? unknownIndex : i;
}

/** Closed intervals [first, last], ordered and neither overlapping nor touching. */
export type Intervals = readonly (readonly [number, number])[];

/** merge: the union of two interval lists. */
export function mergeIntervals(a: Intervals, b: Intervals): Intervals {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [first, last] of all) {
    const prev = out[out.length - 1];
    if (!prev || first > prev[1] + 1) out.push([first, last]);
    else if (prev[1] < last) prev[1] = last;
  }
  return out;
}

/** withOrderedIndexes: the intervals plus single indexes. */
export function withIndexes(a: Intervals, indexes: Iterable<number>): Intervals {
  return mergeIntervals(a, [...indexes].map((i) => [i, i] as const));
}

export function intervalsTotal(a: Intervals): number {
  return a.reduce((n, [first, last]) => n + last - first + 1, 0);
}

export function intervalsHave(a: Intervals, ix: number): boolean {
  return a.some(([first, last]) => first <= ix && ix <= last);
}

/** orderedIntervals.String. */
export function formatIntervals(a: Intervals): string {
  return a.map(([first, last]) => (last === first ? `${first}` : `${first}${last === first + 1 ? ',' : '-'}${last}`)).join(',');
}

/** parseIndexesFromString: indexes at or past completions are dropped, corrupt pieces skipped. */
export function parseIntervals(s: string | undefined, completions: number): Intervals {
  if (!s) return [];
  const out: [number, number][] = [];
  for (const piece of s.split(',')) {
    const [a, b] = piece.split('-');
    const first = Number.parseInt(a ?? '', 10);
    if (Number.isNaN(first)) continue;
    if (first >= completions) break;
    let last = first;
    if (b !== undefined) {
      last = Number.parseInt(b, 10);
      if (Number.isNaN(last)) continue;
      if (last >= completions) last = completions - 1;
    }
    const prev = out[out.length - 1];
    if (prev && prev[1] === first - 1) prev[1] = last;
    else out.push([first, last]);
  }
  return out;
}

/** firstPendingIndexes: the first `count` indexes below completions not in `taken`. */
export function firstPendingIndexes(taken: Intervals, count: number, completions: number): number[] {
  const out: number[] = [];
  for (let candidate = 0; candidate < completions && out.length < count; candidate++) {
    if (!intervalsHave(taken, candidate)) out.push(candidate);
  }
  return out;
}

/** podGenerateNameWithIndex: `<job>-<index>-`, the job name cut so the prefix fits a generated name (58). */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > 58 ? prefix.slice(0, 58 - suffix.length) + suffix : prefix;
}

/** How many indexes two interval lists share. */
function sharedCount(a: Intervals, b: Intervals): number {
  let n = 0;
  for (const [f1, l1] of a) for (const [f2, l2] of b) n += Math.max(0, Math.min(l1, l2) - Math.max(f1, f2) + 1);
  return n;
}

/**
 * matchSuccessPolicy: the message of the first successPolicy rule the
 * succeeded indexes meet (all its succeededIndexes, or succeededCount of
 * them, or succeededCount indexes at all), undefined when none does.
 */
export function matchSuccessPolicy(policy: unknown, completions: number, succeeded: Intervals): string | undefined {
  if (typeof policy !== 'object' || policy === null || !succeeded.length) return undefined;
  const rules = (policy as { rules?: unknown }).rules;
  for (const [index, rule] of (Array.isArray(rules) ? rules : []).entries()) {
    const r = (typeof rule === 'object' && rule !== null ? rule : {}) as { succeededIndexes?: unknown; succeededCount?: unknown };
    const count = typeof r.succeededCount === 'number' ? r.succeededCount : undefined;
    if (typeof r.succeededIndexes === 'string') {
      const required = parseIntervals(r.succeededIndexes, completions);
      if (!required.length) continue;
      const shared = sharedCount(required, succeeded);
      if (shared === intervalsTotal(required) || (count !== undefined && shared >= count)) return `Matched rules at index ${index}`;
    } else if (count !== undefined && intervalsTotal(succeeded) >= count) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}

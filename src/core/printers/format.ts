/**
 * Cell formatting shared by several printers: label maps and selectors as
 * kubectl's label syntax, container name/image lists, int-or-string values,
 * access modes, booleans and the "a,b,c + N more..." truncation.
 */

import {
  isSelectorError,
  labelSelectorFromObject,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
} from '../selectors';

/** Reads a field path through decoded JSON without trusting its shape. */
export function field(obj: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function arr<T = unknown>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Go's byte-wise string order, which sort.Strings and sets.List use. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** labels.FormatLabels: `k=v` pairs sorted by key, or `<none>`. */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(record(labels)).sort(([a], [b]) => compareStrings(a, b));
  if (entries.length === 0) return '<none>';
  return entries.map(([k, v]) => `${k}=${str(v)}`).join(',');
}

/**
 * LabelSelectorAsSelector(...).String(): requirements sorted by key, matchLabels
 * as `k=v`, set operators with sorted values. A nil or empty selector prints as
 * the empty string; an invalid one yields undefined.
 */
export function labelSelectorString(selector: unknown): string | undefined {
  const object = selector === undefined || selector === null ? undefined : (record(selector) as LabelSelectorObject);
  const parsed = labelSelectorFromObject(object);
  return isSelectorError(parsed) ? undefined : parsed.toString();
}

/** metav1.FormatLabelSelector: `<none>` for nil/empty, `<error>` for invalid. */
export function formatLabelSelector(selector: unknown): string {
  const text = labelSelectorString(selector);
  if (text === undefined) return '<error>';
  return text === '' ? '<none>' : text;
}

/** Go's generated LabelSelector.String() (used where kube prints the struct itself). */
export function labelSelectorGoString(selector: unknown): string {
  const sel = record(selector) as LabelSelectorObject;
  const labels = Object.entries(record(sel.matchLabels))
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([k, v]) => `${k}: ${str(v)},`)
    .join('');
  const exprs = arr<LabelSelectorRequirementObject>(sel.matchExpressions)
    .map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${arr<string>(e.values).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** layoutContainerCells: comma-joined container names and images. */
export function containerCells(containers: unknown): [string, string] {
  const list = arr(containers);
  return [list.map((c) => str(field(c, 'name'))).join(','), list.map((c) => str(field(c, 'image'))).join(',')];
}

/** intstr.IntOrString.String(). */
export function intOrString(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return str(value);
}

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that fixed order. */
export function accessModesString(modes: unknown): string {
  const set = new Set(arr<string>(modes));
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

/** printBoolPtr: True, False, or <unset>. */
export function boolPtr(value: unknown): string {
  if (typeof value !== 'boolean') return '<unset>';
  return value ? 'True' : 'False';
}

/** listWithMoreString: `a,b,c + N more...`, or `<unset>` when nothing was listed. */
export function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const joined = list.join(',');
  if (more) return `${joined} + ${count - max} more...`;
  return joined === '' ? '<unset>' : joined;
}

/** net.JoinHostPort: IPv6 literals go in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Go's %#v rendering of the values kube's workload validation puts in a
 * field error (a label map, a *metav1.LabelSelector, an IntOrString, a
 * Toleration): field.Error prints non-string, non-Stringer values that way,
 * and kubectl shows the text verbatim.
 */
import { isObject } from '../../api/types';
import { goQuote } from '../../errors';

/** map[string]string: sorted keys, `map[string]string{"a":"b", "c":"d"}`, nil as `map[string]string(nil)`. */
export function goStringMap(m: unknown): string {
  if (!isObject(m)) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`;
}

function goStrings(v: unknown): string {
  return Array.isArray(v) ? `[]string{${v.map((s) => goQuote(String(s))).join(', ')}}` : '[]string(nil)';
}

/** v1.LabelSelector as %#v prints a dereferenced *metav1.LabelSelector. */
export function goLabelSelector(sel: unknown): string {
  const s = isObject(sel) ? sel : {};
  const exprs = s['matchExpressions'];
  const reqs = Array.isArray(exprs)
    ? `[]v1.LabelSelectorRequirement{${exprs
        .map((e) => {
          const r = isObject(e) ? e : {};
          return `v1.LabelSelectorRequirement{Key:${goQuote(String(r['key'] ?? ''))}, Operator:${goQuote(String(r['operator'] ?? ''))}, Values:${goStrings(r['values'])}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(s['matchLabels'])}, MatchExpressions:${reqs}}`;
}

/** intstr.IntOrString by value: `intstr.IntOrString{Type:1, IntVal:0, StrVal:"25%"}`. */
export function goIntOrString(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  return `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
}

/** core.Toleration by value (TolerationSeconds shown only when nil; Go would print an address otherwise). */
export function goToleration(t: Record<string, unknown>): string {
  const secs = t['tolerationSeconds'] === undefined || t['tolerationSeconds'] === null ? '(*int64)(nil)' : `(*int64)(${String(t['tolerationSeconds'])})`;
  const s = (k: string) => goQuote(typeof t[k] === 'string' ? (t[k] as string) : '');
  return `core.Toleration{Key:${s('key')}, Operator:${s('operator')}, Value:${s('value')}, Effect:${s('effect')}, TolerationSeconds:${secs}}`;
}

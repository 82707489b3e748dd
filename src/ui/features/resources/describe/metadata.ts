/**
 * What `kubectl describe` prints about any object's metadata: labels as
 * `key=value` and annotations as `key: value`, each sorted by key (the
 * last-applied-configuration annotation left out, as describe leaves it
 * out), the controller as `Kind/name`, and times in Go's RFC1123Z.
 */
import { compareStrings, record, str } from '../../../../core/printers/format';
import { parseTimestamp } from '../../../../core/printers/duration';
import type { KubeObject } from '../../../api';

/** describe's printAnnotationsMultiline skips this one: it repeats the whole object. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Longer `key: value` annotations, or multi-line ones, go on lines of their own, each cut at this width. */
const MAX_ANNOTATION_LEN = 140;

function sortedEntries(map: unknown): [string, string][] {
  return Object.entries(record(map))
    .map(([k, v]): [string, string] => [k, str(v)])
    .sort(([a], [b]) => compareStrings(a, b));
}

/** printLabelsMultiline: one `key=value` per line; none is `<none>`. */
export function labelLines(labels: unknown): string[] {
  const lines = sortedEntries(labels).map(([k, v]) => `${k}=${v}`);
  return lines.length > 0 ? lines : ['<none>'];
}

function shorten(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

/** printAnnotationsMultiline: `key: value`, or a long or multi-line value under its key, indented and shortened. */
export function annotationLines(annotations: unknown): string[] {
  const lines: string[] = [];
  for (const [key, raw] of sortedEntries(annotations)) {
    if (key === LAST_APPLIED) continue;
    const value = raw.replace(/\n$/, '');
    if (value.length + key.length + 2 > MAX_ANNOTATION_LEN || value.includes('\n')) {
      lines.push(`${key}:`, ...value.split('\n').map((s) => `  ${shorten(s, MAX_ANNOTATION_LEN - 2)}`));
    } else lines.push(`${key}: ${value}`);
  }
  return lines.length > 0 ? lines : ['<none>'];
}

/** printController: the owner reference with controller true, as `Kind/name`; '' when none. */
export function controlledBy(object: KubeObject): string {
  const owner = (object.metadata?.ownerReferences ?? []).find((ref) => ref.controller === true);
  return owner ? `${owner.kind}/${owner.name}` : '';
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * Go's time.RFC1123Z (`Mon, 02 Jan 2006 15:04:05 -0700`), in the zone
 * `offsetMinutes` east of UTC (the browser's own by default, as kubectl
 * prints in the machine's zone). Unset or zero times print as Go prints
 * its zero time.
 */
export function rfc1123z(timestamp: unknown, offsetMinutes?: number): string {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) return 'Mon, 01 Jan 0001 00:00:00 +0000';
  const offset = offsetMinutes ?? -new Date(ms).getTimezoneOffset();
  const t = new Date(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${pad(Math.trunc(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
  return `${DAYS[t.getUTCDay()]}, ${pad(t.getUTCDate())} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())} ${zone}`;
}

/**
 * Human-readable ages, as k8s.io/apimachinery/pkg/util/duration.HumanDuration
 * prints them: about two significant figures, switching units at fixed
 * thresholds (120s, 10m, 3h, 8h, 48h, 8d, 2y, 8y).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Formats a duration given in milliseconds. */
export function humanDuration(ms: number): string {
  // Up to 2s in the future counts as now, to tolerate clock skew between machines.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;

  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;

  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const days = Math.trunc(hours / 24);
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

// Date.UTC maps years 0-99 to 1900-1999, so the zero time is spelled out.
const ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/** Milliseconds since the epoch of an RFC 3339 timestamp; undefined when absent or Go's zero time. */
export function parseTimestamp(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) return undefined;
  // metav1.Time's zero value (0001-01-01T00:00:00Z) is "unset".
  if (ms === ZERO_TIME) return undefined;
  return ms;
}

/** translateTimestampSince: the age of a timestamp, `<unknown>` when it is unset. */
export function timestampSince(ts: unknown, now: Date): string {
  const ms = parseTimestamp(ts);
  if (ms === undefined) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}

/**
 * Server settings of the service-worker host, carried in the worker script's
 * URL (the page registers `/sw.js?watchHistoryWindow=10m`), the counterpart
 * of the Node host's flags. A changed setting is a changed script URL, so the
 * browser installs the worker again with it.
 */
export interface WorkerSettings {
  /** Watch history window and continue-token lifetime (the Node host's --etcd-compaction-interval). */
  watchHistoryWindowMs?: number;
}

/** The settings' URL parameter names, shared by the page and the worker. */
export const settingParams = { watchHistoryWindow: 'watchHistoryWindow' } as const;

/** A Go-style duration (`90s`, `5m`, `1h30m`) in ms, or undefined when malformed. */
export function parseDurationMs(value: string): number | undefined {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed += m[0].length;
  }
  return value && consumed === value.length && total > 0 ? total : undefined;
}

export function settingsFromUrl(url: URL): WorkerSettings {
  const settings: WorkerSettings = {};
  const window = url.searchParams.get(settingParams.watchHistoryWindow);
  if (window) settings.watchHistoryWindowMs = parseDurationMs(window);
  return settings;
}

/** The worker script URL carrying the settings (page side). */
export function workerUrlWith(base: string, settings: { watchHistoryWindow?: string }): string {
  const url = new URL(base, 'http://placeholder');
  if (settings.watchHistoryWindow) url.searchParams.set(settingParams.watchHistoryWindow, settings.watchHistoryWindow);
  return url.pathname + url.search;
}

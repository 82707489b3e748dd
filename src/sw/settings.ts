/**
 * Server settings of the service-worker host, carried in the worker script's
 * URL (the page registers `/sw.js?watchHistoryWindow=10m`), the counterpart
 * of the Node host's flags. A changed setting is a changed script URL, so the
 * browser installs the worker again with it.
 */
export interface WorkerSettings {
  /** Watch history window and continue-token lifetime (the Node host's --etcd-compaction-interval). */
  watchHistoryWindowMs?: number;
  /** Static token table, CSV as --token-auth-file reads it. */
  tokens?: string;
  /** Ordered authorization modes, as --authorization-mode (`RBAC`, `AlwaysAllow`, ...). */
  authorizationMode?: string;
  /** As --feature-gates: `AllowUnsafeMalformedObjectDeletion=true,...`. */
  featureGates?: string;
  /** As --controllers: `*,-deployment-controller`. */
  controllers?: string;
  /** As --fake-clock: `true` (from now) or an RFC 3339 start time. */
  fakeClock?: string;
  /** As --simulated-nodes: how many simulated nodes run pods. */
  simulatedNodes?: string;
}

/** What the page sets (the same names are the URL parameters). */
export interface PageSettings {
  watchHistoryWindow?: string;
  tokens?: string;
  authorizationMode?: string;
  featureGates?: string;
  controllers?: string;
  fakeClock?: string;
  simulatedNodes?: string;
}

/** The settings' URL parameter names, shared by the page and the worker. */
export const settingParams = {
  watchHistoryWindow: 'watchHistoryWindow', tokens: 'tokens', authorizationMode: 'authorizationMode',
  featureGates: 'featureGates', controllers: 'controllers', fakeClock: 'fakeClock', simulatedNodes: 'simulatedNodes',
} as const;

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
  const tokens = url.searchParams.get(settingParams.tokens);
  if (tokens) settings.tokens = tokens;
  const modes = url.searchParams.get(settingParams.authorizationMode);
  if (modes) settings.authorizationMode = modes;
  for (const name of ['featureGates', 'controllers', 'fakeClock', 'simulatedNodes'] as const) {
    const value = url.searchParams.get(settingParams[name]);
    if (value) settings[name] = value;
  }
  return settings;
}

/** The worker script URL carrying the settings (page side). */
export function workerUrlWith(base: string, settings: PageSettings): string {
  const url = new URL(base, 'http://placeholder');
  for (const name of Object.keys(settingParams) as (keyof PageSettings)[]) {
    const value = settings[name];
    if (value) url.searchParams.set(settingParams[name], value);
  }
  return url.pathname + url.search;
}

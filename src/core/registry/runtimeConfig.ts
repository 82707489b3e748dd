/**
 * kube-apiserver's --runtime-config: which group versions (and single
 * resources) are served. Keys are `api/all`, `api/ga`, `api/beta`,
 * `api/alpha`, `<group>/<version>` (`v1` or `api/v1` for the core group) and
 * `<group>/<version>/<resource>`; a key without a value means true.
 */
import { versionLevel } from './versionPriority';

export interface RuntimeConfig {
  all?: boolean;
  levels: Partial<Record<'ga' | 'beta' | 'alpha', boolean>>;
  /** Keyed "group/version" (core: "/v1"). */
  groupVersions: Map<string, boolean>;
  /** Keyed "group/version/resource" (core: "/v1/pods"). */
  resources: Map<string, boolean>;
}

export class RuntimeConfigError extends Error {}

export function emptyRuntimeConfig(): RuntimeConfig {
  return { levels: {}, groupVersions: new Map(), resources: new Map() };
}

function parseBool(key: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw new RuntimeConfigError(`invalid value of ${key}: ${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

/** Splits `batch/v1`, `batch/v1/jobs`, `v1`, `api/v1` or `api/v1/pods` (the last three name the core group). */
function splitKey(key: string): { group: string; version: string; resource?: string } {
  const core = key.startsWith('api/');
  const parts = (core ? key.slice('api/'.length) : key).split('/');
  if (core || parts.length === 1) {
    if (parts.length > 2 || !parts[0]) throw new RuntimeConfigError(`invalid key ${key}`);
    return { group: '', version: parts[0], resource: parts[1] };
  }
  if (parts.length > 3 || !parts[0] || !parts[1]) throw new RuntimeConfigError(`invalid key ${key}`);
  return { group: parts[0], version: parts[1], resource: parts[2] };
}

/** Parses a --runtime-config value; throws RuntimeConfigError on malformed entries. */
export function parseRuntimeConfig(value: string | undefined): RuntimeConfig {
  const config = emptyRuntimeConfig();
  if (!value) return config;
  for (const entry of value.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const key = eq < 0 ? trimmed : trimmed.slice(0, eq);
    const enabled = parseBool(key, eq < 0 ? undefined : trimmed.slice(eq + 1));
    if (key === 'api/all') {
      config.all = enabled;
    } else if (key === 'api/ga' || key === 'api/beta' || key === 'api/alpha') {
      config.levels[key.slice(4) as 'ga' | 'beta' | 'alpha'] = enabled;
    } else {
      const { group, version, resource } = splitKey(key);
      if (resource === undefined) config.groupVersions.set(`${group}/${version}`, enabled);
      else config.resources.set(`${group}/${version}/${resource}`, enabled);
    }
  }
  return config;
}

/** Whether a group version is served, given its default and the runtime config. */
export function groupVersionServed(config: RuntimeConfig, group: string, version: string, byDefault: boolean): boolean {
  const explicit = config.groupVersions.get(`${group}/${version}`);
  if (explicit !== undefined) return explicit;
  const level = versionLevel(version);
  if (level !== 'unknown' && config.levels[level] !== undefined) return config.levels[level]!;
  if (config.all !== undefined) return config.all;
  return byDefault;
}

/** Whether one resource is served: an explicit resource entry wins over its group version. */
export function resourceServed(
  config: RuntimeConfig,
  group: string,
  version: string,
  resource: string,
  gvServed: boolean,
): boolean {
  const explicit = config.resources.get(`${group}/${version}/${resource}`);
  return explicit ?? gvServed;
}

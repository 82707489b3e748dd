/**
 * Who the workbench is, and what the tab's API server checks: a static token
 * table and authorization modes (the worker's counterparts of
 * --token-auth-file and --authorization-mode), and the token the workbench
 * sends. Kept in localStorage: the server settings ride on the worker's
 * script URL, so changing them installs the worker again.
 */
export const ACCESS_KEYS = { tokens: 'kubesim.tokens', authorizationMode: 'kubesim.authorizationMode', token: 'kubesim.token' } as const;

export interface AccessSettings {
  /** CSV `token,user,uid,"group1,group2"`; empty: no token authentication. */
  tokens: string;
  /** `RBAC`, `AlwaysAllow`, ...; empty: AlwaysAllow. */
  authorizationMode: string;
  /** The bearer token the workbench sends; empty: anonymous. */
  token: string;
}

export function readAccessSettings(storage: Pick<Storage, 'getItem'> = localStorage): AccessSettings {
  return {
    tokens: storage.getItem(ACCESS_KEYS.tokens) ?? '',
    authorizationMode: storage.getItem(ACCESS_KEYS.authorizationMode) ?? '',
    token: storage.getItem(ACCESS_KEYS.token) ?? '',
  };
}

export function writeAccessSettings(settings: AccessSettings, storage: Pick<Storage, 'setItem' | 'removeItem'> = localStorage): void {
  for (const key of Object.keys(ACCESS_KEYS) as (keyof AccessSettings)[]) {
    const value = settings[key].trim();
    if (value) storage.setItem(ACCESS_KEYS[key], key === 'tokens' ? settings[key] : value);
    else storage.removeItem(ACCESS_KEYS[key]);
  }
}

/** The users a token table names, for the "act as" choice: token and user name. */
export function tokenUsers(tokens: string): { token: string; user: string }[] {
  return tokens
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(','))
    .filter((cells) => cells.length >= 2 && cells[0] && cells[1])
    .map((cells) => ({ token: cells[0]!.trim(), user: cells[1]!.trim() }));
}

/** Adds the chosen bearer token to the workbench's requests (never overriding one already set). */
export function withBearerToken(request: Request, token: string): Request {
  if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
  return request;
}

/** Feature gates of this tab's server (`Name=true,Other=false`, as --feature-gates); a scenario's settings set them. */
export const FEATURE_GATES_KEY = 'kubesim.featureGates';
/** `true` when this tab's server runs on a fake clock (--fake-clock); a scenario's settings set it. */
export const FAKE_CLOCK_KEY = 'kubesim.fakeClock';
/** The controllers this tab's server runs (`*,-deployment-controller`, as --controllers); a scenario's settings set them. */
export const CONTROLLERS_KEY = 'kubesim.controllers';
/** How many simulated nodes this tab's server runs (as --simulated-nodes); the Access panel and a scenario's settings set it. */
export const SIMULATED_NODES_KEY = 'kubesim.simulatedNodes';
/** The token of the identity scenarios run as in this tab: a member of system:masters, as the headless runner's admin. */
export const SCENARIO_TOKEN_KEY = 'kubesim.scenarioToken';
export const SCENARIO_ADMIN = 'kubesim-scenario-admin';

/**
 * What the tab's server is started with (the worker script's settings): the
 * Access panel's token table and modes, the feature gates, the controllers,
 * the fake clock, the simulated nodes and, once a scenario ran here, the line of the scenario identity's token.
 */
export function tabServerSettings(storage: Pick<Storage, 'getItem'> = localStorage): { tokens?: string; authorizationMode?: string; featureGates?: string; controllers?: string; fakeClock?: string; simulatedNodes?: string } {
  const access = readAccessSettings(storage);
  const scenarioToken = storage.getItem(SCENARIO_TOKEN_KEY);
  const scenarioLine = scenarioToken ? `${scenarioToken},${SCENARIO_ADMIN},${SCENARIO_ADMIN},system:masters\n` : '';
  const table = access.tokens && !access.tokens.endsWith('\n') ? `${access.tokens}\n` : access.tokens;
  return {
    tokens: table + scenarioLine || undefined,
    authorizationMode: access.authorizationMode || undefined,
    featureGates: storage.getItem(FEATURE_GATES_KEY) || undefined,
    controllers: storage.getItem(CONTROLLERS_KEY) || undefined,
    fakeClock: storage.getItem(FAKE_CLOCK_KEY) || undefined,
    simulatedNodes: storage.getItem(SIMULATED_NODES_KEY) || undefined,
  };
}

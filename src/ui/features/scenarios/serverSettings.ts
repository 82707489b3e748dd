/**
 * A scenario's settings as the tab's server settings, so a replay in the
 * workbench runs on the server the headless runner would build: the same
 * authorization modes, feature gates, controllers, fake clock and simulated nodes (absent ones
 * are the defaults), and
 * the same admin identity (a member of system:masters) that applies the
 * objects and impersonates each step's `as:` user.
 */
import { ACCESS_KEYS, CONTROLLERS_KEY, FAKE_CLOCK_KEY, FEATURE_GATES_KEY, SCENARIO_TOKEN_KEY, SIMULATED_NODES_KEY } from '../access/settings';
import type { ScenarioSettings } from './scenario';

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The server settings a scenario asks for; '' is the default (AlwaysAllow, no gates changed). */
export interface ServerSettings {
  authorizationMode: string;
  /** `Name=true,Other=false`, sorted by name. */
  featureGates: string;
  /** As --controllers (`*,-deployment-controller`); '' runs the default set. */
  controllers: string;
  /** A fake clock from the real time when the server starts, that `advanceClock` steps move (POST /debug/kubesim/clock). */
  fakeClock: boolean;
  /** As --simulated-nodes; 0: none. */
  simulatedNodes: number;
}

export function scenarioServerSettings(settings: ScenarioSettings): ServerSettings {
  const gates = Object.entries(settings.featureGates ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, on]) => `${name}=${on}`)
    .join(',');
  // AlwaysAllow is kube-apiserver's default mode: the tab's server without a mode.
  const mode = settings.authorizationMode?.trim() ?? '';
  const controllers = settings.controllers === undefined ? [] : Array.isArray(settings.controllers) ? settings.controllers : [settings.controllers];
  return { authorizationMode: mode === 'AlwaysAllow' ? '' : mode, featureGates: gates, controllers: controllers.map(String).join(','), fakeClock: settings.fakeClock === true, simulatedNodes: settings.simulatedNodes ?? 0 };
}

export function readServerSettings(storage: Pick<Storage, 'getItem'> = localStorage): ServerSettings {
  return {
    authorizationMode: storage.getItem(ACCESS_KEYS.authorizationMode) ?? '',
    featureGates: storage.getItem(FEATURE_GATES_KEY) ?? '',
    controllers: storage.getItem(CONTROLLERS_KEY) ?? '',
    fakeClock: storage.getItem(FAKE_CLOCK_KEY) === 'true',
    simulatedNodes: Number(storage.getItem(SIMULATED_NODES_KEY) ?? 0) || 0,
  };
}

/**
 * What differs between the tab's server and the scenario's, one line each
 * (`authorization mode RBAC (was AlwaysAllow)`), plus the scenario identity
 * when the tab's server does not know it yet; empty when nothing changes.
 */
export function serverSettingsChanges(current: ServerSettings, wanted: ServerSettings, storage: Pick<Storage, 'getItem'> = localStorage): string[] {
  const changes: string[] = [];
  const mode = (m: string) => m || 'AlwaysAllow (the default)';
  const gates = (g: string) => g || 'the defaults';
  if (current.authorizationMode !== wanted.authorizationMode) changes.push(`authorization mode ${mode(wanted.authorizationMode)} (was ${mode(current.authorizationMode)})`);
  if (current.featureGates !== wanted.featureGates) changes.push(`feature gates ${gates(wanted.featureGates)} (was ${gates(current.featureGates)})`);
  if (current.controllers !== wanted.controllers) changes.push(`controllers ${wanted.controllers || 'the defaults'} (was ${current.controllers || 'the defaults'})`);
  if (current.fakeClock !== wanted.fakeClock) changes.push(wanted.fakeClock ? 'a fake clock, from the real time when the server starts (was the real clock)' : 'the real clock (was a fake clock)');
  if (current.simulatedNodes !== wanted.simulatedNodes) changes.push(`${wanted.simulatedNodes || 'no'} simulated nodes (was ${current.simulatedNodes || 'none'})`);
  if (!storage.getItem(SCENARIO_TOKEN_KEY)) changes.push('the scenario identity kubesim-scenario-admin (system:masters) in the token table');
  return changes;
}

/** Stores the scenario's settings as the tab's (the worker is then registered again with them). */
export function writeServerSettings(wanted: ServerSettings, storage: Storage = localStorage): void {
  if (wanted.authorizationMode) storage.setItem(ACCESS_KEYS.authorizationMode, wanted.authorizationMode);
  else storage.removeItem(ACCESS_KEYS.authorizationMode);
  if (wanted.featureGates) storage.setItem(FEATURE_GATES_KEY, wanted.featureGates);
  else storage.removeItem(FEATURE_GATES_KEY);
  if (wanted.controllers) storage.setItem(CONTROLLERS_KEY, wanted.controllers);
  else storage.removeItem(CONTROLLERS_KEY);
  if (wanted.fakeClock) storage.setItem(FAKE_CLOCK_KEY, 'true');
  else storage.removeItem(FAKE_CLOCK_KEY);
  if (wanted.simulatedNodes) storage.setItem(SIMULATED_NODES_KEY, String(wanted.simulatedNodes));
  else storage.removeItem(SIMULATED_NODES_KEY);
  if (!storage.getItem(SCENARIO_TOKEN_KEY)) storage.setItem(SCENARIO_TOKEN_KEY, crypto.randomUUID());
}

/** The bearer token scenario requests carry in this tab. */
export function scenarioToken(storage: Pick<Storage, 'getItem'> = localStorage): string {
  return storage.getItem(SCENARIO_TOKEN_KEY) ?? '';
}

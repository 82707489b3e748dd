/**
 * The worker's settings as the core's server options: the browser's
 * counterpart of the Node host's --token-auth-file, --authorization-mode,
 * --feature-gates, --controllers and --fake-clock,
 * so policies can be tried in the tab with the same table and modes.
 */
import type { ApiServerOptions } from '../core';
import { parseTokenFile } from '../core/auth/authenticator/tokenfile';
import { authorizerFromModes, parseAuthorizationModes, usesRBAC } from '../core/auth/authorizer/modes';
import { parseControllers } from '../core/controllers/names';
import { parseFeatureGates } from '../core/features';
import { FakeClock } from '../core/util/clock';
import type { WorkerSettings } from './settings';

/** Throws (with the flag-style message) when the token table, the modes or the gates are invalid; the worker then answers 503 with it. */
export function serverOptionsFrom(settings: WorkerSettings): Partial<ApiServerOptions> {
  const options: Partial<ApiServerOptions> = {};
  if (settings.watchHistoryWindowMs !== undefined) options.watchHistoryWindowMs = settings.watchHistoryWindowMs;
  if (settings.tokens) options.authentication = { tokenFile: parseTokenFile(settings.tokens, 'the workbench token table') };
  if (settings.authorizationMode) {
    const modes = parseAuthorizationModes(settings.authorizationMode);
    options.authorizer = authorizerFromModes(modes);
    options.rbacBootstrap = usesRBAC(modes);
  }
  if (settings.featureGates) options.featureGates = parseFeatureGates(settings.featureGates);
  if (settings.controllers) options.controllers = parseControllers(settings.controllers.split(',').filter(Boolean));
  if (settings.fakeClock && settings.fakeClock !== 'false') {
    const start = settings.fakeClock === 'true' ? new Date() : new Date(settings.fakeClock);
    if (Number.isNaN(start.getTime())) throw new Error(`invalid fakeClock ${JSON.stringify(settings.fakeClock)}: not an RFC 3339 time`);
    options.clock = new FakeClock(start);
  }
  if (settings.simulatedNodes) {
    const n = Number(settings.simulatedNodes);
    if (!/^\d+$/.test(settings.simulatedNodes) || n > 100) throw new Error(`invalid simulatedNodes ${JSON.stringify(settings.simulatedNodes)}: a whole number from 0 to 100`);
    options.simulatedNodes = n;
  }
  return options;
}

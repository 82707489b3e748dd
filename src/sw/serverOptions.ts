/**
 * The worker's settings as the core's server options: the browser's
 * counterpart of the Node host's --token-auth-file, --authorization-mode and
 * --feature-gates, so policies and scenarios run in the tab as on the host.
 */
import type { ApiServerOptions } from '../core';
import { parseTokenFile } from '../core/auth/authenticator/tokenfile';
import { authorizerFromModes, parseAuthorizationModes, usesRBAC } from '../core/auth/authorizer/modes';
import { parseFeatureGates } from '../core/features';
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
  return options;
}

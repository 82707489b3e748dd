/**
 * `kubesim run scenario.yaml` (npm run serve -- run scenario.yaml): plays a
 * workbench scenario headless against a fresh in-process API server built
 * from the scenario's settings (authorization mode, feature gates, a fake
 * clock), prints one line per step, and exits 0 when every expectation
 * held, 1 when one failed, 2 when the scenario or its setup is invalid.
 *
 * The runner holds an admin token (a member of system:masters) and acts as
 * a step's `as:` user by impersonation, exactly as it does against a
 * cluster from a kubeconfig.
 *
 * With `--kubeconfig <file>` the same scenario runs against that cluster
 * (kubesim's Node host or a real Kubernetes), to compare the two, with the
 * kubeconfig's token or client certificate (kubeconfig.ts).
 */
import { readFile } from 'node:fs/promises';
import { createApiServer, createMemoryStorage, FakeClock } from '../src/core';
import type { FeatureGates } from '../src/core/features';
import { parseControllers } from '../src/core/controllers/names';
import { describeStep, parseScenario, type Scenario } from '../src/ui/features/scenarios/scenario';
import { clockAdvancer, impersonationHeaders, runScenario, type ScenarioTarget } from '../src/ui/features/scenarios/runner';
import { parseTokenFile } from '../src/core/auth/authenticator/tokenfile';
import { hostAuthorization } from './authorization';
import { clusterFetch, readKubeconfig } from './kubeconfig';


export interface RunOutput {
  write(line: string): void;
}

/**
 * A running server: requests go to it as the runner's user; `as:` users are
 * impersonated (Impersonate-User and Impersonate-Group), so that user needs
 * the impersonate verb.
 */
function clusterTarget(server: string, send: (request: Request) => Promise<Response>, token?: string): ScenarioTarget {
  return {
    baseUrl: server,
    fetch: (request) => {
      if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
      return send(request);
    },
    identify: impersonationHeaders,
  };
}

export async function runScenarioCommand(args: readonly string[], out: RunOutput = { write: (l) => process.stdout.write(`${l}\n`) }): Promise<number> {
  const rest = [...args];
  let kubeconfigPath: string | undefined;
  const flag = rest.findIndex((a) => a === '--kubeconfig' || a.startsWith('--kubeconfig='));
  if (flag >= 0) {
    const [arg] = rest.splice(flag, 1);
    kubeconfigPath = arg!.includes('=') ? arg!.slice(arg!.indexOf('=') + 1) : rest.splice(flag, 1)[0];
  }
  const file = rest[0];
  if (!file || rest.length > 1 || (flag >= 0 && !kubeconfigPath)) {
    out.write('usage: kubesim run [--kubeconfig <file>] <scenario.yaml>');
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    out.write(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const parsed = parseScenario(text);
  if (!parsed.ok) {
    for (const e of parsed.errors) out.write(`error: ${e}`);
    return 2;
  }
  const { scenario } = parsed;
  if (kubeconfigPath !== undefined) {
    let target: ScenarioTarget;
    try {
      const connection = await readKubeconfig(kubeconfigPath);
      target = clusterTarget(connection.server, clusterFetch(connection));
      // A kubesim Node host started with --fake-clock moves its clock for advanceClock steps; elsewhere they fail with the server's answer.
      target.advanceClock = clockAdvancer(target.fetch, connection.server);
    } catch (error) {
      out.write(`error: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
    if (scenario.settings.authorizationMode || scenario.settings.featureGates || scenario.settings.fakeClock || scenario.settings.controllers || scenario.settings.simulatedNodes) {
      out.write('note: settings are not applied to a cluster from a kubeconfig; it runs as configured');
    }
    return play(scenario, target, out);
  }
  const clock = scenario.settings.fakeClock ? new FakeClock() : undefined;
  const adminToken = crypto.randomUUID();
  let authz;
  try {
    authz = hostAuthorization({ authorizationModes: scenario.settings.authorizationMode });
  } catch (error) {
    out.write(`error: settings.authorizationMode: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  let controllers: string[] | undefined;
  try {
    if (scenario.settings.controllers !== undefined) controllers = parseControllers((Array.isArray(scenario.settings.controllers) ? scenario.settings.controllers : [scenario.settings.controllers]).map(String));
  } catch (error) {
    authz.stop();
    out.write(`error: settings.controllers: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const server = createApiServer({
    storage: createMemoryStorage(),
    clock,
    featureGates: scenario.settings.featureGates as Partial<FeatureGates> | undefined,
    controllers,
    simulatedNodes: scenario.settings.simulatedNodes,
    authorizer: authz.authorizer,
    rbacBootstrap: authz.rbacBootstrap,
    authentication: { tokenFile: parseTokenFile(`${adminToken},kubesim-scenario-admin,kubesim-scenario-admin,system:masters\n`) },
  });
  try {
    await server.ready;
    const target: ScenarioTarget = {
      ...clusterTarget('http://kubesim.scenario', (request) => server.handle(request), adminToken),
      advanceClock: clock
        ? async (ms) => {
            clock.advance(ms);
            // Let timers that the clock woke (compaction, watch expiry) run.
            for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
          }
        : undefined,
    };
    return await play(scenario, target, out);
  } finally {
    authz.stop();
    await server.close();
  }
}

/** Plays the scenario on a target, printing a line per step; the exit code. */
async function play(scenario: Scenario, target: ScenarioTarget, out: RunOutput): Promise<number> {
  out.write(`scenario: ${scenario.name}`);
  let outcome;
  try {
    outcome = await runScenario(scenario, target, (result) => {
      const step = scenario.steps[result.index]!;
      out.write(`${result.passed ? 'PASS' : 'FAIL'} ${describeStep(step, result.index)}${result.status !== undefined ? ` -> ${result.status}${result.reason ? ` ${result.reason}` : ''}` : ''}`);
      for (const failure of result.failures) out.write(`     ${failure}`);
    });
  } catch (error) {
    out.write(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  if (!outcome.setup.ok) {
    out.write(`error: objects: ${outcome.setup.message}`);
    return 2;
  }
  const failed = outcome.results.filter((r) => !r.passed).length;
  out.write(`${outcome.results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

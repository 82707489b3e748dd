/**
 * `kubesim run scenario.yaml` (npm run serve -- run scenario.yaml): plays a
 * workbench scenario headless against a fresh in-process API server built
 * from the scenario's settings (authorization mode, feature gates, a fake
 * clock), prints one line per step, and exits 0 when every expectation
 * held, 1 when one failed, 2 when the scenario or its setup is invalid.
 *
 * Requests as a user carry `Authorization: Bearer <user>,<group>...`, read
 * by the test-only authenticator that names the user in the token; the
 * objects are applied as a member of system:masters.
 */
import { readFile } from 'node:fs/promises';
import { createApiServer, createMemoryStorage, FakeClock } from '../src/core';
import type { FeatureGates } from '../src/core/features';
import { describeStep, parseScenario } from '../src/ui/features/scenarios/scenario';
import { runScenario, type ScenarioTarget } from '../src/ui/features/scenarios/runner';
import { hostAuthorization } from './authorization';

const ADMIN = 'Bearer kubesim-scenario-admin,system:masters';

export interface RunOutput {
  write(line: string): void;
}

export async function runScenarioCommand(args: readonly string[], out: RunOutput = { write: (l) => process.stdout.write(`${l}\n`) }): Promise<number> {
  const file = args[0];
  if (!file || args.length > 1) {
    out.write('usage: kubesim run <scenario.yaml>');
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
  const clock = scenario.settings.fakeClock ? new FakeClock() : undefined;
  let authz;
  try {
    authz = hostAuthorization({ authorizationModes: scenario.settings.authorizationMode, insecureTokenUsers: true });
  } catch (error) {
    out.write(`error: settings.authorizationMode: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const server = createApiServer({
    storage: createMemoryStorage(),
    clock,
    featureGates: scenario.settings.featureGates as Partial<FeatureGates> | undefined,
    authorizer: authz.authorizer,
    rbacBootstrap: authz.rbacBootstrap,
    authenticators: authz.authenticators,
  });
  try {
    await server.ready;
    const target: ScenarioTarget = {
      baseUrl: 'http://kubesim.scenario',
      fetch: (request) => {
        if (!request.headers.has('Authorization')) request.headers.set('Authorization', ADMIN);
        return server.handle(request);
      },
      identify: (who) => ({ Authorization: `Bearer ${[who.user, ...(who.groups ?? [])].join(',')}` }),
      advanceClock: clock
        ? async (ms) => {
            clock.advance(ms);
            // Let timers that the clock woke (compaction, watch expiry) run.
            for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
          }
        : undefined,
    };
    out.write(`scenario: ${scenario.name}`);
    const { setup, results } = await runScenario(scenario, target, (result) => {
      const step = scenario.steps[result.index]!;
      out.write(`${result.passed ? 'PASS' : 'FAIL'} ${describeStep(step, result.index)}${result.status !== undefined ? ` -> ${result.status}${result.reason ? ` ${result.reason}` : ''}` : ''}`);
      for (const failure of result.failures) out.write(`     ${failure}`);
    });
    if (!setup.ok) {
      out.write(`error: objects: ${setup.message}`);
      return 2;
    }
    const failed = results.filter((r) => !r.passed).length;
    out.write(`${results.length - failed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  } finally {
    authz.stop();
    await server.close();
  }
}

import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../../core';
import { serverOptionsFrom } from '../../../sw/serverOptions';
import { settingsFromUrl, workerUrlWith } from '../../../sw/settings';
import { tabServerSettings } from '../access/settings';
import { checkExpectation, clockAdvancer, impersonationHeaders, runScenario, runStep, subsetFailures } from './runner';
import { peekResume, saveResume, takeResume } from './resume';
import { readServerSettings, scenarioServerSettings, scenarioToken, serverSettingsChanges, writeServerSettings } from './serverSettings';
import { describeStep, parseDuration, parseScenario } from './scenario';
import { EXAMPLE_SCENARIO } from './scenarioSlice';
import { scenarioFragment, scenarioFromFragment } from './share';

describe('scenario format', () => {
  it('parses steps, identities and clock steps', () => {
    const parsed = parseScenario('name: x\nsteps:\n  - as: { user: bob, groups: [dev] }\n    request: DELETE /api/v1/namespaces/a\n  - advanceClock: 90s\n');
    expect(parsed.ok && parsed.scenario.steps).toEqual([
      { kind: 'request', name: undefined, as: { user: 'bob', groups: ['dev'] }, method: 'DELETE', path: '/api/v1/namespaces/a', contentType: undefined, body: undefined, expect: undefined },
      { kind: 'clock', name: undefined, advanceMs: 90_000 },
    ]);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseScenario('objects: [{ kind: ConfigMap }]\nsteps: []\n')).toEqual({ ok: false, errors: ['objects[0]: needs apiVersion, kind and metadata.name'] });
  });

  it('matches expected bodies as subsets', () => {
    expect(subsetFailures({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 }, 'body')).toEqual([]);
    expect(subsetFailures({ items: [{ n: 1 }] }, { items: [] }, 'body')).toEqual(['body.items: expected 1 items, got 0']);
    expect(checkExpectation({ warnings: ['would violate'] }, { warnings: [] })).toEqual(['warnings: expected 1 items, got 0']);
    // null expects a field absent, as Kubernetes omits empty fields.
    expect(subsetFailures({ status: { active: null } }, { status: {} }, 'body')).toEqual([]);
    expect(subsetFailures({ status: { active: null } }, { status: { active: 0 } }, 'body')).toEqual(['body.status.active: expected no value, got 0']);
  });

  it('API-SSA-049: the example scenario passes against the core, and again on replay', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(8) });
    await server.ready;
    const parsed = parseScenario(EXAMPLE_SCENARIO);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const target = { fetch: (r: Request) => server.handle(r), baseUrl: 'http://kubesim.test' };
    for (let run = 0; run < 2; run++) {
      const { setup, results } = await runScenario(parsed.scenario, target);
      expect(setup).toEqual({ ok: true });
      expect(results.map((r) => [r.status, r.passed])).toEqual([
        [409, true],
        [200, true],
      ]);
    }
    await server.close();
  });
});

describe('saved values between steps', () => {
  it('[API-ERR-002] save: reads a value of the answer; $(name) expands in later paths, bodies and expectations; an unknown name stays as written', async () => {
    expect(parseScenario('steps:\n  - request: GET /api\n    save: { rv: [1] }\n')).toEqual({ ok: false, errors: ['steps[0].save: a mapping of variable names to paths in the answer, e.g. { rv: metadata.resourceVersion }'] });
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(3) });
    await server.ready;
    const parsed = parseScenario(`
steps:
  - request: POST /api/v1/namespaces/default/configmaps
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: saved } }
    expect: { status: 201 }
    save: { rv: metadata.resourceVersion, name: metadata.name }
  - request: GET /api/v1/namespaces/default/configmaps/$(name)
    expect: { status: 200, body: { metadata: { resourceVersion: $(rv) } } }
  - request: GET /api/v1/namespaces/default/configmaps/$(unknown)
    expect: { status: 404, message: 'configmaps "$(unknown)" not found' }
  - request: GET /api/v1/namespaces/default/configmaps/saved
    save: { missing: metadata.nothing }
`);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const { results } = await runScenario(parsed.scenario, { fetch: (r: Request) => server.handle(r), baseUrl: 'http://kubesim.test' });
    expect(results.map((r) => [r.status, r.failures])).toEqual([
      [201, []],
      [200, []],
      [404, []],
      [200, ['save.missing: the answer has no value at metadata.nothing']],
    ]);
    await server.close();
  });
});

describe('waiting for an expectation (wait:)', () => {
  it('refuses a wait that is not a duration, and one without an expectation to wait for', () => {
    expect(parseScenario('steps:\n  - request: GET /api\n    expect: { status: 200 }\n    wait: soon\n')).toEqual({ ok: false, errors: ['steps[0].wait: not a duration like 500ms, 10s or 1m'] });
    expect(parseScenario('steps:\n  - request: GET /api\n    wait: 5\n')).toEqual({ ok: false, errors: ['steps[0].wait: not a duration like 500ms, 10s or 1m'] });
    expect(parseScenario('steps:\n  - request: GET /api\n    wait: 5s\n')).toEqual({ ok: false, errors: ['steps[0].wait: waits for the expectation to hold, so the step needs an expect'] });
    const parsed = parseScenario('steps:\n  - request: GET /api\n    expect: { status: 200 }\n    wait: 1.5s\n');
    expect(parsed.ok && parsed.scenario.steps[0]).toMatchObject({ kind: 'request', waitMs: 1500 });
    expect(parsed.ok && describeStep(parsed.scenario.steps[0]!, 0)).toBe('step 1: GET /api (waiting up to 1500ms)');
  });

  it('repeats the request until a controller has acted: the Deployment\'s ReplicaSet, a value written later, saved once it holds', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(5) });
    await server.ready;
    let requests = 0;
    const target = { fetch: (r: Request) => (requests++, server.handle(r)), baseUrl: 'http://kubesim.test' };
    const parsed = parseScenario(`
steps:
  - request: POST /apis/apps/v1/namespaces/default/deployments
    body:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec: { replicas: 2, selector: { matchLabels: { app: web } }, template: { metadata: { labels: { app: web } }, spec: { containers: [{ name: web, image: nginx }] } } }
    expect: { status: 201 }
  - request: GET /apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb
    expect: { body: { items: [{ spec: { replicas: 2 } }] } }
    wait: 10s
  - request: GET /api/v1/namespaces/default/configmaps/later
    expect: { status: 200, body: { data: { ready: "yes" } } }
    save: { rv: metadata.resourceVersion }
    wait: 10s
  - request: GET /api/v1/namespaces/default/configmaps/later
    expect: { body: { metadata: { resourceVersion: $(rv) } } }
`);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    // Something other than the scenario writes the ConfigMap a little later, as a controller would.
    setTimeout(() => void server.handle(new Request('http://kubesim.test/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' }, data: { ready: 'yes' } }) })), 300);
    const { results } = await runScenario(parsed.scenario, target);
    expect(results.map((r) => [r.status, r.failures])).toEqual([
      [201, []],
      [200, []],
      [200, []],
      [200, []],
    ]);
    // The ConfigMap step asked more than once: the first answers were 404.
    expect(requests).toBeGreaterThan(4);
    await server.close();
  });

  it('gives up when the time is up and reports the last answer\'s failures', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(6) });
    await server.ready;
    let requests = 0;
    const target = { fetch: (r: Request) => (requests++, server.handle(r)), baseUrl: 'http://kubesim.test' };
    const parsed = parseScenario('steps:\n  - request: GET /api/v1/namespaces/default/configmaps/never\n    expect: { status: 200 }\n    save: { rv: metadata.resourceVersion }\n    wait: 300ms\n');
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const vars: Record<string, string> = {};
    const result = await runStep(parsed.scenario.steps[0]!, 0, target, vars);
    expect(result).toMatchObject({ passed: false, status: 404, reason: 'NotFound', failures: ['status: expected 200, got 404', 'save.rv: the answer has no value at metadata.resourceVersion'] });
    expect(requests).toBeGreaterThan(1);
    expect(vars).toEqual({});
    await server.close();
  });
});

describe('sharing as a URL fragment', () => {
  it('round-trips the text through deflate-raw and base64url', async () => {
    const fragment = await scenarioFragment(EXAMPLE_SCENARIO);
    expect(fragment).toMatch(/^scenario=[A-Za-z0-9_-]+$/);
    expect(fragment.length).toBeLessThan(EXAMPLE_SCENARIO.length);
    expect(await scenarioFromFragment(`#${fragment}`)).toBe(EXAMPLE_SCENARIO);
    expect(await scenarioFromFragment('#other=1')).toBeUndefined();
  });
});

describe("a scenario's settings as the tab's server settings", () => {
  const memory = () => {
    const items = new Map<string, string>();
    return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
  };

  it('invalid modes and unknown gates are reported with the flag messages', () => {
    expect(parseScenario('settings: { authorizationMode: "RBAC,Sometimes", featureGates: { NoSuchGate: true, APIResponseCompression: "yes" } }\nsteps: []\n')).toEqual({
      ok: false,
      errors: [
        'settings.authorizationMode: authorization-mode "Sometimes" is not a valid mode',
        'settings.featureGates: unrecognized feature gate: NoSuchGate',
        'settings.featureGates.APIResponseCompression: must be true or false',
      ],
    });
  });

  it('carries simulatedNodes to the tab\'s server as --simulated-nodes, and refuses a count that is not one', () => {
    const storage = memory();
    const parsed = parseScenario('settings: { simulatedNodes: 2 }\nsteps: []\n');
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const wanted = scenarioServerSettings(parsed.scenario.settings);
    expect(wanted.simulatedNodes).toBe(2);
    expect(serverSettingsChanges(readServerSettings(storage), wanted, storage)).toContain('2 simulated nodes (was none)');
    writeServerSettings(wanted, storage);
    expect(tabServerSettings(storage).simulatedNodes).toBe('2');
    expect(serverOptionsFrom(settingsFromUrl(new URL(workerUrlWith('/sw.js', tabServerSettings(storage)), 'http://127.0.0.1'))).simulatedNodes).toBe(2);
    expect(serverSettingsChanges(readServerSettings(storage), scenarioServerSettings({}), storage)).toEqual(['no simulated nodes (was 2)']);
    expect(parseScenario('settings: { simulatedNodes: -1 }\nsteps: []\n')).toEqual({ ok: false, errors: ['settings.simulatedNodes: a whole number from 0 to 100'] });
  });

  it('lists what changes, switches the tab to the scenario settings and its identity, and then nothing is pending', () => {
    const storage = memory();
    const parsed = parseScenario('settings: { authorizationMode: RBAC, featureGates: { AllowUnsafeMalformedObjectDeletion: true, APIResponseCompression: false } }\nsteps: []\n');
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const wanted = scenarioServerSettings(parsed.scenario.settings);
    expect(wanted).toEqual({ authorizationMode: 'RBAC', featureGates: 'APIResponseCompression=false,AllowUnsafeMalformedObjectDeletion=true', controllers: '', fakeClock: false, simulatedNodes: 0 });
    expect(serverSettingsChanges(readServerSettings(storage), wanted, storage)).toEqual([
      'authorization mode RBAC (was AlwaysAllow (the default))',
      'feature gates APIResponseCompression=false,AllowUnsafeMalformedObjectDeletion=true (was the defaults)',
      'the scenario identity kubesim-scenario-admin (system:masters) in the token table',
    ]);
    storage.setItem('kubesim.tokens', 'alice-token,alice,2');
    writeServerSettings(wanted, storage);
    expect(serverSettingsChanges(readServerSettings(storage), wanted, storage)).toEqual([]);
    const token = scenarioToken(storage);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    // The worker's table keeps the Access panel's users and adds the scenario identity.
    expect(tabServerSettings(storage)).toEqual({
      tokens: `alice-token,alice,2\n${token},kubesim-scenario-admin,kubesim-scenario-admin,system:masters\n`,
      authorizationMode: 'RBAC',
      featureGates: 'APIResponseCompression=false,AllowUnsafeMalformedObjectDeletion=true',
      controllers: undefined,
      fakeClock: undefined,
      simulatedNodes: undefined,
    });
    // A scenario without settings goes back to the defaults, as the headless runner builds its server.
    expect(serverSettingsChanges(readServerSettings(storage), scenarioServerSettings({}), storage)).toEqual([
      'authorization mode AlwaysAllow (the default) (was RBAC)',
      'feature gates the defaults (was APIResponseCompression=false,AllowUnsafeMalformedObjectDeletion=true)',
    ]);
  });

  it('[AC-AUTHZ-001] the worker built from those settings runs the scenario as the headless runner: admin setup, `as:` impersonated, gates on', async () => {
    const storage = memory();
    const parsed = parseScenario(`
settings: { authorizationMode: RBAC, featureGates: { AllowUnsafeMalformedObjectDeletion: true } }
objects:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: readable, namespace: default } }
steps:
  - as: alice
    request: GET /api/v1/namespaces/default/configmaps
    expect: { status: 403, reason: Forbidden }
  - request: DELETE /api/v1/namespaces/default/configmaps/readable
    body: { apiVersion: v1, kind: DeleteOptions, ignoreStoreReadErrorWithClusterBreakingPotential: true }
    expect: { status: 422, reason: Invalid }
`);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    writeServerSettings(scenarioServerSettings(parsed.scenario.settings), storage);
    const url = new URL(workerUrlWith('/sw.js', tabServerSettings(storage)), 'http://127.0.0.1');
    const server = createApiServer({ storage: createMemoryStorage(), ...serverOptionsFrom(settingsFromUrl(url)) });
    await server.ready;
    const target = {
      fetch: (r: Request) => {
        r.headers.set('Authorization', `Bearer ${scenarioToken(storage)}`);
        return server.handle(r);
      },
      identify: impersonationHeaders,
      baseUrl: 'http://127.0.0.1',
    };
    const { setup, results } = await runScenario(parsed.scenario, target);
    expect(setup).toEqual({ ok: true });
    expect(results.map((r) => [r.status, r.failures])).toEqual([
      [403, []],
      [422, []],
    ]);
    expect(results[1]!.message).toBe('configmaps "readable" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
    await server.close();
  });
});

describe("a scenario's fake clock and controllers on the tab's server", () => {
  const memory = () => {
    const items = new Map<string, string>();
    return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
  };

  it('lists the clock and controllers that change, stores them for the worker URL, and a scenario without them puts the defaults back', () => {
    const storage = memory();
    const parsed = parseScenario("settings: { fakeClock: true, controllers: ['*', '-deployment-controller'] }\nsteps: []\n");
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const wanted = scenarioServerSettings(parsed.scenario.settings);
    expect(wanted).toEqual({ authorizationMode: '', featureGates: '', controllers: '*,-deployment-controller', fakeClock: true, simulatedNodes: 0 });
    expect(serverSettingsChanges(readServerSettings(storage), wanted, storage)).toEqual([
      'controllers *,-deployment-controller (was the defaults)',
      'a fake clock, from the real time when the server starts (was the real clock)',
      'the scenario identity kubesim-scenario-admin (system:masters) in the token table',
    ]);
    writeServerSettings(wanted, storage);
    expect(serverSettingsChanges(readServerSettings(storage), wanted, storage)).toEqual([]);
    const url = new URL(workerUrlWith('/sw.js', tabServerSettings(storage)), 'http://127.0.0.1');
    expect(url.searchParams.get('fakeClock')).toBe('true');
    expect(url.searchParams.get('controllers')).toBe('*,-deployment-controller');
    expect(serverOptionsFrom(settingsFromUrl(url)).controllers).toEqual(['*', '-deployment-controller']);
    expect(serverSettingsChanges(readServerSettings(storage), scenarioServerSettings({}), storage)).toEqual([
      'controllers the defaults (was *,-deployment-controller)',
      'the real clock (was a fake clock)',
    ]);
    writeServerSettings(scenarioServerSettings({}), storage);
    const back = tabServerSettings(storage);
    expect([back.fakeClock, back.controllers]).toEqual([undefined, undefined]);
  });

  it('[API-ERR-010] advanceClock steps move the worker server clock through POST /debug/kubesim/clock: an old resourceVersion becomes 410 Expired', async () => {
    const storage = memory();
    const parsed = parseScenario(`
settings: { fakeClock: true, controllers: ['*', '-deployment-controller'] }
objects:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: one, namespace: default } }
steps:
  - request: GET /api/v1/namespaces/default/configmaps?resourceVersion=2&resourceVersionMatch=Exact
    expect: { status: 200 }
  - advanceClock: 6m
  - request: POST /api/v1/namespaces/default/configmaps
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: two } }
    expect: { status: 201 }
  - request: GET /api/v1/namespaces/default/configmaps?resourceVersion=2&resourceVersionMatch=Exact
    expect: { status: 410, reason: Expired }
  - request: GET /debug/kubesim/clock
    expect: { status: 200, body: { fake: true } }
`);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    writeServerSettings(scenarioServerSettings(parsed.scenario.settings), storage);
    const url = new URL(workerUrlWith('/sw.js', tabServerSettings(storage)), 'http://127.0.0.1');
    const server = createApiServer({ storage: createMemoryStorage(), ...serverOptionsFrom(settingsFromUrl(url)) });
    await server.ready;
    const fetchFn = (r: Request) => {
      r.headers.set('Authorization', `Bearer ${scenarioToken(storage)}`);
      return server.handle(r);
    };
    const before = (await (await fetchFn(new Request('http://127.0.0.1/debug/kubesim/clock'))).json()) as { now: string };
    const target = { fetch: fetchFn, identify: impersonationHeaders, baseUrl: 'http://127.0.0.1', advanceClock: clockAdvancer(fetchFn, 'http://127.0.0.1') };
    const { setup, results } = await runScenario(parsed.scenario, target);
    expect(setup).toEqual({ ok: true });
    expect(results.map((r) => [r.status, r.failures])).toEqual([
      [200, []],
      [undefined, []],
      [201, []],
      [410, []],
      [200, []],
    ]);
    const after = (results[4]!.body as { now: string }).now;
    expect(Date.parse(after) - Date.parse(before.now)).toBeGreaterThanOrEqual(360_000);
    await server.close();
  });

  it('a server on the real clock refuses to advance it, and the step says why', async () => {
    const server = createApiServer({ storage: createMemoryStorage() });
    await server.ready;
    const fetchFn = (r: Request) => server.handle(r);
    const result = await runStep({ kind: 'clock', advanceMs: 1000 }, 0, { fetch: fetchFn, advanceClock: clockAdvancer(fetchFn, 'http://127.0.0.1') });
    expect(result).toEqual({ index: 0, passed: false, failures: ['advancing the clock: 400: the server clock is real; start the server with --fake-clock to advance it'] });
    await server.close();
  });
});

describe('a scenario run resuming after the reload that switched the server', () => {
  it('is kept for this tab once: taken after the reload, gone for the next one', () => {
    const items = new Map<string, string>();
    const storage = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
    saveResume({ draft: EXAMPLE_SCENARIO, action: 'step', applied: ['authorization mode RBAC (was AlwaysAllow (the default))'] }, storage);
    expect(peekResume(storage)?.action).toBe('step');
    expect(takeResume(storage)).toEqual({ draft: EXAMPLE_SCENARIO, action: 'step', applied: ['authorization mode RBAC (was AlwaysAllow (the default))'] });
    expect(takeResume(storage)).toBeUndefined();
    storage.setItem('kubesim.scenarioResume', '{"draft":1}');
    expect(peekResume(storage)).toBeUndefined();
  });
});

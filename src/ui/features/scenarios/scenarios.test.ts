import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../../core';
import { runScenario, subsetFailures } from './runner';
import { parseDuration, parseScenario } from './scenario';
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

describe('sharing as a URL fragment', () => {
  it('round-trips the text through deflate-raw and base64url', async () => {
    const fragment = await scenarioFragment(EXAMPLE_SCENARIO);
    expect(fragment).toMatch(/^scenario=[A-Za-z0-9_-]+$/);
    expect(fragment.length).toBeLessThan(EXAMPLE_SCENARIO.length);
    expect(await scenarioFromFragment(`#${fragment}`)).toBe(EXAMPLE_SCENARIO);
    expect(await scenarioFromFragment('#other=1')).toBeUndefined();
  });
});

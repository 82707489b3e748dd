import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../../core';
import { createApiClient, type ApiClient, type KubeObject } from '../../api';
import { buildEvaluation, describeLimit, errorMarkers, EVALUATIONS_PATH, type Evaluation } from './evaluation';
import { CEL_EXAMPLES } from './examples';

let server: ApiServer;
let client: ApiClient;
beforeAll(async () => {
  server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(6) });
  await server.ready;
  client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
});
afterAll(() => server.close());

async function evaluate(built: ReturnType<typeof buildEvaluation>): Promise<Evaluation['status']> {
  if (!built.ok) throw new Error(built.message);
  const { object } = await client.write<KubeObject & Evaluation>('create', EVALUATIONS_PATH, built.evaluation as unknown as KubeObject);
  return object.status;
}

describe('CEL lab examples', () => {
  it.each(CEL_EXAMPLES.map((e) => [e.library, e] as const))('%s evaluates without error', async (_library, example) => {
    const status = await evaluate(buildEvaluation(example.expression, example.environment, example.variables, example.schema ?? ''));
    expect(status?.error).toBeUndefined();
    expect(status?.type).toBeTruthy();
    expect(typeof status?.cost).toBe('number');
  });
});

describe('evaluation requests', () => {
  it('sends variables and, for CRD rules only, the schema', () => {
    const crd = buildEvaluation('self.a', 'crd', 'self:\n  a: 1\n', 'type: object\n');
    expect(crd.ok && crd.evaluation.spec).toEqual({ expression: 'self.a', environment: 'crd', variables: { self: { a: 1 } }, schema: { type: 'object' } });
    const plain = buildEvaluation('1', 'plain', '', 'type: object\n');
    expect(plain.ok && plain.evaluation.spec).toEqual({ expression: '1', environment: 'plain' });
    expect(buildEvaluation('1', 'plain', '- a\n', '')).toEqual({ ok: false, message: 'variables must be a YAML mapping' });
  });

  it('marks each error at its line and column, from the server text', async () => {
    const status = await evaluate(buildEvaluation('1 +\n  x', 'plain', '', ''));
    expect(status?.error).toContain("undeclared reference to 'x'");
    expect(errorMarkers(status?.error)).toEqual([{ line: 2, column: 3, message: "undeclared reference to 'x' (in container '')", severity: 'error' }]);
  });

  it('[API-CEL-086] shows each figure against its limit, and by how much it is over', async () => {
    const over = await evaluate(buildEvaluation('lists.range(1000).all(x, lists.range(1000).all(y, true))', 'plain', '', ''));
    expect(over?.error).toBe('operation cancelled: actual cost limit exceeded');
    const [limit] = over?.costLimits ?? [];
    expect(limit).toMatchObject({ name: 'PerCallLimit', limit: 1000000, value: over?.cost, exceededBy: over!.cost! - 1000000 });
    expect(describeLimit(limit!)).toBe(`runtime cost ${over?.cost} exceeds PerCallLimit 1000000 by ${over!.cost! - 1000000}`);
    const rule = await evaluate(buildEvaluation('self.l.all(x, self.l.all(y, x.matches(y)))', 'crd', 'self:\n  l: [a]\n', 'type: object\nproperties:\n  l: {type: array, items: {type: string}}\n'));
    expect(rule?.costLimits?.map(describeLimit)).toEqual([
      'runtime cost 15 within PerCallLimit 1000000',
      'estimated max 18446744073709551615 exceeds StaticEstimatedCostLimit 10000000 by 18446744073709551615',
    ]);
  });

  it('reports runtime errors with cost and estimated cost', async () => {
    const status = await evaluate(buildEvaluation('1/0', 'plain', '', ''));
    expect(status).toMatchObject({ cost: 1, estimatedCost: { min: 1, max: 1 }, errorExpression: '1/0' });
    expect(errorMarkers(status?.error)).toEqual([{ line: 1, column: 2, message: 'division by zero', severity: 'error' }]);
  });
});

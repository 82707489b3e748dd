import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../src/core/registry';
import { openApiV3Document } from '../src/core/openapi';
import { buildRegistryBundle, readValueStructFields, type Swagger } from './generate-registry';

const here = dirname(fileURLToPath(import.meta.url));
const data = join(here, '../../shared/data/openapi');

type Param = { name: string };
type Item = Record<string, unknown> & { parameters?: Param[] };

/** Drops the list parameter 1.36 added, so 1.36 documents compare with 1.35 ones. */
function strip(paths: Record<string, Item>): Record<string, Item> {
  const drop = (ps: Param[] | undefined) => ps?.filter((p) => p.name !== 'shardSelector');
  for (const item of Object.values(paths)) {
    if (item.parameters) item.parameters = drop(item.parameters);
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && 'parameters' in op) (op as Item).parameters = drop((op as Item).parameters);
    }
  }
  return paths;
}
const swaggerPath = join(data, 'swagger-1.36.json');

describe.skipIf(!existsSync(swaggerPath))('generate-registry', () => {
  it('the committed bundle is what the generator produces (deterministic, up to date)', () => {
    const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8')) as Swagger;
    const committed = readFileSync(join(here, '../src/core/registry/generated/registry.json'), 'utf8');
    expect(`${JSON.stringify(buildRegistryBundle(swagger, readValueStructFields()), null, 1)}\n`).toBe(committed);
  });

  // apps/v1 and batch/v1 did not change between 1.35 and 1.36 apart from the new
  // shardSelector list parameter, so the generated documents must match upstream's.
  it.each(['apis/apps/v1', 'apis/batch/v1'])('%s operations match the upstream 1.35 /openapi/v3 document', (gv) => {
    const upstream = JSON.parse(readFileSync(join(data, 'v3-1.35', `${gv}.json`), 'utf8')) as { paths: Record<string, Item> };
    const mine = JSON.parse(JSON.stringify(openApiV3Document(builtinRegistry(), gv))) as { paths: Record<string, Item> };
    expect(strip(mine.paths)).toEqual(strip(upstream.paths));
  });
});

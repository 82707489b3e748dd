import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../../core';
import { createApiClient, isApiError, type ApiClient, type KubeObject } from '../../api';
import { adoptLiveValues, conflictsOf, dropFields, walkMatches } from './conflicts';
import { describeOwner, fieldChild, itemChild, managerEntries, ownerTrie } from './fieldOwners';
import { parseFieldPath, valueAt } from './fieldPath';

describe('parseFieldPath', () => {
  it('reads fields, keyed items, set values and indexes as the server prints them', () => {
    expect(parseFieldPath('.spec.containers[name="app"].image')).toEqual([
      { type: 'field', name: 'spec' },
      { type: 'field', name: 'containers' },
      { type: 'key', fields: [['name', 'app']] },
      { type: 'field', name: 'image' },
    ]);
    expect(parseFieldPath('.spec.ports[containerPort=80,protocol="TCP"]')).toEqual([
      { type: 'field', name: 'spec' },
      { type: 'field', name: 'ports' },
      { type: 'key', fields: [['containerPort', 80], ['protocol', 'TCP']] },
    ]);
    expect(parseFieldPath('.metadata.finalizers[="a]b"]')).toEqual([
      { type: 'field', name: 'metadata' },
      { type: 'field', name: 'finalizers' },
      { type: 'value', value: 'a]b' },
    ]);
    expect(parseFieldPath('.args[2]')).toEqual([{ type: 'field', name: 'args' }, { type: 'index', index: 2 }]);
    expect(parseFieldPath('spec')).toBeUndefined();
  });

  it('finds values at paths', () => {
    const pod = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } };
    expect(valueAt(pod, parseFieldPath('.spec.containers[name="b"].image')!)).toBe('y');
    expect(valueAt(pod, parseFieldPath('.spec.containers[name="c"].image')!)).toBeUndefined();
  });
});

describe('resolutions on the manifest text', () => {
  const manifest = '# mine\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: a # chosen\n  color: red\n';
  const status = {
    kind: 'Status' as const,
    apiVersion: 'v1' as const,
    code: 409,
    reason: 'Conflict',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "bob"', field: '.data.mode' }] },
  };

  it('reads the conflicting fields off the 409 Status', () => {
    expect(conflictsOf(status as never).map((c) => [c.field, c.message])).toEqual([['.data.mode', 'conflict with "bob"']]);
  });

  it('drops the fields, keeping comments', () => {
    expect(dropFields(manifest, conflictsOf(status as never))).toBe('# mine\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  color: red\n');
  });

  it('adopts the live values', () => {
    const adopted = adoptLiveValues(manifest, conflictsOf(status as never), { data: { mode: 'b', color: 'blue' } });
    expect(adopted).toContain('mode: b');
    expect(adopted).toContain('color: red');
  });

  it('matches a walked position against a keyed path', () => {
    const path = parseFieldPath('.spec.containers[name="b"].image')!;
    const item = { name: 'b', image: 'y' };
    expect(walkMatches([{ type: 'field', name: 'spec' }, { type: 'field', name: 'containers' }, { type: 'item', item, index: 1 }, { type: 'field', name: 'image' }], path)).toBe(true);
    expect(walkMatches([{ type: 'field', name: 'spec' }, { type: 'field', name: 'containers' }, { type: 'item', item: { name: 'a' }, index: 0 }, { type: 'field', name: 'image' }], path)).toBe(false);
  });
});

describe('field owners from managedFields, against the core', () => {
  let server: ApiServer;
  let client: ApiClient;
  const path = '/api/v1/namespaces/default/configmaps/app';
  const apply = (manager: string, yaml: string, force = false) => client.write('apply', path, yaml, { fieldManager: manager, force });

  beforeEach(async () => {
    server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(5) });
    await server.ready;
    client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
  });
  afterEach(() => server.close());

  it('API-SSA-053: merges every manager into one trie; a field applied by two managers with the same value is shared', async () => {
    await apply('alice', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: a\n  color: red\n');
    await apply('bob', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: a\n');
    const object = await client.get<KubeObject>(path);
    const trie = ownerTrie(object);
    const data = fieldChild(trie, 'data');
    expect(fieldChild(data, 'mode')!.owners.map((o) => o.manager).sort()).toEqual(['alice', 'bob']);
    expect(fieldChild(data, 'color')!.owners.map((o) => o.manager)).toEqual(['alice']);
    expect(managerEntries(object).map((e) => `${e.manager} ${e.operation}`).sort()).toEqual(['alice Apply', 'bob Apply']);
    expect(describeOwner(managerEntries(object).find((e) => e.manager === 'alice')!)).toMatch(/^alice \(Apply, v1, \d{4}-/);
  });

  it('API-SSA-049 API-SSA-063: a conflicting apply is a 409 whose causes the resolutions read; adopting the live value shares the field', async () => {
    await apply('alice', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: a\n');
    await apply('bob', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: b\n', true);
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: a\n';
    const error = await apply('alice', manifest).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isApiError(error)) throw new Error('expected a conflict');
    expect(error.code).toBe(409);
    const conflicts = conflictsOf(error.status);
    expect(conflicts.map((c) => c.field)).toEqual(['.data.mode']);
    const live = await client.get<KubeObject>(path);
    // Adopting the live value applies cleanly and shares the field.
    await apply('alice', adoptLiveValues(manifest, conflicts, live));
    const after = await client.get<KubeObject>(path);
    expect(fieldChild(fieldChild(ownerTrie(after), 'data'), 'mode')!.owners.map((o) => o.manager).sort()).toEqual(['alice', 'bob']);
  });

  it('finds list items by key', () => {
    const trie = ownerTrie({
      metadata: {
        managedFields: [
          { manager: 'm', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {} } } } } },
        ],
      },
    } as KubeObject);
    const containers = fieldChild(fieldChild(trie, 'spec'), 'containers');
    const item = itemChild(containers, { name: 'app', image: 'x' }, 0);
    expect(item!.owners.map((o) => o.manager)).toEqual(['m']);
    expect(fieldChild(item, 'image')!.owners.map((o) => o.manager)).toEqual(['m']);
    expect(itemChild(containers, { name: 'other' }, 1)).toBeUndefined();
  });
});

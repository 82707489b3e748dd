import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../../core';
import { traceOf } from '../../api/client';
import { fieldManagerAction, storageWrite } from './entries';

describe('Trace panel: field manager and storage entries as the server records them', () => {
  it('[API-SSA-049] [API-SSA-050] reads who took which field, the conflicts of a refused apply, and the key and resourceVersions of the write', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(5) });
    await server.ready;
    const apply = (manager: string, mode: string, force = false) =>
      server.handle(
        new Request(`http://x/api/v1/namespaces/default/configmaps/app?fieldManager=${manager}${force ? '&force=true' : ''}`, {
          method: 'PATCH',
          headers: { 'X-Kubesim-Trace': '1', 'Content-Type': 'application/apply-patch+yaml' },
          body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: ${mode}\n`,
        }),
      );
    const created = await apply('alice', 'a');
    const rv1 = ((await created.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const trace = traceOf(created);
    expect(trace.map((e) => (e.stage === 'fieldManager' ? fieldManagerAction(e) : undefined)).find(Boolean)).toEqual({
      manager: 'alice',
      operation: 'Apply',
      changes: [{ manager: 'alice', operation: 'Apply', subresource: undefined, gained: ['.data.mode'], lost: [] }],
      conflicts: [],
    });
    expect(trace.map((e) => (e.stage === 'storage' ? storageWrite(e) : undefined)).find(Boolean)).toEqual({ operation: 'create', key: '/registry/configmaps/default/app', before: undefined, after: rv1 });

    const refused = traceOf(await apply('bob', 'b'));
    expect(fieldManagerAction(refused.find((e) => e.stage === 'fieldManager')!)!.conflicts).toEqual([{ field: '.data.mode', message: 'conflict with "alice"' }]);
    expect(refused.some((e) => e.stage === 'storage')).toBe(false);

    const forced = await apply('bob', 'b', true);
    const rv2 = ((await forced.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const forcedTrace = traceOf(forced);
    expect(fieldManagerAction(forcedTrace.find((e) => e.stage === 'fieldManager')!)!.changes.map((c) => [c.manager, c.gained, c.lost])).toEqual([
      ['bob', ['.data.mode'], []],
      ['alice', [], ['.data.mode']],
    ]);
    expect(storageWrite(forcedTrace.find((e) => e.stage === 'storage')!)).toEqual({ operation: 'update', key: '/registry/configmaps/default/app', before: rv1, after: rv2 });
    await server.close();
  });

  it('entries of another shape are left to the raw view', () => {
    expect(fieldManagerAction({ stage: 'fieldManager', message: 'x' })).toBeUndefined();
    expect(storageWrite({ stage: 'storage', message: 'x', details: { key: 1 } })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../index';
import { rawApiControllers } from '../../testing/client';

describe('X-Kubesim-Trace', () => {
  it('returns the recorded decisions only to a request that asks', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(1), controllers: rawApiControllers });
    await server.ready;
    const plain = await server.handle(new Request('http://x/api/v1/namespaces'));
    expect(plain.headers.get('X-Kubesim-Trace')).toBeNull();
    const traced = await server.handle(new Request('http://x/api/v1/namespaces', { headers: { 'X-Kubesim-Trace': '1' } }));
    expect(traced.status).toBe(200);
    const trace = JSON.parse(decodeURIComponent(traced.headers.get('X-Kubesim-Trace')!)) as { stage: string; message: string }[];
    expect(trace.map((t) => t.stage)).toEqual(expect.arrayContaining(['authentication', 'authorization']));
    expect(((await traced.json()) as { kind: string }).kind).toBe('NamespaceList');
    await server.close();
  });
});

describe('X-Kubesim-Trace: field manager actions and storage writes', () => {
  interface Entry {
    stage: string;
    message: string;
    details?: Record<string, unknown>;
  }
  const path = '/api/v1/namespaces/default/configmaps';
  async function traced(server: ReturnType<typeof createApiServer>, method: string, url: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; trace: Entry[]; object: { metadata?: { resourceVersion?: string } } }> {
    const response = await server.handle(
      new Request(`http://x${url}`, { method, headers: { 'X-Kubesim-Trace': '1', 'Content-Type': contentType, 'User-Agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' }, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    const trace = JSON.parse(decodeURIComponent(response.headers.get('X-Kubesim-Trace')!)) as Entry[];
    return { status: response.status, trace: trace.filter((t) => t.stage === 'fieldManager' || t.stage === 'storage'), object: (await response.json()) as { metadata?: { resourceVersion?: string } } };
  }
  const apply = (manager: string, mode: string, force = false) =>
    [`${path}/app?fieldManager=${manager}${force ? '&force=true' : ''}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { mode } }, 'application/apply-patch+yaml'] as const;

  it('[API-SSA-001] [API-META-015] [API-SSA-049] [API-SSA-050] [API-SSA-051] an apply creates and owns its fields at a new revision; a conflict is refused with the fields; force takes them; an update takes what it changed; a no-op keeps the revision', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(2), controllers: rawApiControllers });
    await server.ready;

    const created = await traced(server, 'PATCH', ...apply('alice', 'a'));
    expect(created.status).toBe(201);
    const rv1 = created.object.metadata!.resourceVersion!;
    expect(created.trace).toEqual([
      { stage: 'fieldManager', message: 'Apply by "alice": owns 1 field, newly .data.mode', details: expect.objectContaining({ manager: 'alice', operation: 'Apply', force: false }) },
      { stage: 'storage', message: `created /registry/configmaps/default/app at resourceVersion ${rv1}`, details: { operation: 'create', key: '/registry/configmaps/default/app', resourceVersionAfter: rv1 } },
    ]);

    const conflict = await traced(server, 'PATCH', ...apply('bob', 'b'));
    expect(conflict.status).toBe(409);
    expect(conflict.trace).toEqual([
      {
        stage: 'fieldManager',
        message: 'Apply by "bob" refused: 1 conflict: conflict with "alice": .data.mode (force would take them)',
        details: { manager: 'bob', operation: 'Apply', force: false, conflicts: [{ field: '.data.mode', message: 'conflict with "alice"' }] },
      },
    ]);

    const forced = await traced(server, 'PATCH', ...apply('bob', 'b', true));
    expect(forced.status).toBe(200);
    const rv2 = forced.object.metadata!.resourceVersion!;
    expect(rv2).not.toBe(rv1);
    expect(forced.trace.map((t) => t.message)).toEqual([
      'Apply by "bob" (force): owns 1 field, newly .data.mode; "alice" (Apply) lost .data.mode',
      `updated /registry/configmaps/default/app: resourceVersion ${rv1} → ${rv2}`,
    ]);
    expect(forced.trace[1]!.details).toEqual({ operation: 'update', key: '/registry/configmaps/default/app', resourceVersionBefore: rv1, resourceVersionAfter: rv2 });

    const updated = await traced(server, 'PATCH', `${path}/app?fieldManager=carol`, { data: { mode: 'c' } }, 'application/merge-patch+json');
    const rv3 = updated.object.metadata!.resourceVersion!;
    expect(updated.trace.map((t) => t.message)).toEqual([
      'Update by "carol": owns 1 field, newly .data.mode; "bob" (Apply) lost .data.mode',
      `updated /registry/configmaps/default/app: resourceVersion ${rv2} → ${rv3}`,
    ]);

    const same = await traced(server, 'PATCH', `${path}/app?fieldManager=carol`, { data: { mode: 'c' } }, 'application/merge-patch+json');
    expect(same.object.metadata!.resourceVersion).toBe(rv3);
    expect(same.trace.map((t) => t.message)).toEqual(['Update by "carol": ownership unchanged', `no change: /registry/configmaps/default/app not written, resourceVersion stays ${rv3}`]);

    const deleted = await traced(server, 'DELETE', `${path}/app`);
    expect(deleted.status).toBe(200);
    expect(deleted.trace).toEqual([
      { stage: 'storage', message: expect.stringMatching(new RegExp(`^deleted /registry/configmaps/default/app: resourceVersion ${rv3} → \\d+$`)), details: expect.objectContaining({ operation: 'delete', resourceVersionBefore: rv3 }) },
    ]);
    await server.close();
  });

  it('[API-DRY-003] a dry run records that nothing was written', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(3), controllers: rawApiControllers });
    await server.ready;
    const dry = await traced(server, 'POST', `${path}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { k: 'v' } });
    expect(dry.status).toBe(201);
    expect(dry.trace.map((t) => t.message)).toEqual(['Update by "kubectl": owns 2 fields, newly .data, .data.k', 'dry run: /registry/configmaps/default/dry not written']);
    await server.close();
  });

  it('a write through the scale subresource records the Scale manager taking .spec.replicas and the parent write', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(4), controllers: rawApiControllers });
    await server.ready;
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    expect((await traced(server, 'POST', '/apis/apps/v1/namespaces/default/deployments?fieldManager=creator', deployment)).status).toBe(201);
    const scaled = await traced(server, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale?fieldManager=scaler', { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(scaled.status).toBe(200);
    expect(scaled.trace.map((t) => t.message)).toEqual([
      'Update by "scaler": owns 1 field, newly .spec.replicas; "creator" (Update) lost .spec.replicas',
      expect.stringMatching(/^updated \/registry\/apps\/deployments\/default\/web: resourceVersion \d+ → \d+$/),
    ]);
    await server.close();
  });
});

describe('X-Kubesim-Trace: nothing recorded unless asked', () => {
  it('a request without the header records no trace entries', async () => {
    const { traceFrom } = await import('../request/context');
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(3), controllers: rawApiControllers });
    await server.ready;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'quiet' }, data: { a: '1' } });
    const plain = new Request('http://x/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect((await server.handle(plain)).status).toBe(201);
    expect(traceFrom(plain)).toEqual([]);
    const asked = new Request('http://x/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Kubesim-Trace': '1' }, body: body.replace('quiet', 'loud') });
    expect((await server.handle(asked)).status).toBe(201);
    expect(traceFrom(asked).map((e) => e.stage)).toEqual(expect.arrayContaining(['authentication', 'authorization', 'fieldManager', 'storage']));
    await server.close();
  });
});

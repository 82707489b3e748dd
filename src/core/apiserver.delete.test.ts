/** Delete options and the deletion lifecycle through HTTP. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from './testing/client';

const cm = (name: string, finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' } });
const path = '/api/v1/namespaces/default/configmaps';
const options = (o: Record<string, unknown>) => ({ kind: 'DeleteOptions', apiVersion: 'v1', ...o });

describe('delete options', () => {
  it('[API-DEL-005] dryRun in the body deletes nothing', async () => {
    const t = await newTestServer();
    const c = await t.json('POST', path, { body: cm('cm1') });
    const d = await t.json('DELETE', `${path}/cm1`, { body: options({ dryRun: ['All'] }) });
    expect(d.status).toBe(200);
    const g = await t.json('GET', `${path}/cm1`);
    expect(g.status).toBe(200);
    expect(g.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });

  it('[API-DEL-006][API-DEL-009][API-DEL-010][API-DEL-011] gracePeriodSeconds, propagationPolicy and the unsafe option set to false are accepted', async () => {
    const t = await newTestServer();
    await t.json('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    expect((await t.json('DELETE', '/api/v1/namespaces/default/pods/p1', { body: options({ gracePeriodSeconds: 0 }) })).status).toBe(200);
    await t.json('POST', path, { body: cm('b') });
    expect((await t.json('DELETE', `${path}/b`, { body: options({ propagationPolicy: 'Background' }) })).status).toBe(200);
    await t.json('POST', path, { body: cm('c', ['example.com/hold']) });
    const d = await t.json('DELETE', `${path}/c`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: false }) });
    expect(d.status).toBe(200);
    // A normal deletion: the finalizer holds the object.
    expect((await t.json('GET', `${path}/c`)).body.metadata.deletionTimestamp).toBeTruthy();
  });

  it('[API-DEL-007] orphanDependents is accepted', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: cm('o') });
    const d = await t.json('DELETE', `${path}/o`, { body: options({ orphanDependents: true }) });
    expect(d.status).toBe(200);
  });

  it('orphanDependents with propagationPolicy, or an unknown policy, is 422 on DeleteOptions', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: cm('x') });
    const both = await t.json('DELETE', `${path}/x`, { body: options({ orphanDependents: true, propagationPolicy: 'Background' }) });
    expect(both.status).toBe(422);
    expect(both.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set');
  });
});

describe('deletion lifecycle', () => {
  it('[API-DEL-014][API-DEL-015][API-DEL-016][API-DEL-017] Active -> Terminating -> removed when the last finalizer goes', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: cm('f', ['a.example/x', 'b.example/y']) });
    t.clock.advance(7000);
    const d = await t.json('DELETE', `${path}/f`);
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('ConfigMap');
    expect(d.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:07Z');
    const p1 = await t.json('PATCH', `${path}/f`, { body: { metadata: { finalizers: ['b.example/y'] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p1.status).toBe(200);
    expect((await t.json('GET', `${path}/f`)).body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:07Z');
    await t.json('PATCH', `${path}/f`, { body: { metadata: { finalizers: [] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect((await t.json('GET', `${path}/f`)).status).toBe(404);
  });

  it('[API-DEL-017] a pod in its grace period is only updated by a status write, and removing a finalizer during it keeps it until the grace period\'s delete', async () => {
    const t = await newTestServer();
    const pods = '/api/v1/namespaces/default/pods';
    const pod = (name: string, finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    await t.json('POST', pods, { body: pod('plain') });
    await t.json('POST', pods, { body: pod('held', ['example.com/hold']) });
    for (const name of ['plain', 'held']) expect((await t.json('DELETE', `${pods}/${name}`)).body.metadata.deletionGracePeriodSeconds).toBe(30);
    // The kubelet reports a container ending while the pod terminates: an update, not the delete.
    const status = await t.json('PATCH', `${pods}/plain/status`, { body: { status: { phase: 'Running', message: 'stopping' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(status.status).toBe(200);
    expect((await t.json('GET', `${pods}/plain`)).body.status.message).toBe('stopping');
    const unheld = await t.json('PATCH', `${pods}/held`, { body: { metadata: { finalizers: [] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(unheld.status).toBe(200);
    expect((await t.json('GET', `${pods}/held`)).body.metadata.deletionTimestamp).toBeTruthy();
    // The kubelet's delete with grace period 0 ends each.
    for (const name of ['plain', 'held']) {
      expect((await t.json('DELETE', `${pods}/${name}`, { body: options({ gracePeriodSeconds: 0 }) })).status).toBe(200);
      expect((await t.json('GET', `${pods}/${name}`)).status).toBe(404);
    }
  });

  it('new finalizers cannot be added to a terminating object', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: cm('f', ['a.example/x']) });
    await t.json('DELETE', `${path}/f`);
    const p = await t.json('PATCH', `${path}/f`, { body: { metadata: { finalizers: ['a.example/x', 'c.example/z'] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.status).toBe(422);
    expect(p.body.message).toContain('no new finalizers can be added if the object is being deleted');
  });
});

describe('the unsafe delete option (AllowUnsafeMalformedObjectDeletion)', () => {
  it('[API-DEL-022] is ignored while its gate is off: a normal deletion', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: cm('u') });
    const d = await t.json('DELETE', `${path}/u`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) });
    expect(d.status).toBe(200);
    expect((await t.json('GET', `${path}/u`)).status).toBe(404);
  });

  it('[API-DEL-024][API-DEL-025][API-DEL-026][API-DEL-027][API-DEL-028] with the gate on it cannot be combined with other options', async () => {
    const t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await t.json('POST', path, { body: cm('u') });
    for (const extra of [{ dryRun: ['All'] }, { gracePeriodSeconds: 0 }, { orphanDependents: false }, { preconditions: { uid: 'x' } }, { propagationPolicy: 'Background' }]) {
      const d = await t.json('DELETE', `${path}/u`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true, ...extra }) });
      expect(d.status, JSON.stringify(extra)).toBe(422);
      expect(d.body.details.kind).toBe('DeleteOptions');
      expect(d.body.details.causes[0].field).toBe(Object.keys(extra)[0]);
    }
    expect((await t.json('GET', `${path}/u`)).status).toBe(200);
  });

  it('[API-DEL-030][API-ERR-018] on an object that reads back cleanly it is refused and nothing changes', async () => {
    const t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await t.json('POST', path, { body: cm('u', ['example.com/hold']) });
    const d = await t.json('DELETE', `${path}/u`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) });
    expect(d.status).toBe(422);
    expect(d.body.message).toBe('configmaps "u" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
    expect((await t.json('GET', `${path}/u`)).body.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('options validated like the apiserver', () => {
  it('includeObject other than None, Metadata or Object is 422 on TableOptions', async () => {
    const t = await newTestServer();
    const r = await t.json('GET', '/api/v1/namespaces?includeObject=All', { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(`TableOptions.meta.k8s.io "" is invalid: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`);
  });

  it('a fieldManager with a non-printable character is 422 naming it', async () => {
    const t = await newTestServer();
    const r = await t.json('POST', `${path}?fieldManager=ab%07c`, { body: cm('m') });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "ab\\ac": invalid character U+0007 (at position 2)');
  });
});

describe('APIResponseCompression', () => {
  it('[API-GZIP-007] turned off (--feature-gates=APIResponseCompression=false), large responses are sent uncompressed', async () => {
    const t = await newTestServer({ featureGates: { APIResponseCompression: false } });
    await t.json('POST', path, { body: { ...cm('big'), data: { blob: 'x'.repeat(140 * 1024) } } });
    const r = await t.request('GET', `${path}/big`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers.get('content-encoding')).toBeNull();
  });

  it('[API-GZIP-005] on by default', async () => {
    const t = await newTestServer();
    await t.json('POST', path, { body: { ...cm('big'), data: { blob: 'x'.repeat(140 * 1024) } } });
    const r = await t.request('GET', path, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers.get('content-encoding')).toBe('gzip');
  });
});

describe('ownerReferences', () => {
  it('need apiVersion, kind, name and uid, and at most one controller', async () => {
    const t = await newTestServer();
    const bad = await t.json('POST', path, { body: { ...cm('o'), metadata: { name: 'o', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('ConfigMap "o" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
    const two = await t.json('POST', path, {
      body: { ...cm('o'), metadata: { name: 'o', ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'b', uid: '2', controller: true },
      ] } },
    });
    expect(two.status).toBe(422);
    expect(two.body.message).toContain('Only one reference can have Controller set to true. Found "true" in references for Deployment/a and Deployment/b');
  });
});

describe('objects storage cannot read', () => {
  async function corrupt(t: Awaited<ReturnType<typeof newTestServer>>, name: string, finalizers?: string[]) {
    await t.json('POST', path, { body: cm(name, finalizers) });
    const key = `/registry/configmaps/default/${name}`;
    const kv = await t.storage.get(key);
    // What a lost encryption key or a bad write leaves behind: bytes that do not decode.
    await t.storage.update(key, '{"kind":"ConfigMap","metadata":{"name":', kv!.modRevision);
  }

  it('[API-DEL-021] reads and a normal delete answer 500 and the object stays', async () => {
    const t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await corrupt(t, 'bad');
    const g = await t.json('GET', `${path}/bad`);
    expect(g.status).toBe(500);
    expect(g.body.reason).toBe('InternalError');
    expect(g.body.message).toContain('key: /registry/configmaps/default/bad, corrupt object');
    expect((await t.json('DELETE', `${path}/bad`)).status).toBe(500);
    expect((await t.json('GET', `${path}/bad`)).status).toBe(500);
  });

  it('[API-DEL-018][API-DEL-019][API-DEL-020][API-DEL-029] the unsafe delete removes it, ignoring finalizers; readable objects are refused', async () => {
    const t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await corrupt(t, 'bad', ['example.com/hold']);
    const d = await t.json('DELETE', `${path}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'bad', kind: 'configmaps' } });
    expect((await t.json('GET', `${path}/bad`)).status).toBe(404);
    await t.json('POST', path, { body: cm('fine', ['example.com/hold']) });
    expect((await t.json('DELETE', `${path}/fine`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) })).status).toBe(422);
  });

  it('[API-DEL-022] with the gate off the option is ignored and a corrupt object cannot be deleted', async () => {
    const t = await newTestServer();
    await corrupt(t, 'bad');
    expect((await t.json('DELETE', `${path}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) })).status).toBe(500);
  });
});

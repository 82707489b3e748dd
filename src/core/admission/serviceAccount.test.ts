/** The ServiceAccount admission plugin through handle(): the default account, the token volume and its mounts, 403s. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

describe('ServiceAccount admission', () => {
  it('a pod gets serviceAccountName default, the deprecated serviceAccount copy, and the kube-api-access projected volume mounted read-only in every container and init container', async () => {
    t = await newTestServer();
    const r = await t.json('POST', `${ns}/pods`, {
      body: pod('p', { initContainers: [{ name: 'init', image: 'busybox' }], ephemeralContainers: undefined }),
    });
    expect(r.status).toBe(201);
    const spec = r.body.spec;
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.serviceAccount).toBe('default');
    expect(spec.volumes).toHaveLength(1);
    const volume = spec.volumes[0];
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: volume.name, readOnly: true, mountPath };
    expect(spec.containers[0].volumeMounts).toEqual([mount]);
    expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect((await t.json('GET', `${ns}/pods/p`)).body.spec.volumes).toEqual(spec.volumes);
  });

  it('a pod naming a missing ServiceAccount is Forbidden with kube\'s message; an existing one is used', async () => {
    t = await newTestServer();
    const r = await t.json('POST', `${ns}/pods`, { body: pod('p', { serviceAccountName: 'builder' }) });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods "p" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found',
      details: { name: 'p', kind: 'pods' },
    });
    expect((await t.json('GET', `${ns}/pods/p`)).status).toBe(404);
    expect((await t.json('POST', `${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' }, imagePullSecrets: [{ name: 'regcred' }] } })).status).toBe(201);
    const ok = await t.json('POST', `${ns}/pods`, { body: pod('p', { serviceAccount: 'builder' }) });
    expect(ok.status).toBe(201);
    // The deprecated field alone names the account; the account's pull secrets are copied to a pod without its own.
    expect(ok.body.spec).toMatchObject({ serviceAccountName: 'builder', serviceAccount: 'builder', imagePullSecrets: [{ name: 'regcred' }] });
  });

  it('the account and namespace admission reads follow their changes: an account updated, deleted, made again; a namespace being deleted', async () => {
    t = await newTestServer();
    const account = (extra: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' }, ...extra });
    expect((await t.json('POST', `${ns}/serviceaccounts`, { body: account({}) })).status).toBe(201);
    expect((await t.json('POST', `${ns}/pods`, { body: pod('a', { serviceAccountName: 'builder' }) })).body.spec.volumes).toHaveLength(1);
    const current = (await t.json('GET', `${ns}/serviceaccounts/builder`)).body;
    expect((await t.json('PUT', `${ns}/serviceaccounts/builder`, { body: { ...current, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'regcred' }] } })).status).toBe(200);
    const quiet = (await t.json('POST', `${ns}/pods`, { body: pod('b', { serviceAccountName: 'builder' }) })).body.spec;
    expect(quiet.volumes).toBeUndefined();
    expect(quiet.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect((await t.json('DELETE', `${ns}/serviceaccounts/builder`)).status).toBe(200);
    const gone = await t.json('POST', `${ns}/pods`, { body: pod('c', { serviceAccountName: 'builder' }) });
    expect(gone.status).toBe(403);
    expect(gone.body.message).toBe('pods "c" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found');
    expect((await t.json('POST', `${ns}/serviceaccounts`, { body: account({}) })).status).toBe(201);
    expect((await t.json('POST', `${ns}/pods`, { body: pod('c', { serviceAccountName: 'builder' }) })).status).toBe(201);
    // A namespace being deleted refuses new content (NamespaceLifecycle's 403), whatever the account.
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } } })).status).toBe(201);
    await t.json('POST', '/api/v1/namespaces/going/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    await t.json('POST', '/api/v1/namespaces/going/pods', { body: pod('keep') });
    expect((await t.json('DELETE', '/api/v1/namespaces/going')).status).toBe(200);
    const refused = await t.json('POST', '/api/v1/namespaces/going/pods', { body: pod('late') });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('pods "late" is forbidden: unable to create new content in namespace going because it is being terminated');
  });

  it('automountServiceAccountToken false on the pod or the ServiceAccount, or a mount at the token path, leaves the pod unmounted; the pod\'s choice wins', async () => {
    t = await newTestServer();
    const off = await t.json('POST', `${ns}/pods`, { body: pod('off', { automountServiceAccountToken: false }) });
    expect(off.status).toBe(201);
    expect(off.body.spec.volumes).toBeUndefined();
    expect(off.body.spec.containers[0].volumeMounts).toBeUndefined();
    await t.json('POST', `${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false } });
    const quiet = await t.json('POST', `${ns}/pods`, { body: pod('quiet', { serviceAccountName: 'quiet' }) });
    expect(quiet.body.spec.volumes).toBeUndefined();
    const podWins = await t.json('POST', `${ns}/pods`, { body: pod('wins', { serviceAccountName: 'quiet', automountServiceAccountToken: true }) });
    expect(podWins.body.spec.volumes).toHaveLength(1);
    const own = await t.json('POST', `${ns}/pods`, {
      body: pod('own', {
        volumes: [{ name: 'mine', emptyDir: {} }],
        containers: [{ name: 'a', image: 'nginx', volumeMounts: [{ name: 'mine', mountPath }] }, { name: 'b', image: 'nginx' }],
      }),
    });
    expect(own.status).toBe(201);
    const [a, b] = own.body.spec.containers;
    expect(a.volumeMounts).toEqual([{ name: 'mine', mountPath }]);
    expect(b.volumeMounts).toEqual([{ name: own.body.spec.volumes[1].name, readOnly: true, mountPath }]);
    expect(own.body.spec.volumes[1].name).toMatch(/^kube-api-access-/);
  });

  it('updates are not mutated: a pod keeps its volumes and mounts as stored', async () => {
    t = await newTestServer();
    const created = (await t.json('POST', `${ns}/pods`, { body: pod('p') })).body;
    const updated = await t.json('PUT', `${ns}/pods/p`, { body: { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec.volumes).toEqual(created.spec.volumes);
  });

  it('mirror pods are not given an account, and are refused when they name one', async () => {
    t = await newTestServer();
    const mirror = { 'kubernetes.io/config.mirror': 'hash' };
    const r = await t.json('POST', `${ns}/pods`, { body: pod('m', {}, { annotations: mirror }) });
    expect(r.status).toBe(201);
    expect(r.body.spec.serviceAccountName).toBeUndefined();
    expect(r.body.spec.volumes).toBeUndefined();
    const named = await t.json('POST', `${ns}/pods`, { body: pod('n', { serviceAccountName: 'default' }, { annotations: mirror }) });
    expect(named.status).toBe(403);
    expect(named.body.message).toBe('pods "n" is forbidden: a mirror pod may not reference service accounts');
  });

  it('[API-DRY-006] a dry-run create shows the mutations; a pod in a missing namespace is the namespace\'s 404, not the account\'s 403', async () => {
    t = await newTestServer();
    const dry = await t.json('POST', `${ns}/pods?dryRun=All`, { body: pod('d') });
    expect(dry.status).toBe(201);
    expect(dry.body.spec.serviceAccountName).toBe('default');
    expect(dry.body.spec.volumes[0].name).toMatch(/^kube-api-access-/);
    const missing = await t.json('POST', '/api/v1/namespaces/nowhere/pods', { body: pod('p') });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('namespaces "nowhere" not found');
  });

  it('a pod in a namespace just created waits for its default ServiceAccount; without the service account controller it is refused', async () => {
    t = await newTestServer();
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } } })).status).toBe(201);
    const r = await t.json('POST', '/api/v1/namespaces/fresh/pods', { body: pod('p') });
    expect(r.status).toBe(201);
    expect(r.body.spec.serviceAccountName).toBe('default');
    await t.server.close();
    t = await newTestServer({ controllers: ['*', '-serviceaccount-controller'] });
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bare' } } });
    const refused = await t.json('POST', '/api/v1/namespaces/bare/pods', { body: pod('p') });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('pods "p" is forbidden: error looking up service account bare/default: serviceaccount "default" not found');
  });

  it('[AC-AUTHN-043] a pod naming sa1 mounts a token projection; the token the kubelet requests for it identifies sa1 and the pod', async () => {
    t = await newTestServer();
    await t.json('POST', `${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } } });
    const created = await t.json('POST', `${ns}/pods`, { body: pod('p1', { serviceAccountName: 'sa1' }) });
    expect(created.status).toBe(201);
    const projection = created.body.spec.volumes[0].projected.sources[0].serviceAccountToken;
    // What the kubelet asks for the projection: the pod's account, bound to the pod, for the projection's lifetime.
    const requested = await t.json('POST', `${ns}/serviceaccounts/${created.body.spec.serviceAccountName}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: projection.expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: created.body.metadata.uid } } },
    });
    expect(requested.status).toBe(201);
    const me = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, headers: { authorization: `Bearer ${requested.body.status.token}` },
    });
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo.username).toBe('system:serviceaccount:default:sa1');
    expect(me.body.status.userInfo.extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['p1'] });
  });

  it('a traced write that ServiceAccount refuses records the plugin and its message', async () => {
    t = await newTestServer();
    const r = await t.json('POST', `${ns}/pods`, { body: pod('p', { serviceAccountName: 'ghost' }), headers: { 'x-kubesim-trace': '1' } });
    expect(r.status).toBe(403);
    const trace = (JSON.parse(decodeURIComponent(r.headers.get('x-kubesim-trace') ?? '[]')) as { stage: string }[]).filter((e) => e.stage === 'admission');
    expect(trace).toEqual([{ stage: 'admission', message: 'ServiceAccount refused the write', details: { message: r.body.message } }]);
  });
});

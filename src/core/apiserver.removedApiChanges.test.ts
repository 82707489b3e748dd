/**
 * The field changes the removal table lists, seen from the replacement
 * versions a client must now use: required fields, new defaults and renamed
 * fields of apps/v1, networking.k8s.io/v1, admissionregistration.k8s.io/v1,
 * certificates.k8s.io/v1, events.k8s.io/v1, policy/v1, discovery.k8s.io/v1,
 * flowcontrol v1 and authorization v1, through handle().
 */
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';

const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

async function create(t: TestServer, path: string, body: Record<string, unknown>) {
  return t.json('POST', path, { body });
}

describe('apps/v1 workloads', () => {
  // kube-apiserver's own answers: a DaemonSet without a selector fails as "selector does not match template labels"
  // (a nil selector selects nothing), and a StatefulSet forbids spec changes beyond a few fields.
  const selectorRequired = { field: 'spec.selector', reason: 'FieldValueRequired' };
  const selectorImmutable = { field: 'spec.selector', reason: 'FieldValueInvalid', message: expect.stringContaining('field is immutable') };
  const kinds = [
    { kind: 'Deployment', path: '/apis/apps/v1/namespaces/default/deployments', ids: ['API-VER-157', 'API-VER-158'], required: selectorRequired, immutable: selectorImmutable },
    { kind: 'StatefulSet', path: '/apis/apps/v1/namespaces/default/statefulsets', ids: ['API-VER-163', 'API-VER-164'], required: selectorRequired, immutable: { field: 'spec', reason: 'FieldValueForbidden', message: expect.stringContaining("updates to statefulset spec for fields other than 'replicas'") } },
    { kind: 'DaemonSet', path: '/apis/apps/v1/namespaces/default/daemonsets', ids: ['API-VER-153', 'API-VER-154'], required: { field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: expect.stringContaining('`selector` does not match template `labels`') }, immutable: selectorImmutable },
    { kind: 'ReplicaSet', path: '/apis/apps/v1/namespaces/default/replicasets', ids: ['API-VER-166', 'API-VER-167'], required: selectorRequired, immutable: selectorImmutable },
  ];
  for (const { kind, path, ids, required, immutable } of kinds) {
    it(`[${ids[0]}][${ids[1]}] ${kind}: spec.selector is required and immutable`, async () => {
      const t = await newTestServer();
      const missing = await create(t, path, { apiVersion: 'apps/v1', kind, metadata: { name: 'x' }, spec: { template: template({ app: 'x' }) } });
      expect(missing.status).toBe(422);
      expect(missing.body.details.causes).toContainEqual(expect.objectContaining(required));
      const made = await create(t, path, { apiVersion: 'apps/v1', kind, metadata: { name: 'x' }, spec: { selector: { matchLabels: { app: 'x' } }, template: template({ app: 'x', v: '1' }) } });
      expect(made.status).toBe(201);
      const changed = await t.json('PATCH', `${path}/x`, { body: { spec: { selector: { matchLabels: { app: 'x', v: '1' } } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expect(changed.status).toBe(422);
      expect(changed.body.details.causes).toContainEqual(expect.objectContaining(immutable));
    });
  }

  it('[API-VER-159][API-VER-160][API-VER-161][API-VER-162] a minimal Deployment gets progressDeadlineSeconds 600, revisionHistoryLimit 10, 25% surge and unavailable', async () => {
    const t = await newTestServer();
    const r = await create(t, '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'd' } }, template: template({ app: 'd' }) } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ progressDeadlineSeconds: 600, revisionHistoryLimit: 10, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
  });

  it('[API-VER-155][API-VER-165] DaemonSet and StatefulSet updateStrategy.type defaults to RollingUpdate', async () => {
    const t = await newTestServer();
    const ds = await create(t, '/apis/apps/v1/namespaces/default/daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'd' } }, template: template({ app: 'd' }) } });
    expect(ds.body.spec.updateStrategy.type).toBe('RollingUpdate');
    const sts = await create(t, '/apis/apps/v1/namespaces/default/statefulsets', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { selector: { matchLabels: { app: 's' } }, template: template({ app: 's' }) } });
    expect(sts.body.spec.updateStrategy.type).toBe('RollingUpdate');
  });
});

describe('networking.k8s.io/v1 Ingress', () => {
  it('[API-VER-151] pathType is required, one of Prefix, Exact, ImplementationSpecific', async () => {
    const t = await newTestServer();
    const ing = (pathType?: string) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `i${pathType ?? ''}`.toLowerCase() },
      spec: { rules: [{ http: { paths: [{ path: '/', ...(pathType ? { pathType } : {}), backend: { service: { name: 's', port: { number: 80 } } } }] } }] },
    });
    const path = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const missing = await create(t, path, ing());
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.rules[0].http.paths[0].pathType', reason: 'FieldValueRequired' }));
    const foo = await create(t, path, ing('Foo'));
    expect(foo.status).toBe(422);
    expect(foo.body.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.rules[0].http.paths[0].pathType', reason: 'FieldValueNotSupported' }));
    for (const p of ['Prefix', 'Exact', 'ImplementationSpecific']) expect((await create(t, path, ing(p))).status).toBe(201);
  });
});

/** Pods, PodTemplates and ReplicationControllers validated over HTTP: one 422 Status carrying every cause. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

const PODS = '/api/v1/namespaces/default/pods';
const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });

describe('Pod create', () => {
  it('API-ERR-022: an invalid container name and no image report both errors in one 422 Status', async () => {
    const r = await t.json('POST', PODS, { body: pod('two', { containers: [{ name: 'Web' }] }) });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { name: 'two', kind: 'Pod' } });
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: "Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        field: 'spec.containers[0].name',
      },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' },
    ]);
    expect(r.body.message).toMatch(/^Pod "two" is invalid: \[spec\.containers\[0\]\.name: Invalid value: "Web": .*, spec\.containers\[0\]\.image: Required value\]$/);
  });

  it('API-DRY-005: dryRun=All answers the same 422 and a valid dry-run create stores nothing', async () => {
    const bad = pod('dry', { restartPolicy: 'Sometimes', containers: [{ name: 'c', image: 'nginx' }] });
    const real = await t.json('POST', PODS, { body: bad });
    const dry = await t.json('POST', `${PODS}?dryRun=All`, { body: bad });
    expect(dry.status).toBe(422);
    expect(dry.body).toEqual(real.body);
    expect(dry.body.message).toBe('Pod "dry" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"');
    const ok = await t.json('POST', `${PODS}?dryRun=All`, { body: pod('dry', { containers: [{ name: 'c', image: 'nginx' }] }) });
    expect(ok.status).toBe(201);
    expect((await t.json('GET', `${PODS}/dry`)).status).toBe(404);
  });
});

describe('Pod defaults validation sees', () => {
  it('requests default to limits (Pods only), and quantities are stored in canonical form', async () => {
    const r = await t.json('POST', PODS, { body: pod('res', { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '0.5', memory: '1.5Gi' }, requests: { memory: 1073741824 } } }] }) });
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '1536Mi' }, requests: { memory: '1073741824', cpu: '500m' } });
    expect(r.body.status.qosClass).toBe('Burstable');
    const t2 = await t.json('POST', '/api/v1/namespaces/default/podtemplates', { body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'res' }, template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1000m' } } }] } } } });
    expect(t2.body.template.spec.containers[0].resources).toEqual({ limits: { cpu: '1' } });
  });
});

describe('Pod update', () => {
  it('changes the image, refuses other spec changes, and leaves status writes alone', async () => {
    const c = await t.json('POST', PODS, { body: pod('upd', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] }) });
    expect(c.status).toBe(201);
    const image = await t.json('PATCH', `${PODS}/upd`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } });
    expect(image.status).toBe(200);
    const other = await t.json('PATCH', `${PODS}/upd`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '200m' } } }] } } });
    expect(other.status).toBe(422);
    expect(other.body.details.causes).toHaveLength(1);
    expect(other.body.details.causes[0].field).toBe('spec');
    expect(other.body.details.causes[0].message).toMatch(/^Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,/);
    const status = await t.json('PATCH', `${PODS}/upd/status`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { phase: 'Running' } } });
    expect(status.status).toBe(200);
    // A replace of the stored object with its labels changed is no spec change.
    const got = await t.json('GET', `${PODS}/upd`);
    const put = await t.json('PUT', `${PODS}/upd`, { body: { ...got.body, metadata: { ...got.body.metadata, labels: { a: 'b' } } } });
    expect(put.status).toBe(200);
  });
});

describe('PodTemplate and ReplicationController', () => {
  it('a PodTemplate validates its template; a ReplicationController its selector, template and restartPolicy', async () => {
    const pt = await t.json('POST', '/api/v1/namespaces/default/podtemplates', { body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'pt' }, template: { metadata: { labels: { 'bad key': 'x' } }, spec: { containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Sometimes' }] } } } });
    expect(pt.status).toBe(422);
    expect(pt.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['template.labels', 'template.spec.containers[0].imagePullPolicy']);
    const rc = await t.json('POST', '/api/v1/namespaces/default/replicationcontrollers', {
      body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { replicas: -1, selector: { app: 'a' }, template: { metadata: { labels: { app: 'b' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } },
    });
    expect(rc.status).toBe(422);
    expect(rc.body.message).toBe('ReplicationController "rc" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`, spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"]');
    const ok = await t.json('POST', '/api/v1/namespaces/default/replicationcontrollers', {
      body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } },
    });
    expect(ok.status).toBe(201);
    // SetDefaults_ReplicationController: the selector and the object's labels come from the template.
    expect(ok.body.spec.selector).toEqual({ app: 'b' });
    expect(ok.body.metadata.labels).toEqual({ app: 'b' });
    expect(ok.body.spec.replicas).toBe(1);
  });
});

describe('Pod affinity matchLabelKeys and mismatchLabelKeys', () => {
  const versioned = (name: string, labels: Record<string, string>, affinity: Record<string, unknown>) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], affinity },
  });

  it('are merged into the stored labelSelector from the pod\'s labels on create, and the stored pod stays valid on update', async () => {
    const affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'api' } }, matchLabelKeys: ['version', 'absent'], topologyKey: 'kubernetes.io/hostname' }],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, mismatchLabelKeys: ['app'], topologyKey: 'kubernetes.io/hostname' } }],
      },
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ matchLabelKeys: [], topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] },
    };
    const r = await t.json('POST', PODS, { body: versioned('merged', { app: 'api', version: 'v2' }, affinity) });
    expect(r.status).toBe(201);
    expect(r.body.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]).toEqual({
      labelSelector: { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'version', operator: 'In', values: ['v2'] }] },
      matchLabelKeys: ['version', 'absent'],
      topologyKey: 'kubernetes.io/hostname',
    });
    expect(r.body.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector).toEqual({
      matchExpressions: [{ key: 'tier', operator: 'Exists' }, { key: 'app', operator: 'NotIn', values: ['api'] }],
    });
    expect(r.body.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector).toEqual({ matchLabels: { app: 'db' } });
    // A later write neither merges again nor finds the merged key a duplicate.
    const relabel = await t.json('PATCH', `${PODS}/merged`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { labels: { version: 'v3' } } } });
    expect(relabel.status).toBe(200);
    expect(relabel.body.spec.affinity).toEqual(r.body.spec.affinity);
  });

  it('refuse a key also in labelSelector, keys without a labelSelector, invalid names and a key in both lists, at kube\'s paths', async () => {
    const dup = await t.json('POST', PODS, {
      body: versioned('dup', { app: 'api', version: 'v2' }, {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { version: 'v1' } }, matchLabelKeys: ['version'], topologyKey: 'kubernetes.io/hostname' }] },
      }),
    });
    expect(dup.status).toBe(422);
    expect(dup.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "version": exists in both matchLabelKeys and labelSelector', field: 'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]' },
    ]);
    const others = await t.json('POST', PODS, {
      body: versioned('others', { app: 'api' }, {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ matchLabelKeys: ['app'], topologyKey: 'kubernetes.io/hostname' }],
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: {}, matchLabelKeys: ['zone'], mismatchLabelKeys: ['/simple', 'zone'], topologyKey: 'kubernetes.io/hostname' } }],
        },
      }),
    });
    expect(others.status).toBe(422);
    expect(others.body.details.causes).toEqual([
      { reason: 'FieldValueForbidden', message: 'Forbidden: must not be specified when labelSelector is not set', field: 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "/simple": prefix part must be non-empty', field: 'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.mismatchLabelKeys[0]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "zone": exists in both matchLabelKeys and mismatchLabelKeys', field: 'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.matchLabelKeys[0]' },
    ]);
  });
});

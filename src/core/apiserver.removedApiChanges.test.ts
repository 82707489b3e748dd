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

describe('admissionregistration.k8s.io/v1 webhook configurations', () => {
  const path = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const webhook = (extra: Record<string, unknown> = {}) => ({ name: 'a.example.com', clientConfig: { url: 'https://hook.example.com/validate' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra });
  const vwc = (name: string, webhooks: unknown[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });

  it('[API-VER-126][API-VER-127][API-VER-128] failurePolicy Fail, matchPolicy Equivalent and timeoutSeconds 10 by default', async () => {
    const t = await newTestServer();
    const r = await create(t, path, vwc('defaults', [webhook()]));
    expect(r.status).toBe(201);
    expect(r.body.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {} });
    const mutating = await create(t, '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' },
      webhooks: [webhook({ clientConfig: { service: { namespace: 'default', name: 'hook' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })],
    });
    expect(mutating.status, JSON.stringify(mutating.body)).toBe(201);
    expect(mutating.body.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, reinvocationPolicy: 'Never', clientConfig: { service: { port: 443 } }, rules: [{ scope: '*' }] });
  });

  it('[API-VER-129][API-VER-130][API-VER-131][API-VER-132] sideEffects None or NoneOnDryRun, admissionReviewVersions required, names unique', async () => {
    const t = await newTestServer();
    const { sideEffects: _s, ...noSideEffects } = webhook();
    const missing = await create(t, path, vwc('no-side-effects', [noSideEffects]));
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes).toContainEqual(expect.objectContaining({ field: 'webhooks[0].sideEffects', reason: 'FieldValueRequired', message: 'Required value: must specify one of None, NoneOnDryRun' }));
    for (const v of ['Some', 'Unknown']) {
      const r = await create(t, path, vwc(`side-${v.toLowerCase()}`, [webhook({ sideEffects: v })]));
      expect(r.status, v).toBe(422);
      expect(r.body.details.causes).toContainEqual(expect.objectContaining({ field: 'webhooks[0].sideEffects', reason: 'FieldValueNotSupported' }));
    }
    const { admissionReviewVersions: _a, ...noVersions } = webhook();
    const noReview = await create(t, path, vwc('no-versions', [noVersions]));
    expect(noReview.status).toBe(422);
    expect(noReview.body.details.causes).toContainEqual(expect.objectContaining({ field: 'webhooks[0].admissionReviewVersions', reason: 'FieldValueRequired' }));
    const dup = await create(t, path, vwc('dup', [webhook(), webhook()]));
    expect(dup.status).toBe(422);
    expect(dup.body.details.causes).toContainEqual(expect.objectContaining({ field: 'webhooks[1].name', reason: 'FieldValueDuplicate' }));
    expect((await create(t, path, vwc('dry', [webhook({ sideEffects: 'NoneOnDryRun' })]))).status).toBe(201);
  });
});

describe('certificates.k8s.io/v1 CertificateSigningRequest', () => {
  const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  // A PEM CSR is needed before the fields under test are checked; any syntactically valid request will do.
  const request = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQlZqQ0IvUUlCQURBUU1RNHdEQVlEVlFRREV3VmhiR2xqWlRCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OQpBd0VIQTBJQUJNdm1GVTVXYzRyV2VnOHUrZm5BNWhUMy9iRTI1VVFQN2M0bGZ4dC9ZUnJuaHhPc21oOXJnZHN3Ck1HZzdSUDNjV3hJK1dLaWdBZWhTZ0puVUNjc0F5WEtnS3pBcEJna3Foa2lHOXcwQkNRNHhIREFhTUJnR0ExVWQKRVFRUk1BK0NEV0ZzYVdObExtVjRZVzF3YkdVd0NnWUlLb1pJemowRUF3SURTQUF3UlFJaEFPbXRYUk1uSDNibwpUR0xtVGhPcXFPN0ZkMzdJbklBaHdSbjBRYUJxS2pQdEFpQm1hZkU1YUQrRGNsQVhNcHRCclUwYnZWWlhFT25lClBxSG9NVitjTHFVbFVnPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';
  const csr = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, ...spec } });

  it('[API-VER-142][API-VER-143][API-VER-144] signerName and usages are required; usages unique and known; legacy-unknown cannot be created', async () => {
    const t = await newTestServer();
    const causes = async (name: string, spec: Record<string, unknown>) => {
      const r = await create(t, path, csr(name, spec));
      expect(r.status, name).toBe(422);
      return r.body.details.causes as { field: string; reason: string }[];
    };
    expect(await causes('no-signer', { usages: ['client auth'] })).toContainEqual(expect.objectContaining({ field: 'spec.signerName', reason: 'FieldValueRequired' }));
    expect(await causes('no-usages', { signerName: 'example.com/signer' })).toContainEqual(expect.objectContaining({ field: 'spec.usages', reason: 'FieldValueRequired' }));
    expect(await causes('dup-usages', { signerName: 'example.com/signer', usages: ['client auth', 'client auth'] })).toContainEqual(expect.objectContaining({ field: 'spec.usages[1]', reason: 'FieldValueDuplicate' }));
    expect(await causes('bad-usage', { signerName: 'example.com/signer', usages: ['flying'] })).toContainEqual(expect.objectContaining({ field: 'spec.usages[0]', reason: 'FieldValueNotSupported' }));
    expect(await causes('legacy', { signerName: 'kubernetes.io/legacy-unknown', usages: ['client auth'] })).toContainEqual(expect.objectContaining({ field: 'spec.signerName' }));
  });
});

describe('events.k8s.io/v1 Event', () => {
  const path = '/apis/events.k8s.io/v1/namespaces/default/events';
  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name },
    eventTime: '2026-01-01T00:00:00.000000Z', type: 'Normal', action: 'Started', reason: 'Started', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, ...extra,
  });

  it('[API-VER-112][API-VER-113][API-VER-114][API-VER-115][API-VER-116][API-VER-117] type Normal or Warning; regarding; action, reason, reportingController and reportingInstance required', async () => {
    const t = await newTestServer();
    const ok = await create(t, path, event('ok'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.regarding).toEqual({ kind: 'Pod', name: 'p', namespace: 'default' });
    const other = await create(t, path, event('other', { type: 'Other' }));
    expect(other.status).toBe(422);
    expect(other.body.details.causes).toContainEqual(expect.objectContaining({ field: 'type' }));
    for (const field of ['action', 'reason', 'reportingController', 'reportingInstance']) {
      const body = event(`no-${field.toLowerCase()}`) as Record<string, unknown>;
      delete body[field];
      const r = await create(t, path, body);
      expect(r.status, field).toBe(422);
      expect(r.body.details.causes.map((c: { field: string }) => c.field), field).toContain(field);
    }
  });
});

describe('authorization.k8s.io/v1 SubjectAccessReview', () => {
  it('[API-VER-141] spec.groups (v1beta1 spec.group) is what the review evaluates', async () => {
    const t = await newTestServer();
    const r = await create(t, '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'someone', groups: ['system:masters'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec.groups).toEqual(['system:masters']);
    expect(r.body.status.allowed).toBe(true);
  });
});

describe('flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration', () => {
  const path = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
  const plc = (name: string, limited: Record<string, unknown>) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' }, ...limited } } });

  it('[API-VER-107][API-VER-108] nominalConcurrencyShares defaults to 30 only when unset; an explicit 0 stays 0', async () => {
    const t = await newTestServer();
    const unset = await create(t, path, plc('unset', {}));
    expect(unset.status, JSON.stringify(unset.body)).toBe(201);
    expect(unset.body.spec.limited.nominalConcurrencyShares).toBe(30);
    const zero = await create(t, path, plc('zero', { nominalConcurrencyShares: 0 }));
    expect(zero.status, JSON.stringify(zero.body)).toBe(201);
    expect(zero.body.spec.limited.nominalConcurrencyShares).toBe(0);
  });
});

describe('discovery.k8s.io/v1 EndpointSlice', () => {
  it('[API-VER-110][API-VER-111] per-endpoint nodeName and zone; topology is spelled deprecatedTopology', async () => {
    const t = await newTestServer();
    const r = await create(t, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'node-1', zone: 'zone-a', deprecatedTopology: { rack: 'r1' } }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.endpoints[0]).toMatchObject({ nodeName: 'node-1', zone: 'zone-a', deprecatedTopology: { rack: 'r1' } });
    expect(r.body.endpoints[0]).not.toHaveProperty('topology');
  });
});


describe('Events through core/v1 and events.k8s.io/v1', () => {
  const CORE = '/api/v1/namespaces/default/events';
  const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';

  it('[API-VER-113][API-VER-118][API-VER-119][API-VER-120] a core/v1 Event read through events.k8s.io/v1: regarding, note, deprecated-prefixed fields', async () => {
    const t = await newTestServer();
    const core = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'c' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Pulled', message: 'pulled',
      firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:01:00Z', count: 2, source: { component: 'kubelet', host: 'n1' }, type: 'Normal',
    };
    expect((await create(t, CORE, core)).status).toBe(201);
    const r = await t.json('GET', `${EVENTS}/c`);
    expect(r.status).toBe(200);
    const { metadata: _m, ...rest } = r.body;
    expect(rest).toEqual({
      kind: 'Event', apiVersion: 'events.k8s.io/v1', regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Pulled', note: 'pulled', type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:01:00Z', deprecatedCount: 2,
    });
    const listed = await t.json('GET', EVENTS);
    expect(listed.body.items[0]).toMatchObject({ regarding: { name: 'p' }, note: 'pulled' });
    expect(listed.body.items[0]).not.toHaveProperty('involvedObject');
  });

  it('an events.k8s.io/v1 Event is stored as a core/v1 Event, and written back through either group', async () => {
    const t = await newTestServer();
    const ev = {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2026-01-01T00:00:00.000000Z', type: 'Warning', action: 'Scheduling', reason: 'FailedScheduling',
      note: '0/1 nodes are available', reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-n1', regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      series: { count: 2, lastObservedTime: '2026-01-01T00:05:00.000000Z' },
    };
    const made = await create(t, EVENTS, ev);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ note: '0/1 nodes are available', regarding: { name: 'p' }, reportingController: 'default-scheduler' });
    const core = await t.json('GET', `${CORE}/e`);
    expect(core.body).toMatchObject({
      apiVersion: 'v1', involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, message: '0/1 nodes are available', reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-n1', action: 'Scheduling', series: { count: 2, lastObservedTime: '2026-01-01T00:05:00.000000Z' },
    });
    expect(core.body).not.toHaveProperty('note');
    // events.k8s.io/v1 keeps note immutable; the series moves on.
    const patched = await t.json('PATCH', `${EVENTS}/e`, { body: { series: { count: 3, lastObservedTime: '2026-01-01T00:06:00.000000Z' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.series.count).toBe(3);
    expect((await t.json('GET', `${CORE}/e`)).body.series.count).toBe(3);
    const immutable = await t.json('PATCH', `${EVENTS}/e`, { body: { note: 'changed' }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(immutable.status).toBe(422);
    const w = await t.watch(`${EVENTS}?watch=true&resourceVersion=${patched.body.metadata.resourceVersion}`);
    await t.json('PATCH', `${CORE}/e`, { body: { message: 'from core' }, headers: { 'content-type': 'application/merge-patch+json' } });
    const event = await w.next();
    w.close();
    expect(event?.type).toBe('MODIFIED');
    expect(event?.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'from core' });
  });
});

describe('autoscaling HorizontalPodAutoscaler across versions', () => {
  const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
  const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
  const spec = {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
    metrics: [
      { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ],
  };

  it('[API-VER-023] created in v2, read and written back in v1, read in v2: the v2 spec is unchanged', async () => {
    const t = await newTestServer();
    const made = await create(t, V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec });
    expect(made.status).toBe(201);
    const v1 = await t.json('GET', `${V1}/web`);
    expect(v1.body.apiVersion).toBe('autoscaling/v1');
    expect(v1.body.spec).toEqual({ scaleTargetRef: spec.scaleTargetRef, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    // What v1 cannot say rides in annotations, in v1's metric layout.
    expect(JSON.parse(v1.body.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([{ type: 'Pods', pods: { metricName: 'rps', targetAverageValue: '100' } }]);
    const put = await t.json('PUT', `${V1}/web`, { body: { ...v1.body, spec: { ...v1.body.spec, maxReplicas: 6 } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const v2 = await t.json('GET', `${V2}/web`);
    expect(v2.body.spec).toEqual({ ...made.body.spec, maxReplicas: 6 });
    expect(v2.body.metadata.annotations).toBeUndefined();
  });

  it('created in v1, read in v2 as a CPU Resource metric', async () => {
    const t = await newTestServer();
    const made = await create(t, V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'cpu' }, spec: { scaleTargetRef: spec.scaleTargetRef, maxReplicas: 3, targetCPUUtilizationPercentage: 75 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.spec.targetCPUUtilizationPercentage).toBe(75);
    const v2 = await t.json('GET', `${V2}/cpu`);
    expect(v2.body.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 75 } } }]);
    expect(v2.body.spec).not.toHaveProperty('targetCPUUtilizationPercentage');
  });
});

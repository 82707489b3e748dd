/**
 * Admission webhooks through handle(): the server POSTs AdmissionReviews to
 * an injected transport standing in for the webhook servers.
 */
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import type { AdmissionWebhookTransport, WebhookCall } from './client';

type Review = { apiVersion: string; kind: string; request: Record<string, any> };
type Handler = (review: Review, call: WebhookCall) => unknown;

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const CMS = '/api/v1/namespaces/default/configmaps';

/** Webhook servers by URL path; each call is recorded. */
function webhookServers(handlers: Record<string, Handler>) {
  const calls: { path: string; url: string; review: Review }[] = [];
  const transport: AdmissionWebhookTransport = async (call) => {
    const url = new URL(call.url);
    const handler = handlers[url.pathname];
    if (!handler) throw new Error(`dial tcp ${url.host}: connect: connection refused`);
    const review = JSON.parse(call.body) as Review;
    calls.push({ path: url.pathname, url: call.url, review });
    const answer = await handler(review, call);
    return { status: 200, body: JSON.stringify(answer) };
  };
  return { transport, calls };
}

const respond = (review: Review, response: Record<string, unknown>) => ({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request['uid'], ...response } });
const allow = (review: Review) => respond(review, { allowed: true });
const patch = (ops: unknown[]) => btoa(JSON.stringify(ops));

function hook(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name, clientConfig: { url: `https://127.0.0.1:9443${path}` }, sideEffects: 'None', admissionReviewVersions: ['v1'],
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], ...extra,
  };
}
const config = (kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', name: string, webhooks: unknown[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks });

async function server(handlers: Record<string, Handler>, validating: unknown[] = [], mutating: unknown[] = [], options: Parameters<typeof newTestServer>[0] = {}): Promise<TestServer & { calls: ReturnType<typeof webhookServers>['calls'] }> {
  const hooks = webhookServers(handlers);
  const t = await newTestServer({ admissionWebhookTransport: hooks.transport, ...options });
  if (validating.length) expect((await t.json('POST', VWC, { body: config('ValidatingWebhookConfiguration', 'validate', validating) })).status).toBe(201);
  if (mutating.length) expect((await t.json('POST', MWC, { body: config('MutatingWebhookConfiguration', 'mutate', mutating) })).status).toBe(201);
  return Object.assign(t, { calls: hooks.calls });
}

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });

describe('ValidatingAdmissionWebhook', () => {
  it('allows, sending an admission.k8s.io/v1 AdmissionReview of the request', async () => {
    const t = await server({ '/validate': allow }, [hook('allow.example.com', '/validate')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(201);
    expect(t.calls).toHaveLength(1);
    const { url, review } = t.calls[0]!;
    expect(url).toBe('https://127.0.0.1:9443/validate?timeout=10s');
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    const req = review.request;
    expect(req['uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(req).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' }, requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'one', namespace: 'default', operation: 'CREATE', oldObject: null, dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' }, userInfo: { username: 'system:anonymous' },
    });
    expect(req['object']).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default' }, data: { a: '1' } });
    // UPDATE carries the stored object as oldObject.
    const u = await t.json('PUT', `${CMS}/one`, { body: { ...r.body, data: { a: '2' } } });
    expect(u.status).toBe(200);
    expect(t.calls[1]!.review.request).toMatchObject({ operation: 'UPDATE', object: { data: { a: '2' } }, oldObject: { data: { a: '1' } }, options: { kind: 'UpdateOptions' } });
  });

  it('a denial with a status answers with its code and reason, the message naming the webhook', async () => {
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'configmaps need an owner' } }) }, [hook('deny.example.com', '/deny')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny.example.com" denied the request: configmaps need an owner', reason: 'Forbidden', code: 403 });
    expect((await t.json('GET', `${CMS}/one`)).status).toBe(404);
  });

  it('a denial without a status is a 400 "without explanation"; a code under 400 becomes 400', async () => {
    let status: Record<string, unknown> | undefined;
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false, ...(status ? { status } : {}) }) }, [hook('deny.example.com', '/deny')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('admission webhook "deny.example.com" denied the request without explanation');
    status = { code: 200, reason: 'NotAllowed' };
    const two = await t.json('POST', CMS, { body: cm('two') });
    expect(two.status).toBe(400);
    expect(two.body.message).toBe('admission webhook "deny.example.com" denied the request: NotAllowed');
  });

  it('warnings become Warning headers; audit annotations do not deny', async () => {
    const t = await server({ '/warn': (rv) => respond(rv, { allowed: true, warnings: ['label "team" is recommended'], auditAnnotations: { checked: 'yes' } }) }, [hook('warn.example.com', '/warn')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBe('299 - "label \\"team\\" is recommended"');
  });

  it('failurePolicy Fail turns an unreachable webhook into a 500; Ignore admits', async () => {
    const t = await server({}, [hook('down.example.com', '/down')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(500);
    const msg = 'failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:9443/down?timeout=10s": dial tcp 127.0.0.1:9443: connect: connection refused';
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${msg}`, reason: 'InternalError', details: { causes: [{ message: msg }] }, code: 500 });
    const ignoring = await server({}, [hook('down.example.com', '/down', { failurePolicy: 'Ignore' })]);
    expect((await ignoring.json('POST', CMS, { body: cm('one') })).status).toBe(201);
  });

  it('timeoutSeconds bounds the call: "context deadline exceeded" under Fail', async () => {
    const slow: Handler = (_rv, call) => new Promise((_resolve, reject) => call.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const t = await server({ '/slow': slow }, [hook('slow.example.com', '/slow', { timeoutSeconds: 1 })]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:9443/slow?timeout=1s": context deadline exceeded');
  });

  it('a non-2xx answer fails the call in the rest client\'s words: a Status body\'s message, else the code\'s', async () => {
    const t = await newTestServer({
      admissionWebhookTransport: async (call) => (new URL(call.url).pathname === '/status'
        ? { status: 500, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook crashed', code: 500 }) }
        : { status: 404, body: 'not here' }),
    });
    expect((await t.json('POST', VWC, { body: config('ValidatingWebhookConfiguration', 'v', [hook('status.example.com', '/status')]) })).status).toBe(201);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('Internal error occurred: failed calling webhook "status.example.com": failed to call webhook: webhook crashed');
    expect((await t.json('DELETE', `${VWC}/v`)).status).toBe(200);
    expect((await t.json('POST', VWC, { body: config('ValidatingWebhookConfiguration', 'w', [hook('missing.example.com', '/missing')]) })).status).toBe(201);
    const missing = await t.json('POST', CMS, { body: cm('one') });
    expect(missing.body.message).toBe('Internal error occurred: failed calling webhook "missing.example.com": failed to call webhook: the server could not find the requested resource');
  });

  it('each call is counted in apiserver_admission_webhook_request_total and timed', async () => {
    const t = await server({ '/validate': (rv) => respond(rv, rv.request['name'] === 'bad' ? { allowed: false, status: { code: 403 } } : { allowed: true }), '/mutate': allow }, [hook('validate.example.com', '/validate')], [hook('mutate.example.com', '/mutate')]);
    expect((await t.json('POST', CMS, { body: cm('good') })).status).toBe(201);
    expect((await t.json('POST', CMS, { body: cm('bad') })).status).toBe(403);
    const text = await (await t.request('GET', '/metrics')).text();
    const lines = text.split('\n').filter((l) => l.startsWith('apiserver_admission_webhook_request_total{'));
    expect(lines.sort()).toEqual([
      'apiserver_admission_webhook_request_total{name="mutate.example.com",type="admit",operation="CREATE",code="200",rejected="false"} 2',
      'apiserver_admission_webhook_request_total{name="validate.example.com",type="validating",operation="CREATE",code="200",rejected="false"} 1',
      'apiserver_admission_webhook_request_total{name="validate.example.com",type="validating",operation="CREATE",code="403",rejected="true"} 1',
    ]);
    expect(text).toContain('apiserver_admission_webhook_admission_duration_seconds_count{name="validate.example.com",type="validating",operation="CREATE",rejected="true"} 1');
  });

  it('an answer for another uid is an invalid response', async () => {
    const t = await server({ '/bad': (rv) => ({ ...respond(rv, { allowed: true }), response: { uid: 'other', allowed: true } }) }, [hook('bad.example.com', '/bad')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(500);
    expect(r.body.message).toMatch(/^Internal error occurred: failed calling webhook "bad.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "other"$/);
  });

  it('rules: operations, resources, and subresources only when named', async () => {
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false }) }, [hook('deny.example.com', '/deny', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    expect((await t.json('POST', CMS, { body: cm('one') })).status).toBe(201);
    const d = await t.json('DELETE', `${CMS}/one`);
    expect(d.status).toBe(400);
    expect(t.calls[0]!.review.request).toMatchObject({ operation: 'DELETE', object: null, oldObject: { metadata: { name: 'one' } }, options: { kind: 'DeleteOptions' } });
  });

  it('namespaceSelector and objectSelector choose the requests', async () => {
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false }) }, [
      hook('deny.example.com', '/deny', { namespaceSelector: { matchLabels: { guarded: 'true' } }, objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] } }),
    ]);
    expect((await t.json('POST', CMS, { body: cm('open') })).status).toBe(201);
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'guarded', labels: { guarded: 'true' } } } })).status).toBe(201);
    const guarded = '/api/v1/namespaces/guarded/configmaps';
    expect((await t.json('POST', guarded, { body: cm('denied') })).status).toBe(400);
    expect((await t.json('POST', guarded, { body: cm('skipped', { skip: 'yes' }) })).status).toBe(201);
    expect(t.calls.map((c) => c.review.request['name'])).toEqual(['denied']);
  });

  it('matchConditions: a false condition skips the webhook; an error fails closed with Forbidden', async () => {
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false }) }, [
      hook('deny.example.com', '/deny', { matchConditions: [{ name: 'not-skipped', expression: "object.metadata.name != 'skipped'" }, { name: 'user', expression: "request.userInfo.username == 'system:anonymous'" }] }),
      hook('broken.example.com', '/deny', { matchConditions: [{ name: 'missing', expression: "object.data.missing == 'x'" }], objectSelector: { matchLabels: { broken: 'true' } } }),
    ]);
    expect((await t.json('POST', CMS, { body: cm('skipped') })).status).toBe(201);
    expect((await t.json('POST', CMS, { body: cm('called') })).status).toBe(400);
    const broken = await t.json('POST', CMS, { body: cm('skipped', { broken: 'true' }) });
    expect(broken.status).toBe(403);
    expect(broken.body.message).toBe(`configmaps "skipped" is forbidden: expression 'object.data.missing == 'x'' resulted in error: no such key: missing`);
  });

  it('matchPolicy Equivalent matches the resource requested in another served version; Exact does not', async () => {
    const v2Rules = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }];
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false }) }, [
      hook('equivalent.example.com', '/deny', { rules: v2Rules }),
      hook('exact.example.com', '/deny', { rules: v2Rules, matchPolicy: 'Exact' }),
    ]);
    const hpa = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 2 } };
    const r = await t.json('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', { body: hpa });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('admission webhook "equivalent.example.com" denied the request without explanation');
    expect(t.calls).toHaveLength(1);
  });

  it('admissionReviewVersions [v1beta1] gets an admission.k8s.io/v1beta1 review', async () => {
    const t = await server({ '/old': allow }, [hook('old.example.com', '/old', { admissionReviewVersions: ['v1beta1'] })]);
    expect((await t.json('POST', CMS, { body: cm('one') })).status).toBe(201);
    expect(t.calls[0]!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  it('configuration writes take effect on the next request; webhook configurations themselves are never sent', async () => {
    const t = await server({ '/deny': (rv) => respond(rv, { allowed: false }) });
    expect((await t.json('POST', CMS, { body: cm('before') })).status).toBe(201);
    const all = hook('deny.example.com', '/deny', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] });
    expect((await t.json('POST', VWC, { body: config('ValidatingWebhookConfiguration', 'all', [all]) })).status).toBe(201);
    expect((await t.json('POST', CMS, { body: cm('after') })).status).toBe(400);
    expect((await t.json('DELETE', `${VWC}/all`)).status).toBe(200);
    expect((await t.json('POST', CMS, { body: cm('after') })).status).toBe(201);
    expect(t.calls.map((c) => c.review.request['resource'].resource)).toEqual(['configmaps']);
  });
});

describe('MutatingAdmissionWebhook', () => {
  it('a JSONPatch is applied before validation and stored', async () => {
    const mutate: Handler = (rv) => respond(rv, { allowed: true, patchType: 'JSONPatch', patch: patch([{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }]) });
    const t = await server({ '/mutate': mutate, '/validate': allow }, [hook('validate.example.com', '/validate')], [hook('mutate.example.com', '/mutate')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ mutated: 'yes' });
    expect((await t.json('GET', `${CMS}/one`)).body.metadata.labels).toEqual({ mutated: 'yes' });
    // Mutating before validating: the validating webhook saw the patched object.
    expect(t.calls.map((c) => c.path)).toEqual(['/mutate', '/validate']);
    expect(t.calls[1]!.review.request['object'].metadata.labels).toEqual({ mutated: 'yes' });
  });

  it('a create reaches mutating webhooks as before BeforeCreate: no uid, creationTimestamp null, no generated name; validating ones see them', async () => {
    const t = await server({ '/mutate': allow, '/validate': allow }, [hook('validate.example.com', '/validate')], [hook('mutate.example.com', '/mutate')]);
    const r = await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    expect(r.status).toBe(201);
    const [mutating, validating] = t.calls.map((c) => c.review.request);
    expect(mutating!['name']).toBeUndefined();
    // managedFields are there: the field manager runs before admission, as in kube.
    const { managedFields, ...meta } = mutating!['object'].metadata;
    expect(meta).toEqual({ generateName: 'gen-', namespace: 'default', creationTimestamp: null });
    expect(managedFields).toHaveLength(1);
    expect(validating!['name']).toBe(r.body.metadata.name);
    expect(validating!['object'].metadata).toMatchObject({ name: r.body.metadata.name, uid: r.body.metadata.uid, creationTimestamp: r.body.metadata.creationTimestamp });
  });

  it('webhooks run in order, each seeing the previous patch; IfNeeded webhooks are called again after a later change', async () => {
    const add = (key: string): Handler => (rv) => {
      const labels = rv.request['object'].metadata.labels ?? {};
      return respond(rv, labels[key] ? { allowed: true } : { allowed: true, patchType: 'JSONPatch', patch: patch([{ op: 'add', path: `/metadata/labels/${key}`, value: String(Object.keys(labels).length) }]) });
    };
    const t = await server({ '/first': add('first'), '/second': add('second') }, [], [hook('first.example.com', '/first', { reinvocationPolicy: 'IfNeeded' }), hook('second.example.com', '/second')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ first: '0', second: '1' });
    expect(t.calls.map((c) => c.path)).toEqual(['/first', '/second', '/first']);
  });

  it('a patched object is defaulted as kube decodes it: a container a webhook adds has its defaults before the next webhook and in storage', async () => {
    const podRules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };
    const sidecar = { name: 'proxy', image: 'envoy:1.30' };
    const inject: Handler = (rv) => respond(rv, { allowed: true, patchType: 'JSONPatch', patch: patch([{ op: 'add', path: '/spec/containers/-', value: sidecar }]) });
    const t = await server({ '/inject': inject, '/second': allow }, [], [hook('inject.example.com', '/inject', podRules), hook('second.example.com', '/second', podRules)]);
    await t.json('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    const r = await t.json('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } });
    expect(r.status).toBe(201);
    const defaulted = { imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} };
    expect(r.body.spec.containers[1]).toMatchObject({ ...sidecar, ...defaulted });
    // The next webhook was sent the defaulted sidecar.
    expect(t.calls.map((c) => c.path)).toEqual(['/inject', '/second']);
    expect(t.calls[1]!.review.request['object'].spec.containers[1]).toEqual({ ...sidecar, ...defaulted });
    // The creator's managedFields were recorded before admission: the injected container is nobody's.
    expect(Object.keys(r.body.metadata.managedFields[0].fieldsV1['f:spec']['f:containers'])).toEqual(['k:{"name":"app"}']);
  });

  it('a delete reaches mutating webhooks with neither object (they may refuse it), then validating ones with oldObject', async () => {
    const deleteRules = [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
    let refuse = true;
    const t = await server({ '/v': allow, '/m': (rv) => respond(rv, refuse ? { allowed: false, status: { message: 'keep it', code: 403 } } : { allowed: true }) }, [hook('v.example.com', '/v', { rules: deleteRules })], [hook('m.example.com', '/m', { rules: deleteRules })]);
    expect((await t.json('POST', CMS, { body: cm('one') })).status).toBe(201);
    const refused = await t.json('DELETE', `${CMS}/one`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('admission webhook "m.example.com" denied the request: keep it');
    refuse = false;
    expect((await t.json('DELETE', `${CMS}/one`)).status).toBe(200);
    expect(t.calls.map((c) => [c.path, c.review.request['name'], c.review.request['object'], c.review.request['oldObject']?.metadata.name ?? null])).toEqual([
      ['/m', 'one', null, null], ['/m', 'one', null, null], ['/v', 'one', null, 'one'],
    ]);
  });

  it('a create in a namespace that does not exist is NotFound before any webhook is called (NamespaceLifecycle comes first)', async () => {
    const t = await server({}, [], [hook('down.example.com', '/down')]);
    const r = await t.json('POST', '/api/v1/namespaces/nope/configmaps', { body: cm('one') });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "nope" not found');
    expect((await t.json('POST', CMS, { body: cm('one') })).status).toBe(500);
  });

  it('a validating webhook may not patch; an unsupported patchType is an invalid response', async () => {
    const t = await server({ '/p': (rv) => respond(rv, { allowed: true, patchType: 'JSONPatch', patch: patch([]) }) }, [hook('p.example.com', '/p')]);
    const r = await t.json('POST', CMS, { body: cm('one') });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('Internal error occurred: failed calling webhook "p.example.com": received invalid webhook response: validating webhooks may not return patches or patch types');
  });
});

describe('writes no request makes', () => {
  it("a ReplicaSet's pods reach a mutating webhook, as kube-controller-manager", async () => {
    const inject: Handler = (rv) => respond(rv, { allowed: true, patchType: 'JSONPatch', patch: patch([{ op: 'add', path: '/metadata/labels/injected', value: 'true' }]) });
    const podRules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];
    const t = await server({ '/inject': inject }, [], [hook('inject.example.com', '/inject', { rules: podRules })], { controllers: ['*', '-deployment-controller', '-root-ca-certificate-publisher-controller'] });
    const rs = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/replicasets', { body: rs })).status).toBe(201);
    let pods: any[] = [];
    for (let i = 0; i < 200 && !pods.length; i++) {
      pods = (await t.json('GET', '/api/v1/namespaces/default/pods')).body.items;
      if (!pods.length) await new Promise((r) => setTimeout(r, 10));
    }
    expect(pods).toHaveLength(1);
    expect(pods[0].metadata.labels).toEqual({ app: 'web', injected: 'true' });
    expect(t.calls).toHaveLength(1);
    expect(t.calls[0]!.review.request).toMatchObject({ operation: 'CREATE', namespace: 'default', resource: { resource: 'pods' }, userInfo: { username: 'system:kube-controller-manager', groups: ['system:authenticated'] } });
  });
});

describe('dry run and sideEffects', () => {
  it('[API-DRY-012] sideEffects None and NoneOnDryRun are called on dry runs with dryRun true; nothing is stored', async () => {
    const t = await server({ '/a': allow, '/b': allow }, [hook('none.example.com', '/a'), hook('noneondryrun.example.com', '/b', { sideEffects: 'NoneOnDryRun' })]);
    const r = await t.json('POST', `${CMS}?dryRun=All`, { body: cm('one') });
    expect(r.status).toBe(201);
    expect(t.calls.map((c) => [c.path, c.review.request['dryRun'], c.review.request['options']])).toEqual([
      ['/a', true, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] }],
      ['/b', true, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] }],
    ]);
    expect((await t.json('GET', `${CMS}/one`)).status).toBe(404);
  });

  it('[API-DRY-010] a dry run that would reach a webhook with sideEffects Some is refused with 400, the webhook not called', async () => {
    const t = await server({ '/a': allow }, [hook('sideeffects.example.com', '/a')]);
    // v1 only accepts None/NoneOnDryRun: a configuration stored by an older release still says Some.
    const key = (await t.storage.range('/registry/')).kvs.map((k) => k.key).find((k) => k.endsWith('validatingwebhookconfigurations/validate'))!;
    const kv = await t.storage.get(key);
    expect(kv).toBeDefined();
    const stored = JSON.parse(kv!.value);
    stored.webhooks[0].sideEffects = 'Some';
    await t.storage.update(key, JSON.stringify(stored), kv!.modRevision);
    const r = await t.json('POST', `${CMS}?dryRun=All`, { body: cm('one') });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "sideeffects.example.com" does not support dry run', reason: 'BadRequest', code: 400 });
    expect(t.calls).toHaveLength(0);
    // The real request calls it.
    expect((await t.json('POST', CMS, { body: cm('one') })).status).toBe(201);
    expect(t.calls).toHaveLength(1);
  });
});

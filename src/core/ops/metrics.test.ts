/** /metrics and /metrics/slis through handle(), read back with a Prometheus text-format parser. */
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { Counter, formatValue, Gauge, Histogram, MetricsRegistry } from './metrics';

async function scrape(t: TestServer, path = '/metrics'): Promise<ParsedFamily[]> {
  const r = await t.request('GET', path);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusTextFormat(await r.text());
}

const family = (families: ParsedFamily[], name: string) => families.find((f) => f.name === name);

function sample(families: ParsedFamily[], name: string, labels: Record<string, string>) {
  return family(families, name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

describe('/metrics', () => {
  it('[AC-METRICS-010] apiserver_request_total counts requests by verb, group, version, resource, subresource, scope, component and code', async () => {
    const t = await newTestServer();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm })).status).toBe(409);
    await t.request('GET', '/api/v1/namespaces/default/configmaps/a');
    await t.request('GET', '/api/v1/namespaces/default/configmaps/missing');
    await t.request('GET', '/apis/apps/v1/deployments');
    await t.request('PATCH', '/api/v1/namespaces/default/configmaps/a?fieldManager=m', { body: cm, headers: { 'content-type': 'application/apply-patch+yaml' } });
    await t.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: { ...cm, metadata: { name: 'b' } } });
    await t.request('GET', '/api/v1/namespaces/default/pods/nope/log');
    const f = await scrape(t);
    const total = family(f, 'apiserver_request_total')!;
    expect(total.type).toBe('COUNTER');
    expect(total.help).toBe('[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    const base = { dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver' };
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'POST', scope: 'namespace', code: '201' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'POST', scope: 'namespace', code: '409' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'GET', scope: 'resource', code: '200' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'GET', scope: 'resource', code: '404' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'APPLY', scope: 'resource', code: '200' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, dry_run: 'All', verb: 'POST', scope: 'namespace', code: '201' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, group: 'apps', resource: 'deployments', verb: 'LIST', scope: 'cluster', code: '200' }, value: '1' });
    expect(sample(f, 'apiserver_request_total', { resource: 'pods', subresource: 'log', verb: 'GET' })).toBeDefined();
    // Non-resource requests (this scrape, /healthz) are not counted, as in kube-apiserver.
    expect(total.metrics.every((m) => m.labels?.['resource'] !== '')).toBe(true);
  });

  it('apiserver_request_duration_seconds is a classic histogram with kube-apiserver\'s buckets', async () => {
    const t = await newTestServer();
    await t.request('GET', '/api/v1/namespaces');
    await t.request('GET', '/api/v1/namespaces');
    const text = await (await t.request('GET', '/metrics')).text();
    expect(family(parsePrometheusTextFormat(text), 'apiserver_request_duration_seconds')!.type).toBe('HISTOGRAM');
    // The parser folds labelled histograms into one sample, so the series is read line by line.
    const series = 'verb="LIST",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver"';
    const buckets = [...text.matchAll(new RegExp(`^apiserver_request_duration_seconds_bucket\\{${series},le="([^"]+)"\\} (\\d+)$`, 'gm'))];
    expect(buckets.map((m) => m[1])).toEqual(['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    // Cumulative: counts never decrease and +Inf holds them all.
    const counts = buckets.map((m) => Number(m[2]));
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
    expect(counts.at(-1)).toBe(2);
    expect(text).toContain(`apiserver_request_duration_seconds_count{${series}} 2\n`);
    expect(text).toMatch(new RegExp(`^apiserver_request_duration_seconds_sum\\{${series}\\} \\S+$`, 'm'));
  });

  it('apiserver_current_inflight_requests counts this scrape as a readOnly request', async () => {
    const t = await newTestServer();
    const f = await scrape(t);
    expect(sample(f, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })?.value).toBe('1');
    expect(sample(f, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })?.value).toBe('0');
    expect(family(f, 'apiserver_current_inflight_requests')!.type).toBe('GAUGE');
  });

  it('apiserver_storage_objects counts stored objects per resource (group-qualified outside the core group)', async () => {
    const t = await newTestServer();
    for (const name of ['a', 'b', 'c']) await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    await t.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } } });
    // kube-controller-manager's LeaderElection event is the one Event.
    await eventually(async () => (await t.json('GET', '/api/v1/events')).body.items.length, (n) => n === 1, 'the LeaderElection event');
    const f = await scrape(t);
    expect(sample(f, 'apiserver_storage_objects', { resource: 'configmaps' })?.value).toBe('3');
    expect(sample(f, 'apiserver_storage_objects', { resource: 'deployments.apps' })?.value).toBe('1');
    expect(sample(f, 'apiserver_storage_objects', { resource: 'namespaces' })?.value).toBe('4');
    // Events are stored once though served by two groups.
    expect(sample(f, 'apiserver_storage_objects', { resource: 'events.events.k8s.io' })).toBeUndefined();
    expect(sample(f, 'apiserver_storage_objects', { resource: 'events' })?.value).toBe('1');
  });

  it('[API-METRICS-007][API-METRICS-008] a request to a deprecated version sets apiserver_requested_deprecated_apis to 1', async () => {
    const t = await newTestServer();
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1beta1', served: true, storage: false, deprecated: true, schema }, { name: 'v1', served: true, storage: true, schema }],
      },
    };
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    await t.request('GET', '/apis/example.com/v1/namespaces/default/widgets');
    expect(family(await scrape(t), 'apiserver_requested_deprecated_apis')).toBeUndefined();
    await t.request('GET', '/apis/example.com/v1beta1/namespaces/default/widgets');
    await t.request('GET', '/apis/example.com/v1beta1/namespaces/default/widgets');
    const f = await scrape(t);
    const d = family(f, 'apiserver_requested_deprecated_apis')!;
    expect(d.type).toBe('GAUGE');
    expect(d.metrics).toEqual([{ labels: { group: 'example.com', version: 'v1beta1', resource: 'widgets', subresource: '', removed_release: '' }, value: '1' }]);
    // It joins apiserver_request_total on group, version, resource and subresource.
    expect(sample(f, 'apiserver_request_total', { group: 'example.com', version: 'v1beta1', resource: 'widgets', subresource: '' })?.value).toBe('2');
  });

  it('kubernetes_feature_enabled reports each gate with its stage', async () => {
    const t = await newTestServer({ featureGates: { APIResponseCompression: false } });
    const f = await scrape(t);
    expect(family(f, 'kubernetes_feature_enabled')!.help.startsWith('[BETA] ')).toBe(true);
    expect(sample(f, 'kubernetes_feature_enabled', { name: 'APIResponseCompression' })).toEqual({ labels: { name: 'APIResponseCompression', stage: 'BETA' }, value: '0' });
    expect(sample(f, 'kubernetes_feature_enabled', { name: 'AllowUnsafeMalformedObjectDeletion' })).toEqual({ labels: { name: 'AllowUnsafeMalformedObjectDeletion', stage: 'ALPHA' }, value: '0' });
  });

  it('families are sorted by name and every one has HELP and TYPE lines', async () => {
    const t = await newTestServer();
    await t.request('GET', '/api/v1/namespaces');
    const text = await (await t.request('GET', '/metrics')).text();
    const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['apiserver_current_inflight_requests', 'apiserver_request_duration_seconds', 'apiserver_request_total', 'apiserver_storage_objects', 'kubernetes_feature_enabled']));
    for (const n of names) expect(text).toContain(`# HELP ${n} [`);
  });
});

describe('/metrics/slis', () => {
  it('[AC-METRICS-001][AC-METRICS-003][AC-METRICS-005][AC-METRICS-006][AC-METRICS-007][AC-METRICS-008] health check gauge and counter per check and endpoint', async () => {
    const t = await newTestServer();
    await t.request('GET', '/readyz');
    await t.request('GET', '/readyz');
    await t.request('GET', '/livez/ping');
    t.server.health.startShutdown();
    await t.request('GET', '/readyz');
    const f = await scrape(t, '/metrics/slis');
    expect(f.map((x) => x.name)).toEqual(['kubernetes_healthcheck', 'kubernetes_healthchecks_total']);
    expect(family(f, 'kubernetes_healthcheck')!.type).toBe('GAUGE');
    expect(family(f, 'kubernetes_healthchecks_total')!.type).toBe('COUNTER');
    expect(sample(f, 'kubernetes_healthcheck', { name: 'etcd', type: 'readyz' })?.value).toBe('1');
    expect(sample(f, 'kubernetes_healthcheck', { name: 'shutdown', type: 'readyz' })?.value).toBe('0');
    expect(sample(f, 'kubernetes_healthchecks_total', { name: 'etcd', status: 'success', type: 'readyz' })?.value).toBe('3');
    expect(sample(f, 'kubernetes_healthchecks_total', { name: 'shutdown', status: 'error', type: 'readyz' })?.value).toBe('1');
    expect(sample(f, 'kubernetes_healthchecks_total', { name: 'ping', status: 'success', type: 'livez' })?.value).toBe('1');
    expect(family(f, 'kubernetes_healthcheck')!.metrics.every((m) => ['healthz', 'livez', 'readyz'].includes(m.labels!['type']!))).toBe(true);
  });
});

describe('text exposition', () => {
  it('escapes label values and HELP text, and writes floats as Go does', async () => {
    const r = new MetricsRegistry();
    r.register(new Counter({ name: 'x_total', help: 'a\\b\nc', labels: ['l'] })).inc(['q"\\\n']);
    r.register(new Histogram({ name: 'h', help: 'h', buckets: [0.5] })).observe([], 2);
    expect(await r.exposition()).toBe('# HELP h [ALPHA] h\n# TYPE h histogram\nh_bucket{le="0.5"} 0\nh_bucket{le="+Inf"} 1\nh_sum 2\nh_count 1\n'
      + '# HELP x_total [ALPHA] a\\\\b\\nc\n# TYPE x_total counter\nx_total{l="q\\"\\\\\\n"} 1\n');
    expect(parsePrometheusTextFormat(await r.exposition()).find((f) => f.name === 'x_total')!.metrics[0]!.labels).toEqual({ l: 'q"\\\n' });
    expect([1e-5, 0.0001, 123456, 1e6, 1234567, 0.5, 60].map(formatValue)).toEqual(['1e-05', '0.0001', '123456', '1e+06', '1.234567e+06', '0.5', '60']);
  });

  it('a const metric carries its sample time in ms; a raw metric (cAdvisor\'s) has its HELP as written', async () => {
    const r = new MetricsRegistry();
    r.register(new Counter({ name: 'c_total', help: 'c', stability: 'STABLE' })).set([], 1.5, 1767225660000);
    r.register(new Gauge({ name: 'g', help: 'Raw help.', labels: ['a'], raw: true })).set(['x'], 3);
    expect(await r.exposition()).toBe('# HELP c_total [STABLE] c\n# TYPE c_total counter\nc_total 1.5 1767225660000\n# HELP g Raw help.\n# TYPE g gauge\ng{a="x"} 3\n');
  });
});

describe('deprecated and hidden metrics', () => {
  // kubesim serves no metric that 1.36 deprecates, so these drive the registry /metrics exposes with metrics of their own.
  function registryAt(showHiddenMetricsForVersion?: string): MetricsRegistry {
    const r = new MetricsRegistry({ currentVersion: '1.36.0', showHiddenMetricsForVersion });
    r.register(new Counter({ name: 'current_total', help: 'Not deprecated.' })).inc();
    r.register(new Counter({ name: 'recent_total', help: 'Deprecated a release ago.', stability: 'STABLE', deprecatedVersion: '1.35.0' })).inc();
    r.register(new Counter({ name: 'window_total', help: 'Deprecated three releases ago.', deprecatedVersion: '1.33.0' })).inc();
    r.register(new Counter({ name: 'old_total', help: 'Deprecated four releases ago.', deprecatedVersion: '1.32.0' })).inc();
    r.register(new Counter({ name: 'future_total', help: 'Deprecated from a later release.', deprecatedVersion: '1.37.0' })).inc();
    return r;
  }

  it('[API-METRICS-010][API-METRICS-012] a deprecated metric stays exposed with "(Deprecated since ...)" after its stability class', async () => {
    const f = parsePrometheusTextFormat(await registryAt().exposition());
    expect(family(f, 'recent_total')).toMatchObject({ help: '[STABLE] (Deprecated since 1.35.0) Deprecated a release ago.', metrics: [{ value: '1' }] });
    expect(family(f, 'current_total')!.help).toBe('[ALPHA] Not deprecated.');
    expect(family(f, 'future_total')!.help).toBe('[ALPHA] Deprecated from a later release.');
  });

  it('[API-METRICS-013] three minors after its deprecation a metric is hidden', async () => {
    const names = parsePrometheusTextFormat(await registryAt().exposition()).map((x) => x.name);
    expect(names).toEqual(['current_total', 'future_total', 'recent_total']);
  });

  it('[API-METRICS-014] --show-hidden-metrics-for-version=1.35 shows again what 1.35 still showed, not older ones', async () => {
    const names = parsePrometheusTextFormat(await registryAt('1.35').exposition()).map((x) => x.name);
    expect(names).toEqual(['current_total', 'future_total', 'recent_total', 'window_total']);
  });

  it('[API-METRICS-014] the flag takes only the previous minor version: any other refuses to start', async () => {
    await expect(newTestServer({ showHiddenMetricsForVersion: '1.34' })).rejects.toThrow("--show-hidden-metrics-for-version must be omitted or have the value '1.35'. Only the previous minor version is allowed");
    const t = await newTestServer({ showHiddenMetricsForVersion: '1.35' });
    expect((await t.request('GET', '/metrics')).status).toBe(200);
  });
});

describe('watch, admission and CEL metrics', () => {
  const value = (f: ParsedFamily[], name: string, labels: Record<string, string>) => Number(sample(f, name, labels)?.value ?? 0);
  /** The _count of the histogram series whose labels include `labels`, summed (the parser keeps no labels on histograms, so the text is read). */
  const histogramCount = async (t: TestServer, name: string, labels: Record<string, string>) => {
    const text = await (await t.request('GET', '/metrics')).text();
    let total = 0;
    for (const m of text.matchAll(new RegExp(`^${name}_count(?:\\{(.*)\\})? (\\S+)$`, 'gm'))) {
      const got = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      if (Object.entries(labels).every(([k, v]) => got[k] === v)) total += Number(m[2]);
    }
    return total;
  };

  it('apiserver_watch_events_total and apiserver_watch_events_sizes count every event sent, by group, version and resource', async () => {
    const t = await newTestServer();
    const w = await t.watch('/api/v1/namespaces/default/configmaps?watch=true');
    for (const name of ['a', 'b']) await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    await w.next();
    await w.next();
    w.close();
    const f = await scrape(t);
    expect(value(f, 'apiserver_watch_events_total', { group: '', version: 'v1', resource: 'configmaps' })).toBe(2);
    expect(await histogramCount(t, 'apiserver_watch_events_sizes', { group: '', version: 'v1', resource: 'configmaps' })).toBe(2);
    expect(family(f, 'apiserver_watch_events_sizes')!.type).toBe('HISTOGRAM');
  });

  it('admission step and controller durations, and ValidatingAdmissionPolicy checks by action taken', async () => {
    const t = await newTestServer();
    const rules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
    await t.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-bad' },
      spec: { failurePolicy: 'Fail', matchConstraints: rules, validations: [{ expression: "object.metadata.name != 'bad'" }] },
    } });
    await t.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-bad-binding' }, spec: { policyName: 'no-bad', validationActions: ['Deny'] },
    } });
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good' } } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } } })).status).toBe(422);
    const f = await scrape(t);
    expect(family(f, 'apiserver_admission_step_admission_duration_seconds')!.help.startsWith('[STABLE] ')).toBe(true);
    expect(await histogramCount(t, 'apiserver_admission_step_admission_duration_seconds', { type: 'validate', operation: 'CREATE', rejected: 'true' })).toBe(1);
    expect(await histogramCount(t, 'apiserver_admission_step_admission_duration_seconds', { type: 'validate', operation: 'CREATE', rejected: 'false' })).toBeGreaterThanOrEqual(3);
    expect(await histogramCount(t, 'apiserver_admission_controller_admission_duration_seconds', { name: 'ValidatingAdmissionPolicy', operation: 'CREATE', rejected: 'true' })).toBe(1);
    const check = { policy: 'no-bad', policy_binding: 'no-bad-binding' };
    expect(value(f, 'apiserver_validating_admission_policy_check_total', { ...check, error_type: 'no_error', enforcement_action: 'allow' })).toBe(1);
    expect(value(f, 'apiserver_validating_admission_policy_check_total', { ...check, error_type: 'invalid_error', enforcement_action: 'deny' })).toBe(1);
    expect(await histogramCount(t, 'apiserver_validating_admission_policy_check_duration_seconds', { ...check, enforcement_action: 'deny' })).toBe(1);
  });

  it('apiserver_cel_compilation_duration_seconds and apiserver_cel_evaluation_duration_seconds time CRD validation rules', async () => {
    const t = await newTestServer();
    const count = (name: string) => histogramCount(t, name, {});
    const compiled = await count('apiserver_cel_compilation_duration_seconds');
    const evaluated = await count('apiserver_cel_evaluation_duration_seconds');
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size <= 3' }] } } } };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
    };
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const gadget = (name: string, size: number) => ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name }, spec: { size } });
    expect((await t.request('POST', '/apis/example.com/v1/namespaces/default/gadgets', { body: gadget('ok', 1) })).status).toBe(201);
    expect((await t.request('POST', '/apis/example.com/v1/namespaces/default/gadgets', { body: gadget('big', 9) })).status).toBe(422);
    // Metrics of the process-wide registry: other servers in this process add to them too.
    expect(await count('apiserver_cel_compilation_duration_seconds')).toBeGreaterThan(compiled);
    expect(await count('apiserver_cel_evaluation_duration_seconds')).toBeGreaterThanOrEqual(evaluated + 2);
  });
});

/**
 * API enablement and deprecation through handle(): --runtime-config as
 * discovery and resource paths see it, and the Warning header and metric a
 * request to a deprecated built-in version gets.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';
import { testCertificateRequestPem } from './testing/certificates';

async function groupVersions(t: TestServer): Promise<string[]> {
  const r = await t.json('GET', '/apis');
  return (r.body.groups as { versions: { groupVersion: string }[] }[]).flatMap((g) => g.versions.map((v) => v.groupVersion));
}

describe('--runtime-config over HTTP', () => {
  it('[API-VER-019][API-VER-168] batch/v1=false: gone from /apis, the group version and its resources answer 404', async () => {
    const t = await newTestServer({ runtimeConfig: 'batch/v1=false' });
    expect(await groupVersions(t)).not.toContain('batch/v1');
    expect((await t.request('GET', '/apis/batch/v1')).status).toBe(404);
    expect((await t.request('GET', '/apis/batch')).status).toBe(404);
    // No batch web service is installed, so the NotFoundHandler answers (plain text), as for any unknown group.
    const jobs = await t.request('GET', '/apis/batch/v1/namespaces/default/jobs');
    expect(jobs.status).toBe(404);
    expect(await jobs.text()).toBe('404 page not found\n');
    expect((await groupVersions(await newTestServer())).includes('batch/v1')).toBe(true);
  });

  it('[API-VER-004][API-VER-007][API-VER-020] alpha and post-1.22 beta versions are off by default; one resource can be enabled alone', async () => {
    const t = await newTestServer();
    const served = await groupVersions(t);
    // kubesim's own group (cel.kubesim.dev) is not a built-in Kubernetes version.
    expect(served.filter((gv) => /alpha|beta/.test(gv) && !gv.includes('kubesim.dev'))).toEqual([]);
    expect((await t.request('GET', '/apis/networking.k8s.io/v1beta1/ipaddresses')).status).toBe(404);
    const one = await newTestServer({ runtimeConfig: 'networking.k8s.io/v1beta1/ipaddresses=true' });
    const list = await one.json('GET', '/apis/networking.k8s.io/v1beta1');
    expect(list.status).toBe(200);
    expect((list.body.resources as { name: string }[]).map((r) => r.name)).toEqual(['ipaddresses']);
    expect((await one.request('GET', '/apis/networking.k8s.io/v1beta1/ipaddresses')).status).toBe(200);
    expect((await one.request('GET', '/apis/networking.k8s.io/v1beta1/servicecidrs')).status).toBe(404);
  });

  it('[API-VER-018] a key without a value enables the version', async () => {
    const t = await newTestServer({ runtimeConfig: 'coordination.k8s.io/v1beta1' });
    expect(await groupVersions(t)).toContain('coordination.k8s.io/v1beta1');
  });
});

describe('deprecated built-in versions', () => {
  it('[API-VER-002][API-VER-051][API-ERR-019] every answer for v1 Endpoints carries the Warning kube-apiserver sends, errors included', async () => {
    const t = await newTestServer();
    const warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
    const list = await t.request('GET', '/api/v1/namespaces/default/endpoints');
    expect(list.status).toBe(200);
    expect(list.headers.get('warning')).toBe(warning);
    const created = await t.request('POST', '/api/v1/namespaces/default/endpoints', { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' } } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe(warning);
    const missing = await t.request('GET', '/api/v1/namespaces/default/endpoints/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('warning')).toBe(warning);
    expect((await t.request('GET', '/api/v1/componentstatuses')).headers.get('warning')).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    // Versions that are not deprecated answer without one.
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).headers.get('warning')).toBeNull();
    expect((await t.request('GET', '/apis/discovery.k8s.io/v1/endpointslices')).headers.get('warning')).toBeNull();
  });

  it('[API-VER-051] an enabled beta version past its deprecation names its removal release and replacement', async () => {
    const t = await newTestServer({ runtimeConfig: 'networking.k8s.io/v1beta1=true,coordination.k8s.io/v1beta1=true,admissionregistration.k8s.io/v1beta1=true' });
    expect((await t.request('GET', '/apis/networking.k8s.io/v1beta1/ipaddresses')).headers.get('warning'))
      .toBe('299 - "networking.k8s.io/v1beta1 IPAddress is deprecated in v1.34+, unavailable in v1.37+; use networking.k8s.io/v1 IPAddress"');
    expect((await t.request('GET', '/apis/coordination.k8s.io/v1beta1/leasecandidates')).headers.get('warning'))
      .toBe('299 - "coordination.k8s.io/v1beta1 LeaseCandidate is deprecated in v1.36+, unavailable in v1.39+"');
    // Introduced in 1.34: not deprecated before 1.37.
    expect((await t.request('GET', '/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies')).headers.get('warning')).toBeNull();
  });

  it('[API-METRICS-007][API-METRICS-008] apiserver_requested_deprecated_apis names the removal release of a built-in version', async () => {
    const t = await newTestServer({ runtimeConfig: 'networking.k8s.io/v1beta1=true' });
    await t.request('GET', '/apis/networking.k8s.io/v1beta1/servicecidrs');
    await t.request('GET', '/api/v1/namespaces/default/endpoints');
    const text = await (await t.request('GET', '/metrics')).text();
    const d = parsePrometheusTextFormat(text).find((f) => f.name === 'apiserver_requested_deprecated_apis')!;
    expect(d.metrics).toEqual([
      { labels: { group: '', version: 'v1', resource: 'endpoints', subresource: '', removed_release: '' }, value: '1' },
      { labels: { group: 'networking.k8s.io', version: 'v1beta1', resource: 'servicecidrs', subresource: '', removed_release: '1.37' }, value: '1' },
    ]);
  });
});

describe('audit annotations of deprecated versions', () => {
  const trace = (r: Response) => JSON.parse(decodeURIComponent(r.headers.get('x-kubesim-trace') ?? '[]')) as { stage: string; details?: Record<string, string> }[];

  it('[API-VER-052] a request to a deprecated version is annotated k8s.io/deprecated=true (and its removal release)', async () => {
    const t = await newTestServer({ runtimeConfig: 'networking.k8s.io/v1beta1=true' });
    const beta = await t.request('GET', '/apis/networking.k8s.io/v1beta1/ipaddresses', { headers: { 'x-kubesim-trace': '1' } });
    expect(trace(beta).find((e) => e.stage === 'audit')?.details).toEqual({ 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.37' });
    const endpoints = await t.request('GET', '/api/v1/namespaces/default/endpoints', { headers: { 'x-kubesim-trace': '1' } });
    expect(trace(endpoints).find((e) => e.stage === 'audit')?.details).toEqual({ 'k8s.io/deprecated': 'true' });
    const current = await t.request('GET', '/apis/networking.k8s.io/v1/ipaddresses', { headers: { 'x-kubesim-trace': '1' } });
    expect(trace(current).some((e) => e.stage === 'audit')).toBe(false);
  });
});

describe('group and version in paths and objects', () => {
  it('[API-VER-014] [API-VER-015] core objects are v1 under /api/v1; other groups are <group>/<version> under /apis/<group>/<version>', async () => {
    const t = await newTestServer();
    const ns = await t.json('GET', '/api/v1/namespaces/default');
    expect(ns.status).toBe(200);
    expect(ns.body.apiVersion).toBe('v1');
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } };
    expect((await t.json('POST', '/apis/batch/v1/namespaces/default/jobs', { body: job })).status).toBe(201);
    const got = await t.json('GET', '/apis/batch/v1/namespaces/default/jobs/j1');
    expect(got.body.apiVersion).toBe('batch/v1');
    expect(got.body.kind).toBe('Job');
    // The core group has no /apis/<group> path, and the group name is not part of its apiVersion.
    expect((await t.json('GET', '/apis/v1/namespaces/default')).status).toBe(404);
  });
});

describe('fields changed by the move to a newer version', () => {
  it('[API-VER-123] events.k8s.io/v1: the deprecated-prefixed fields are refused on a new Event', async () => {
    const t = await newTestServer();
    const event = (extra: Record<string, unknown>) => ({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: `e${Object.keys(extra).length}` }, eventTime: '2026-01-01T00:00:00.000000Z',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Pull', reason: 'Pulled', type: 'Normal', ...extra,
    });
    expect((await t.json('POST', '/apis/events.k8s.io/v1/namespaces/default/events', { body: event({}) })).status).toBe(201);
    const r = await t.json('POST', '/apis/events.k8s.io/v1/namespaces/default/events', { body: event({ deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedCount: 3 }) });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset', field: 'firstTimestamp' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": needs to be unset', field: 'count' },
    ]);
  });

  it('[API-VER-146] certificates.k8s.io/v1: status.certificate may hold only CERTIFICATE PEM blocks', async () => {
    const t = await newTestServer();
    const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const request = btoa(testCertificateRequestPem);
    const made = await t.json('POST', path, { body: { metadata: { name: 'c' }, spec: { request, signerName: 'example.com/signer', usages: ['client auth'] } } });
    expect(made.status).toBe(201);
    const pem = (type: string) => btoa(`-----BEGIN ${type}-----\nMIIB\n-----END ${type}-----\n`);
    const key = await t.json('PUT', `${path}/c/status`, { body: { ...made.body, status: { certificate: pem('PRIVATE KEY') } } });
    expect(key.status).toBe(422);
    expect(key.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "c" is invalid: status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"');
  });
});

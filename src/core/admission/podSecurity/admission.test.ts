/**
 * The PodSecurity plugin through HTTP: enforce on pods (create and the
 * updates kube evaluates), warn and audit on pods and pod-template
 * workloads, the version labels, and namespace label changes (invalid
 * values, the existing-pods warnings of a tightened enforce level, dry run).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes';
import { createPodSecurityPlugin, defaultChecks, newEvaluator } from '.';
import { createApiServer } from '../../apiserver';
import { createMemoryStorage } from '../../storage/memory';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});
afterEach(async () => {
  await t.server.close();
});

const NS = '/api/v1/namespaces';

async function namespace(name: string, labels: Record<string, string>) {
  expect((await t.json('POST', NS, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } })).status).toBe(201);
}

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

const restrictedDetail = (c = 'c') =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

const warningsOf = (h: Headers): string[] => (h.get('warning') ?? '').split(/, (?=299 )/).filter(Boolean).map((w) => JSON.parse(w.slice('299 - '.length)) as string);

type TraceEntry = { stage: string; message: string; details?: Record<string, string> };
const auditAnnotations = (r: Response): Record<string, string> | undefined =>
  (JSON.parse(decodeURIComponent(r.headers.get('x-kubesim-trace') ?? '[]')) as TraceEntry[]).find((e) => e.stage === 'admission' && e.message === 'audit annotations')?.details;

describe('enforce on pods', () => {
  it('refuses with 403 Forbidden, pods "<name>" and the level:version, and records the enforce-policy audit annotation', async () => {
    await namespace('r', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const r = await t.request('POST', `${NS}/r/pods`, { body: pod('x'), headers: { 'x-kubesim-trace': '1' } });
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail()}`,
      reason: 'Forbidden',
      details: { name: 'x', kind: 'pods' },
      code: 403,
    });
    expect(r.headers.get('warning')).toBeNull();
    expect(auditAnnotations(r)).toEqual({ 'pod-security.kubernetes.io/enforce-policy': 'restricted:latest' });
    expect((await t.json('GET', `${NS}/r/pods/x`)).status).toBe(404);
  });

  it('a namespace without labels is privileged: anything is admitted, the policy is annotated privileged:latest', async () => {
    const r = await t.request('POST', `${NS}/default/pods`, { body: pod('x', { hostNetwork: true }), headers: { 'x-kubesim-trace': '1' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBeNull();
    expect(auditAnnotations(r)).toEqual({ 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
  });

  it('a generated name is the name in the message; dry run is refused the same way', async () => {
    await namespace('b', { 'pod-security.kubernetes.io/enforce': 'baseline' });
    const spec = { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] };
    const r = await t.json('POST', `${NS}/b/pods?dryRun=All`, { body: { ...pod('', spec), metadata: { generateName: 'web-' } } });
    expect(r.status).toBe(403);
    expect(r.body.details.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(r.body.message).toBe(`pods "${r.body.details.name}" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`);
  });

  it('enforce-version pins the policy: runAsUser=0 passes restricted:v1.22 and is refused at latest', async () => {
    const spec = {
      securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    };
    await namespace('pinned', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.22' });
    expect((await t.json('POST', `${NS}/pinned/pods`, { body: pod('x', spec) })).status).toBe(201);
    await namespace('latest', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' });
    const r = await t.json('POST', `${NS}/latest/pods`, { body: pod('x', spec) });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "x" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 (pod must not set runAsUser=0)');
    await namespace('v130', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.30' });
    expect((await t.json('POST', `${NS}/v130/pods`, { body: pod('x', spec) })).body.message).toBe('pods "x" is forbidden: violates PodSecurity "restricted:v1.30": runAsUser=0 (pod must not set runAsUser=0)');
  });

  it('updates: a changed image is evaluated again, a label change or a status write is not', async () => {
    await namespace('n', {});
    expect((await t.json('POST', `${NS}/n/pods`, { body: pod('x', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] }) })).status).toBe(201);
    expect((await t.json('PATCH', `${NS}/n`, { body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    const labelled = await t.json('PATCH', `${NS}/n/pods/x`, { body: { metadata: { labels: { a: 'b' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(labelled.status).toBe(200);
    const status = await t.json('PATCH', `${NS}/n/pods/x/status`, { body: { status: { phase: 'Running' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(status.status).toBe(200);
    const image = await t.json('PATCH', `${NS}/n/pods/x`, { body: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(image.status).toBe(403);
    expect(image.body.message).toBe('pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  });
});

describe('ephemeral containers', () => {
  it('pods/ephemeralcontainers is evaluated: a debug container without a securityContext is refused in a restricted namespace', async () => {
    await namespace('r', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const spec = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'app', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    };
    expect((await t.json('POST', `${NS}/r/pods`, { body: pod('web', spec) })).status).toBe(201);
    const smp = { 'content-type': 'application/strategic-merge-patch+json' };
    const debug = await t.json('PATCH', `${NS}/r/pods/web/ephemeralcontainers`, { headers: smp, body: { spec: { ephemeralContainers: [{ name: 'debugger-x', image: 'busybox', targetContainerName: 'app' }] } } });
    expect(debug.status).toBe(403);
    expect(debug.body.message).toBe(
      'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "debugger-x" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "debugger-x" must set securityContext.capabilities.drop=["ALL"])',
    );
    const hardened = { name: 'debugger-y', image: 'busybox', targetContainerName: 'app', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };
    expect((await t.json('PATCH', `${NS}/r/pods/web/ephemeralcontainers`, { headers: smp, body: { spec: { ephemeralContainers: [hardened] } } })).status).toBe(200);
  });
});

describe('warn and audit', () => {
  it('warn adds a Warning header to an admitted pod; audit records audit-violations', async () => {
    await namespace('w', { 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/audit-version': 'v1.31' });
    const r = await t.request('POST', `${NS}/w/pods`, { body: pod('x', { hostIPC: true }), headers: { 'x-kubesim-trace': '1' } });
    expect(r.status).toBe(201);
    expect(warningsOf(r.headers)).toEqual([`would violate PodSecurity "restricted:latest": host namespaces (hostIPC), ${restrictedDetail()}`]);
    expect(auditAnnotations(r)).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:v1.31": host namespaces (hostIPC)',
    });
  });

  it('a refused pod gets no warning, but its audit annotation', async () => {
    await namespace('x', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted' });
    const r = await t.request('POST', `${NS}/x/pods`, { body: pod('x', { hostPID: true }), headers: { 'x-kubesim-trace': '1' } });
    expect(r.status).toBe(403);
    expect(r.headers.get('warning')).toBeNull();
    expect(auditAnnotations(r)).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
      'pod-security.kubernetes.io/audit-violations': `would violate PodSecurity "restricted:latest": host namespaces (hostPID), ${restrictedDetail()}`,
    });
  });

  const workloads: [string, string, (spec: Record<string, unknown>) => Record<string, unknown>][] = [
    ['deployments', '/apis/apps/v1', (spec) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, spec: { selector: { matchLabels: { a: 'w' } }, template: { metadata: { labels: { a: 'w' } }, spec } } })],
    ['replicasets', '/apis/apps/v1', (spec) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'w' }, spec: { selector: { matchLabels: { a: 'w' } }, template: { metadata: { labels: { a: 'w' } }, spec } } })],
    ['statefulsets', '/apis/apps/v1', (spec) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'w' }, spec: { serviceName: 'w', selector: { matchLabels: { a: 'w' } }, template: { metadata: { labels: { a: 'w' } }, spec } } })],
    ['daemonsets', '/apis/apps/v1', (spec) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'w' }, spec: { selector: { matchLabels: { a: 'w' } }, template: { metadata: { labels: { a: 'w' } }, spec } } })],
    ['jobs', '/apis/batch/v1', (spec) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'w' }, spec: { template: { spec: { ...spec, restartPolicy: 'Never' } } } })],
    ['cronjobs', '/apis/batch/v1', (spec) => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'w' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { ...spec, restartPolicy: 'Never' } } } } } })],
    ['replicationcontrollers', '/api/v1', (spec) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'w' }, spec: { selector: { a: 'w' }, template: { metadata: { labels: { a: 'w' } }, spec } } })],
    ['podtemplates', '/api/v1', (spec) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'w' }, template: { metadata: { labels: { a: 'w' } }, spec } })],
  ];

  it.each(workloads)('%s: enforce does not refuse the template; warn and audit name it', async (resource, base, make) => {
    await namespace('e', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const enforced = await t.request('POST', `${base}/namespaces/e/${resource}`, { body: make({ containers: [{ name: 'c', image: 'nginx' }] }), headers: { 'x-kubesim-trace': '1' } });
    expect(enforced.status).toBe(201);
    expect(enforced.headers.get('warning')).toBeNull();
    // Only enforce is set: a workload is neither warned nor audited, and carries no enforce-policy.
    expect(auditAnnotations(enforced)).toBeUndefined();
    await namespace('w', { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'baseline' });
    const warned = await t.request('POST', `${base}/namespaces/w/${resource}`, { body: make({ hostNetwork: true, containers: [{ name: 'c', image: 'nginx' }] }), headers: { 'x-kubesim-trace': '1' } });
    expect(warned.status).toBe(201);
    expect(warningsOf(warned.headers)).toEqual(['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork)']);
    expect(auditAnnotations(warned)).toEqual({ 'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork)' });
  });

  it('a workload subresource (scale) is not evaluated', async () => {
    await namespace('w', { 'pod-security.kubernetes.io/warn': 'baseline' });
    const [, base, make] = workloads[0]!;
    expect((await t.json('POST', `${base}/namespaces/w/deployments`, { body: make({ hostNetwork: true, containers: [{ name: 'c', image: 'nginx' }] }) })).status).toBe(201);
    const scaled = await t.request('PATCH', `${base}/namespaces/w/deployments/w/scale`, { body: JSON.stringify({ spec: { replicas: 2 } }), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(scaled.status).toBe(200);
    expect(scaled.headers.get('warning')).toBeNull();
  });
});

describe('the controllers\' pods', () => {
  it('a ReplicaSet in a namespace enforcing baseline gets no privileged pods: its controller is refused like a client and says so in ReplicaFailure', async () => {
    await t.server.close();
    // Closed by afterEach; its ReplicaSet controller retries the refused creates until then.
    t = await newTestServer({ controllers: ['*'] });
    await namespace('enforced', { 'pod-security.kubernetes.io/enforce': 'baseline' });
    const rs = (name: string, securityContext: Record<string, unknown>) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name },
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', securityContext }] } } },
    });
    const RS = '/apis/apps/v1/namespaces/enforced/replicasets';
    expect((await t.json('POST', RS, { body: rs('bad', { privileged: true }) })).status).toBe(201);
    expect((await t.json('POST', RS, { body: rs('good', {}) })).status).toBe(201);
    const synced = async (name: string) => {
      for (let i = 0; i < 500; i++) {
        const got = await t.json('GET', `${RS}/${name}`);
        if (got.body.status?.observedGeneration === 1) return got.body;
        await new Promise((r) => setTimeout(r, 2));
      }
      throw new Error(`${name} was not synced`);
    };
    const bad = await synced('bad');
    expect(bad.status.replicas).toBe(0);
    // The controller reports the refusal, as kube's does (FailedCreate).
    const failure = bad.status.conditions.find((c: { type: string }) => c.type === 'ReplicaFailure');
    expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
    expect(failure.message).toMatch(/^pods "bad-[a-z0-9]{5}" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "c" must not set securityContext\.privileged=true\)$/);
    await synced('good');
    const names = ((await t.json('GET', `${NS}/enforced/pods`)).body.items as { metadata: { name: string } }[]).map((p) => p.metadata.name);
    expect(names).toHaveLength(2);
    expect(names.every((n) => n.startsWith('good-'))).toBe(true);
  });

  it('with PodSecurity disabled (--disable-admission-plugins=PodSecurity) the labels are not enforced', async () => {
    const off = await newTestServer({ podSecurity: false });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'r', labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'nonsense' } } };
    expect((await off.json('POST', NS, { body: ns })).status).toBe(201);
    const r = await off.json('POST', `${NS}/r/pods`, { body: pod('x', { hostNetwork: true }) });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBeNull();
    await off.server.close();
  });
});

describe('namespace labels', () => {
  it('an invalid level or version is refused with 422 Invalid on create, one cause per label', async () => {
    const r = await t.json('POST', NS, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn-version': '1.30' } } } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Namespace "bad" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"]',
      reason: 'Invalid',
      details: {
        name: 'bad',
        kind: 'Namespace',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "strict": must be one of privileged, baseline, restricted', field: 'metadata.labels[pod-security.kubernetes.io/enforce]' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "1.30": must be "latest" or "v1.x"', field: 'metadata.labels[pod-security.kubernetes.io/warn-version]' },
        ],
      },
      code: 422,
    });
  });

  it('an invalid label is refused on update too', async () => {
    await namespace('n', {});
    const r = await t.json('PATCH', `${NS}/n`, { body: { metadata: { labels: { 'pod-security.kubernetes.io/audit': 'Restricted' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Namespace "n" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "Restricted": must be one of privileged, baseline, restricted');
  });

  it('[API-DRY-006] tightening enforce warns about the existing pods that violate it; dry run previews it without storing the label', async () => {
    await namespace('app', {});
    const privileged = { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] };
    for (const name of ['web-2', 'web-1', 'web-3']) expect((await t.json('POST', `${NS}/app/pods`, { body: pod(name, privileged) })).status).toBe(201);
    expect((await t.json('POST', `${NS}/app/pods`, { body: pod('host', { hostNetwork: true }) })).status).toBe(201);
    expect((await t.json('POST', `${NS}/app/pods`, { body: pod('single') })).status).toBe(201);
    const before = await t.json('GET', `${NS}/app`);
    const patch = { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } };
    const dry = await t.json('PATCH', `${NS}/app?dryRun=All`, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(dry.status).toBe(200);
    expect(dry.body.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('baseline');
    expect(warningsOf(dry.headers)).toEqual([
      'existing pods in namespace "app" violate the new PodSecurity enforce level "baseline:latest"',
      'host: host namespaces',
      'web-1 (and 2 other pods): privileged',
    ]);
    const after = await t.json('GET', `${NS}/app`);
    expect(after.body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);
    expect(after.body.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBeUndefined();

    const real = await t.json('PATCH', `${NS}/app`, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(real.status).toBe(200);
    expect(warningsOf(real.headers)).toHaveLength(3);
    // The pods stay; relaxing, or keeping the level, checks nothing.
    expect((await t.json('GET', `${NS}/app/pods`)).body.items).toHaveLength(5);
    const same = await t.json('PATCH', `${NS}/app`, { body: { metadata: { labels: { other: 'x' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(same.headers.get('warning')).toBeNull();
    const relaxed = await t.json('PATCH', `${NS}/app`, { body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(relaxed.headers.get('warning')).toBeNull();
  });

  it('a pinned version moving to latest at the same level checks the pods again; two pods sharing a violation read "(and 1 other pod)"', async () => {
    await namespace('v', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.22' });
    const spec = {
      securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    };
    for (const name of ['b', 'a']) expect((await t.json('POST', `${NS}/v/pods`, { body: pod(name, spec) })).status).toBe(201);
    const r = await t.json('PATCH', `${NS}/v`, { body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce-version': 'latest' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    expect(warningsOf(r.headers)).toEqual(['existing pods in namespace "v" violate the new PodSecurity enforce level "restricted:latest"', 'a (and 1 other pod): runAsUser=0']);
  });
});

describe('metrics', () => {
  it('pod_security_evaluations_total counts enforce allows and denies, and audit and warn denials; the cached series start at 0', async () => {
    const scrape = async () => (await (await t.request('GET', '/metrics')).text()).split('\n');
    const series = (lines: string[], name: string) => lines.filter((l) => l.startsWith(`${name}{`));
    const start = await scrape();
    expect(series(start, 'pod_security_evaluations_total')).toEqual([
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""} 0',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="update",resource="pod",subresource=""} 0',
    ]);
    expect(series(start, 'pod_security_exemptions_total')).toHaveLength(4);
    expect(start).toContain('# HELP pod_security_evaluations_total [ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.');
    await namespace('m', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.99', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted' });
    expect((await t.json('POST', `${NS}/m/pods`, { body: pod('ok') })).status).toBe(201);
    expect((await t.json('POST', `${NS}/m/pods`, { body: pod('bad', { hostPID: true }) })).status).toBe(403);
    expect((await t.json('POST', `${NS}/default/pods`, { body: pod('p') })).status).toBe(201);
    expect(series(await scrape(), 'pod_security_evaluations_total')).toEqual([
      'pod_security_evaluations_total{decision="allow",policy_level="baseline",policy_version="future",mode="enforce",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="update",resource="pod",subresource=""} 0',
      'pod_security_evaluations_total{decision="deny",policy_level="baseline",policy_version="future",mode="enforce",request_operation="create",resource="pod",subresource=""} 1',
      'pod_security_evaluations_total{decision="deny",policy_level="restricted",policy_version="latest",mode="audit",request_operation="create",resource="pod",subresource=""} 2',
      'pod_security_evaluations_total{decision="deny",policy_level="restricted",policy_version="latest",mode="warn",request_operation="create",resource="pod",subresource=""} 1',
    ]);
    // The plugin is timed on every create and update; the validating step once per write.
    const lines = await scrape();
    const count = (name: string, labels: string) => lines.find((l) => l.startsWith(`${name}_count{${labels}}`))?.split(' ')[1];
    expect(count('apiserver_admission_controller_admission_duration_seconds', 'name="PodSecurity",type="validate",operation="CREATE",rejected="true"')).toBe('1');
    expect(count('apiserver_admission_controller_admission_duration_seconds', 'name="PodSecurity",type="validate",operation="CREATE",rejected="false"')).toBe('3');
    expect(count('apiserver_admission_step_admission_duration_seconds', 'type="validate",operation="CREATE",rejected="true"')).toBe('1');
    expect(count('apiserver_admission_step_admission_duration_seconds', 'type="validate",operation="CREATE",rejected="false"')).toBe(count('apiserver_admission_controller_admission_duration_seconds', 'name="ValidatingAdmissionPolicy",type="validate",operation="CREATE",rejected="false"'));
  });
});

describe('exemptions (a PodSecurityConfiguration kube-apiserver does not have by default)', () => {
  const restrictedNs = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'r', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } };
  const plugin = createPodSecurityPlugin({
    evaluator: newEvaluator(defaultChecks()),
    getNamespace: async (name) => (name === 'r' || name === 'kube-system' ? { ...restrictedNs, metadata: { ...restrictedNs.metadata, name } } : undefined),
    listPods: async () => [],
    exemptions: { namespaces: ['kube-system'], usernames: ['system:serviceaccount:ci:deployer'], runtimeClasses: ['kata'] },
  });
  const attrs = (namespace: string, username: string, spec: Record<string, unknown> = {}): AdmissionAttributes => ({
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    subresource: '',
    name: 'x',
    namespace,
    namespaced: true,
    object: pod('x', spec),
    dryRun: false,
    user: { username, groups: [] },
  });
  const run = async (a: AdmissionAttributes) => {
    const outcome: AdmissionOutcome = { warnings: [], auditAnnotations: {} };
    const error = await Promise.resolve().then(() => plugin.validate(a, outcome)).then(() => undefined, (e: { status?: { message?: string } }) => e.status?.message);
    return { error, annotations: outcome.auditAnnotations };
  };

  it('an exempt namespace, user or runtime class is admitted and annotated exempt=<reason>', async () => {
    expect(await run(attrs('kube-system', 'alice'))).toEqual({ error: undefined, annotations: { 'pod-security.kubernetes.io/exempt': 'namespace' } });
    expect(await run(attrs('r', 'system:serviceaccount:ci:deployer'))).toEqual({ error: undefined, annotations: { 'pod-security.kubernetes.io/exempt': 'user' } });
    expect(await run(attrs('r', 'alice', { runtimeClassName: 'kata' }))).toEqual({ error: undefined, annotations: { 'pod-security.kubernetes.io/exempt': 'runtimeClass' } });
    const refused = await run(attrs('r', 'alice'));
    expect(refused.error).toBe(`pods "x" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail()}`);
    expect(refused.annotations).toEqual({ 'pod-security.kubernetes.io/enforce-policy': 'restricted:latest' });
  });

  it('a namespace that cannot be found is an internal error for a pod, only an audited error for a workload', async () => {
    expect((await run(attrs('gone', 'alice'))).error).toBe('Internal error occurred: failed to lookup namespace "gone"');
    const deployment = { ...attrs('gone', 'alice'), resource: { group: 'apps', version: 'v1', resource: 'deployments' }, object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template: { spec: {} } } } };
    expect(await run(deployment)).toEqual({ error: undefined, annotations: { 'pod-security.kubernetes.io/error': 'failed to lookup namespace "gone": namespaces "gone" not found' } });
  });
});

describe('PodSecurityConfiguration (--admission-control-config-file)', () => {
  const configuration = {
    apiVersion: 'pod-security.admission.config.k8s.io/v1',
    kind: 'PodSecurityConfiguration',
    defaults: { enforce: 'baseline', 'enforce-version': 'latest', warn: 'restricted' },
    exemptions: { namespaces: ['kube-system'], usernames: ['ci-bot'], runtimeClasses: [] },
  };

  it('defaults apply to namespaces without labels; exempt namespaces and users are admitted; labels on an exempt namespace get a warning', async () => {
    const c = await newTestServer({ podSecurityConfiguration: configuration });
    const privileged = pod('x', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] });
    const r = await c.json('POST', `${NS}/default/pods`, { body: privileged });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
    const plain = await c.json('POST', `${NS}/default/pods`, { body: pod('y') });
    expect(plain.status).toBe(201);
    expect(warningsOf(plain.headers)).toEqual([`would violate PodSecurity "restricted:latest": ${restrictedDetail()}`]);
    expect((await c.json('POST', `${NS}/kube-system/pods`, { body: privileged })).status).toBe(201);
    expect((await c.json('POST', `${NS}/default/pods`, { body: privileged, headers: { 'impersonate-user': 'ci-bot' } })).status).toBe(201);
    const labelled = await c.json('PATCH', `${NS}/kube-system`, { body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(labelled.status).toBe(200);
    expect(warningsOf(labelled.headers)).toEqual(['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']);
    // A namespace can still relax its own policy below the defaults.
    const relaxed = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab', labels: { 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/warn': 'privileged' } } };
    expect((await c.json('POST', NS, { body: relaxed })).status).toBe(201);
    const admitted = await c.json('POST', `${NS}/lab/pods`, { body: privileged });
    expect(admitted.status).toBe(201);
    expect(admitted.headers.get('warning')).toBeNull();
    await c.server.close();
  });

  it('an invalid configuration is refused when the server is built', () => {
    const bad = { ...configuration, defaults: { enforce: 'strict', 'audit-version': '1.30' }, exemptions: { namespaces: ['Kube_System'] } };
    expect(() => createApiServer({ storage: createMemoryStorage(), podSecurityConfiguration: bad })).toThrow(
      '[defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, defaults.audit-version: Invalid value: "1.30": must be "latest" or "v1.x", exemptions.namespaces[0]: Invalid value: "Kube_System": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character]',
    );
  });
});

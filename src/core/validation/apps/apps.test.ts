/**
 * apps/v1 workloads through HTTP, as tables (object -> expected causes):
 * create and update of Deployments, ReplicaSets, StatefulSets and DaemonSets
 * answer kube-apiserver's 422 with every cause.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

type Spec = Record<string, unknown>;
const resourceOf: Record<string, string> = { Deployment: 'deployments', ReplicaSet: 'replicasets', StatefulSet: 'statefulsets', DaemonSet: 'daemonsets' };
const path = (kind: string, name = '') => `/apis/apps/v1/namespaces/default/${resourceOf[kind]}${name ? `/${name}` : ''}`;
const template = (labels: Record<string, string> | undefined = { app: 'web' }, spec: Spec = {}) => ({
  metadata: labels ? { labels } : {},
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const workload = (kind: string, name: string, spec: Spec) => ({ apiVersion: 'apps/v1', kind, metadata: { name }, spec });
const causesOf = (body: { details?: { causes?: { field: string; message: string }[] } }) => (body.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

async function create(kind: string, name: string, spec: Spec) {
  return t.json('POST', path(kind), { body: workload(kind, name, spec) });
}

const valid = { selector: { matchLabels: { app: 'web' } }, template: template() };

describe('create', () => {
  const cases: [string, string, Spec, string, string[]][] = [
    ['Deployment', 'mismatch', { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'api' }) }, 'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`', [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"api"}: `selector` does not match template `labels`',
    ]],
    ['Deployment', 'negative', { ...valid, replicas: -1 }, '', ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']],
    ['Deployment', 'no-selector', { template: template() }, '', [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]],
    ['Deployment', 'empty-selector', { selector: {}, template: template() }, '', [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]],
    ['Deployment', 'strategy', { ...valid, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }, progressDeadlineSeconds: 5, minReadySeconds: 10 }, '', [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
      'spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds',
    ]],
    ['Deployment', 'percent', { ...valid, strategy: { rollingUpdate: { maxUnavailable: '120%', maxSurge: 'x' } } }, '', [
      "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"x\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ]],
    ['Deployment', 'recreate', { ...valid, strategy: { type: 'Recreate', rollingUpdate: {} } }, '', [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]],
    ['Deployment', 'restart', { ...valid, template: template({ app: 'web' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }) }, '', [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]],
    ['Deployment', 'pod', { ...valid, template: template({ app: 'web' }, { containers: [{ name: 'c' }, { name: 'c', image: 'x', ports: [{ containerPort: 70000 }] }] }) }, '', [
      'spec.template.spec.containers[0].image: Required value',
      'spec.template.spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.template.spec.containers[1].name: Duplicate value: "c"',
    ]],
    ['Deployment', 'bad-labels', { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web', 'bad key!': 'x' }) }, '', [
      "spec.template.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]],
    ['ReplicaSet', 'rs', { replicas: -2, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'x' }) }, '', [
      'spec.replicas: Invalid value: -2: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
    ]],
    ['ReplicaSet', 'rs-empty', { selector: { matchLabels: {} }, template: template() }, '', [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]],
    ['StatefulSet', 'sts', { podManagementPolicy: 'Random', updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } }, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'db' }) }, '', [
      "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
      "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`',
    ]],
    ['StatefulSet', 'sts-restart', { replicas: -1, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) }, '', [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]],
    ['DaemonSet', 'ds', { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'x' }), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }, '', [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]],
    ['DaemonSet', 'ds-surge', { selector: { matchLabels: { app: 'web' } }, template: template(), updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } }, '', [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]],
  ];
  for (const [kind, name, spec, message, want] of cases) {
    it(`API-ERR-007 API-ERR-022: ${kind} ${name} is 422 with every cause`, async () => {
      const r = await create(kind, name, spec);
      expect(r.status).toBe(422);
      expect(r.body.reason).toBe('Invalid');
      expect(r.body.details).toMatchObject({ name, group: 'apps', kind });
      expect(causesOf(r.body)).toEqual(want);
      if (message) expect(r.body.message).toBe(message);
    });
  }

  it('API-ERR-007: a Deployment without spec.selector is 422 Invalid', async () => {
    const r = await create('Deployment', 'nosel', { template: template() });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.selector: Required value');
  });

  for (const kind of Object.keys(resourceOf)) {
    it(`accepts a valid ${kind} and fills kube's defaults`, async () => {
      const r = await create(kind, `ok-${kind.toLowerCase()}`, valid);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.spec.template.spec.restartPolicy).toBe('Always');
    });
  }
});

describe('update', () => {
  for (const [kind, id] of [['Deployment', 'API-VER-158'], ['ReplicaSet', 'API-VER-167'], ['StatefulSet', 'API-VER-164'], ['DaemonSet', 'API-VER-154']] as const) {
    it(`${id}: ${kind} apps/v1 spec.selector is immutable (PATCH answers 422)`, async () => {
      const name = `immutable-${kind.toLowerCase()}`;
      expect((await create(kind, name, valid)).status).toBe(201);
      const r = await t.json('PATCH', path(kind, name), {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { spec: { selector: { matchLabels: { app: 'web', tier: 'x' } }, template: { metadata: { labels: { app: 'web', tier: 'x' } } } } },
      });
      expect(r.status).toBe(422);
      expect(causesOf(r.body)).toContain(kind === 'StatefulSet'
        ? "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
        : 'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
    });
  }

  it('a StatefulSet update may change only replicas, template, updateStrategy, ...', async () => {
    const name = 'sts-upd';
    expect((await create('StatefulSet', name, { ...valid, serviceName: 'a' })).status).toBe(201);
    const r = await t.json('PATCH', path('StatefulSet', name), { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { serviceName: 'b' } } });
    expect(r.status).toBe(422);
    expect(causesOf(r.body)).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const ok = await t.json('PATCH', path('StatefulSet', name), { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { replicas: 3 } } });
    expect(ok.status).toBe(200);
  });

  it('scaling a Deployment below zero through /scale is 422', async () => {
    const name = 'scale-neg';
    expect((await create('Deployment', name, valid)).status).toBe(201);
    const r = await t.json('PATCH', `${path('Deployment', name)}/scale`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { replicas: -1 } } });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });
});

describe('names', () => {
  it('a StatefulSet name is a DNS label (its pods take it as their hostname)', async () => {
    const r = await create('StatefulSet', 'web.v1', valid);
    expect(r.status).toBe(422);
    expect(causesOf(r.body)).toEqual([
      "metadata.name: Invalid value: \"web.v1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect((await create('Deployment', 'web.v1', valid)).status).toBe(201);
  });
});

/**
 * Real kubectl 1.32 against the Node host: server-side apply with managers
 * and conflicts, client-side apply migration, diff, the patch family, scale,
 * server-side dry run and field validation as kubectl prints them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  // The raw API: no deployment-controller writing ReplicaSets and status (e2e/deletion.test.ts runs it).
  t = await startTestHost({ authn: { controllers: ['*', '-deployment-controller'] } });
});
afterAll(async () => {
  await t?.stop();
});

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${name}`,
    ...(labels ? ['  labels:', ...Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`)] : []),
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`),
    '',
  ].join('\n');

const deployment = (name: string, extraSpec = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx:1.27
${extraSpec}`;

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

async function managedFields(kind: string, name: string): Promise<Entry[]> {
  const r = await t.kubectl(['get', kind, name, '-o', 'json', '--show-managed-fields']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).metadata.managedFields ?? []) as Entry[];
}

const jsonpath = async (kind: string, name: string, path: string) => (await t.kubectl(['get', kind, name, '-o', `jsonpath=${path}`])).stdout;

describe('kubectl apply --server-side', () => {
  it('[API-SSA-066] two managers, the conflict as kubectl prints it, then --force-conflicts', async () => {
    const a = await t.kubectl(['apply', '--server-side', '--field-manager=alice', '-f', '-'], configMap('shared', { color: 'blue', size: 'L' }));
    expect(a.stderr).toBe('');
    expect(a.stdout.trim()).toBe('configmap/shared serverside-applied');

    const b = await t.kubectl(['apply', '--server-side', '--field-manager=bob', '-f', '-'], configMap('shared', { color: 'red' }));
    expect(b.code).toBe(1);
    expect(b.stdout).toBe('');
    expect(b.stderr).toContain('error: Apply failed with 1 conflict: conflict with "alice": .data.color\n');
    expect(b.stderr).toContain('Please review the fields above--they currently have other managers.');
    expect(b.stderr).toContain('--force-conflicts');
    expect(await jsonpath('configmap', 'shared', '{.data.color}')).toBe('blue');

    const f = await t.kubectl(['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'], configMap('shared', { color: 'red' }));
    expect(f.stderr).toBe('');
    expect(f.stdout.trim()).toBe('configmap/shared serverside-applied');
    expect(await jsonpath('configmap', 'shared', '{.data.color}')).toBe('red');

    const entries = await managedFields('configmap', 'shared');
    expect(entries.map((e) => `${e.manager}/${e.operation}`).sort()).toEqual(['alice/Apply', 'bob/Apply']);
    expect(entries.find((e) => e.manager === 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:size': {} } });
    expect(entries.find((e) => e.manager === 'bob')!.fieldsV1).toEqual({ 'f:data': { 'f:color': {} } });

    // Without --field-manager, kubectl applies as "kubectl".
    const k = await t.kubectl(['apply', '--server-side', '-f', '-'], configMap('bykubectl', { a: '1' }));
    expect(k.stdout.trim()).toBe('configmap/bykubectl serverside-applied');
    expect((await managedFields('configmap', 'bykubectl')).map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl/Apply']);
  });

  it('get -o yaml --show-managed-fields prints the entries; without the flag they are hidden', async () => {
    const y = await t.kubectl(['get', 'configmap', 'shared', '-o', 'yaml', '--show-managed-fields']);
    expect(y.stdout).toContain('  managedFields:\n');
    expect(y.stdout).toMatch(/- apiVersion: v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:data:\n {8}f:color: \{\}\n {4}manager: bob\n {4}operation: Apply\n {4}time: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n/);
    const plain = await t.kubectl(['get', 'configmap', 'shared', '-o', 'yaml']);
    expect(plain.stdout).not.toContain('managedFields');
  });

  it('[API-SSA-067] client-side apply, then apply --server-side with changed values: no conflict', async () => {
    const c = await t.kubectl(['apply', '-f', '-'], configMap('mig', { a: '1', b: '1' }));
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('configmap/mig created');
    const s = await t.kubectl(['apply', '--server-side', '-f', '-'], configMap('mig', { a: '2', b: '1' }));
    expect(s.stderr).toBe('');
    expect(s.stdout.trim()).toBe('configmap/mig serverside-applied');
    expect(await jsonpath('configmap', 'mig', '{.data.a}')).toBe('2');
    const entries = await managedFields('configmap', 'mig');
    const kubectl = entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
    expect(kubectl?.fieldsV1).toMatchObject({ 'f:data': { 'f:a': {}, 'f:b': {} } });
  });

  it('[API-SSA-068] on migration, a field set by another manager conflicts', async () => {
    const c = await t.kubectl(['apply', '-f', '-'], configMap('mig2', { a: '1' }));
    expect(c.code).toBe(0);
    const l = await t.kubectl(['label', 'configmap', 'mig2', 'team=x']);
    expect(l.stdout.trim()).toBe('configmap/mig2 labeled');
    const s = await t.kubectl(['apply', '--server-side', '-f', '-'], configMap('mig2', { a: '1' }, { team: 'y' }));
    expect(s.code).toBe(1);
    expect(s.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl-label" using v1: .metadata.labels.team\n');
  });

  it('[API-SSA-049] kubectl create owns the defaulted fields: an apply changing one conflicts with kubectl-create', async () => {
    const c = await t.kubectl(['create', '-f', '-'], deployment('defaulted'));
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('deployment.apps/defaulted created');
    const created = (await managedFields('deployment', 'defaulted')).find((e) => e.manager === 'kubectl-create')!;
    const spec = created.fieldsV1['f:spec'] as Record<string, any>;
    expect(spec['f:revisionHistoryLimit']).toEqual({});
    expect(spec['f:template']['f:spec']['f:containers']['k:{"name":"c"}']['f:imagePullPolicy']).toEqual({});
    const pulled = deployment('defaulted').replace('        image: nginx:1.27\n', '        image: nginx:1.27\n        imagePullPolicy: Always\n');
    const s = await t.kubectl(['apply', '--server-side', '-f', '-'], pulled);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.template.spec.containers[name="c"].imagePullPolicy\n');
    // Applying the defaulted value itself shares it, with no conflict.
    const same = await t.kubectl(['apply', '--server-side', '-f', '-'], pulled.replace('imagePullPolicy: Always', 'imagePullPolicy: IfNotPresent'));
    expect(same.stderr).toBe('');
    expect(same.stdout.trim()).toBe('deployment.apps/defaulted serverside-applied');
  });
});

describe('kubectl diff', () => {
  it('exits 0 when the live object matches and 1 with a unified diff when it differs', async () => {
    const c = await t.kubectl(['apply', '-f', '-'], configMap('differ', { mode: 'dev' }));
    expect(c.code).toBe(0);
    const same = await t.kubectl(['diff', '-f', '-'], configMap('differ', { mode: 'dev' }));
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toBe('');
    const changed = await t.kubectl(['diff', '-f', '-'], configMap('differ', { mode: 'prod' }));
    expect(changed.stderr).toBe('');
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('-  mode: dev\n');
    expect(changed.stdout).toContain('+  mode: prod\n');
    // diff is a dry run: nothing changed.
    expect(await jsonpath('configmap', 'differ', '{.data.mode}')).toBe('dev');
  });
});

describe('kubectl apply (client-side) and diff --server-side', () => {
  it('apply -f of an existing object is configured, then unchanged; diff --server-side previews an apply', async () => {
    expect((await t.kubectl(['apply', '-f', '-'], configMap('csa', { a: '1' }))).stdout.trim()).toBe('configmap/csa created');
    const c = await t.kubectl(['apply', '-f', '-'], configMap('csa', { a: '2' }));
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('configmap/csa configured');
    const u = await t.kubectl(['apply', '-f', '-'], configMap('csa', { a: '2' }));
    expect(u.stdout.trim()).toBe('configmap/csa unchanged');
    const d = await t.kubectl(['diff', '--server-side', '--force-conflicts', '-f', '-'], configMap('csa', { a: '3' }));
    expect(d.stderr).toBe('');
    expect(d.code).toBe(1);
    expect(d.stdout).toContain('-  a: "2"\n');
    expect(d.stdout).toContain('+  a: "3"\n');
    expect(await jsonpath('configmap', 'csa', '{.data.a}')).toBe('2');
  });
});

describe('patch, label, annotate, scale', () => {
  it('patch --type=json, merge and strategic', async () => {
    expect((await t.kubectl(['apply', '-f', '-'], configMap('p', { a: '1' }))).code).toBe(0);
    const j = await t.kubectl(['patch', 'configmap', 'p', '--type=json', '-p', '[{"op":"add","path":"/data/b","value":"2"}]']);
    expect(j.stderr).toBe('');
    expect(j.stdout.trim()).toBe('configmap/p patched');
    const m = await t.kubectl(['patch', 'configmap', 'p', '--type=merge', '-p', '{"data":{"a":null,"c":"3"}}']);
    expect(m.stdout.trim()).toBe('configmap/p patched');
    const s = await t.kubectl(['patch', 'configmap', 'p', '--type=strategic', '-p', '{"data":{"d":"4"}}']);
    expect(s.stdout.trim()).toBe('configmap/p patched');
    expect(await jsonpath('configmap', 'p', '{.data}')).toBe('{"b":"2","c":"3","d":"4"}');
    const same = await t.kubectl(['patch', 'configmap', 'p', '--type=merge', '-p', '{"data":{"d":"4"}}']);
    expect(same.stdout.trim()).toBe('configmap/p patched (no change)');
    const failed = await t.kubectl(['patch', 'configmap', 'p', '--type=json', '-p', '[{"op":"test","path":"/data/b","value":"nope"}]']);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toBe('The request is invalid: the server rejected our request due to an error in our request');
    expect((await managedFields('configmap', 'p')).some((e) => e.manager === 'kubectl-patch' && e.operation === 'Update')).toBe(true);
  });

  it('label and annotate record their own managers', async () => {
    const l = await t.kubectl(['label', 'configmap', 'p', 'tier=web']);
    expect(l.stdout.trim()).toBe('configmap/p labeled');
    const a = await t.kubectl(['annotate', 'configmap', 'p', 'note=hi']);
    expect(a.stdout.trim()).toBe('configmap/p annotated');
    expect(await jsonpath('configmap', 'p', '{.metadata.labels.tier}/{.metadata.annotations.note}')).toBe('web/hi');
    const entries = await managedFields('configmap', 'p');
    expect(entries.find((e) => e.manager === 'kubectl-label')?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
    expect(entries.find((e) => e.manager === 'kubectl-annotate')?.fieldsV1).toMatchObject({ 'f:metadata': { 'f:annotations': { 'f:note': {} } } });
  });

  it('scale patches the scale subresource', async () => {
    expect((await t.kubectl(['apply', '--server-side', '-f', '-'], deployment('web'))).code).toBe(0);
    const s = await t.kubectl(['scale', 'deployment', 'web', '--replicas=3']);
    expect(s.stderr).toBe('');
    expect(s.stdout.trim()).toBe('deployment.apps/web scaled');
    expect(await jsonpath('deployment', 'web', '{.spec.replicas}')).toBe('3');
  });

  it('patch --subresource=status changes status only and records the status subresource', async () => {
    const p = await t.kubectl(['patch', 'deployment', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"observedGeneration":7},"spec":{"replicas":9}}']);
    expect(p.stderr).toBe('');
    expect(p.stdout.trim()).toBe('deployment.apps/web patched');
    expect(await jsonpath('deployment', 'web', '{.status.observedGeneration}/{.spec.replicas}')).toBe('7/3');
    const e = (await managedFields('deployment', 'web')).find((x) => x.manager === 'kubectl-patch');
    expect(e).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:observedGeneration': {} } } });
  });
});

describe('dry run and validation', () => {
  it('[API-DRY-001] create --dry-run=server stores nothing', async () => {
    const r = await t.kubectl(['create', '--dry-run=server', '-f', '-'], configMap('dry', { a: '1' }));
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('configmap/dry created (server dry run)');
    const g = await t.kubectl(['get', 'configmap', 'dry']);
    expect(g.code).toBe(1);
    expect(g.stderr.trim()).toBe('Error from server (NotFound): configmaps "dry" not found');
    const a = await t.kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], configMap('dry', { a: '1' }));
    expect(a.stdout.trim()).toBe('configmap/dry serverside-applied (server dry run)');
    expect((await t.kubectl(['get', 'configmap', 'dry'])).code).toBe(1);
  });

  it('[API-FV-018] [API-FV-021] apply --validate=strict (and the default) reject an unknown field', async () => {
    const bad = deployment('strict', '  foo: bar\n');
    for (const args of [['--validate=strict'], []]) {
      const r = await t.kubectl(['apply', ...args, '-f', '-'], bad);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe('Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
    }
    expect((await t.kubectl(['get', 'deployment', 'strict'])).code).toBe(1);
  });

  it('[API-FV-017] apply --validate=warn creates the object and prints the warning', async () => {
    const r = await t.kubectl(['apply', '--validate=warn', '-f', '-'], deployment('warned', '  foo: bar\n'));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Warning: unknown field "spec.foo"\n');
    expect(r.stdout.trim()).toBe('deployment.apps/warned created');
    expect(await jsonpath('deployment', 'warned', '{.spec.foo}')).toBe('');
  });

  it('[API-FV-016] [API-FV-020] --validate=ignore and --validate=false create silently', async () => {
    for (const [flag, name] of [['--validate=ignore', 'ignored'], ['--validate=false', 'falsed']]) {
      const r = await t.kubectl(['apply', flag!, '-f', '-'], deployment(name!, '  foo: bar\n'));
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(`deployment.apps/${name} created`);
    }
  });

  it('[API-FV-019] --validate=true means strict', async () => {
    const r = await t.kubectl(['apply', '--validate=true', '-f', '-'], deployment('truthy', '  foo: bar\n'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
  });
});

/** Real kubectl 1.32 against the Node host: ResourceQuota and LimitRange as a cluster enforces them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ store: 'sqlite' });
});
afterAll(async () => {
  await t?.stop();
});

/** Polls kubectl until `ok` holds for its output (the controllers work a moment after a write). */
async function until(args: string[], ok: (stdout: string) => boolean): Promise<string> {
  let last = '';
  for (let i = 0; i < 200; i++) {
    const r = await t.kubectl(args);
    last = r.stdout + r.stderr;
    if (r.code === 0 && ok(r.stdout)) return r.stdout;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`kubectl ${args.join(' ')}: ${last}`);
}

describe('kubectl with ResourceQuota and LimitRange', () => {
  it('create quota, exceed it, describe quota shows Used and Hard', async () => {
    expect((await t.kubectl(['create', 'namespace', 'team'])).code).toBe(0);
    // The namespace's kube-root-ca.crt is one of its ConfigMaps.
    await until(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team'], () => true);
    const q = await t.kubectl(['create', 'quota', 'q2', '--hard=configmaps=2,pods=1', '-n', 'team']);
    expect(q.stdout).toBe('resourcequota/q2 created\n');
    await until(['get', 'quota', 'q2', '-n', 'team', '-o', 'jsonpath={.status.used.configmaps}'], (out) => out === '1');
    expect((await t.kubectl(['create', 'configmap', 'one', '--from-literal=a=b', '-n', 'team'])).stdout).toBe('configmap/one created\n');
    const over = await t.kubectl(['create', 'configmap', 'over1', '--from-literal=a=b', '-n', 'team']);
    expect(over.code).toBe(1);
    expect(over.stderr).toBe('error: failed to create configmap: configmaps "over1" is forbidden: exceeded quota: q2, requested: configmaps=1, used: configmaps=2, limited: configmaps=2\n');
    const applied = await t.kubectl(['apply', '-n', 'team', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: over2}\ndata: {a: b}\n');
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('Error from server (Forbidden): error when creating "STDIN": configmaps "over2" is forbidden: exceeded quota: q2, requested: configmaps=1, used: configmaps=2, limited: configmaps=2');
    const d = await t.kubectl(['describe', 'quota', 'q2', '-n', 'team']);
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/^Name:\s+q2\nNamespace:\s+team\nResource\s+Used\s+Hard\n-+\s+-+\s+-+\nconfigmaps\s+2\s+2\npods\s+0\s+1\n$/);
    const nsd = await t.kubectl(['describe', 'namespace', 'team']);
    expect(nsd.stdout).toMatch(/Resource Quotas\n  Name:\s+q2\n  Resource\s+Used\s+Hard\n  -+\s+-+\s+-+\n  configmaps\s+2\s+2\n  pods\s+0\s+1\n/);
    const g = await t.kubectl(['get', 'quota', '-n', 'team']);
    expect(g.stdout).toMatch(/^NAME\s+REQUEST\s+LIMIT\s+AGE\nq2\s+configmaps: 2\/2, pods: 0\/1\s+\S+\n$/);
  });

  it('a Deployment past the quota: describe shows ReplicaFailure with the refusal', async () => {
    // team's quota allows one pod.
    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'team'])).stdout).toBe('deployment.apps/web created\n');
    const described = await until(['describe', 'deployment', 'web', '-n', 'team'], (out) => out.includes('ReplicaFailure'));
    expect(described).toMatch(/\n  ReplicaFailure\s+True\s+FailedCreate\n/);
    const rs = await t.kubectl(['describe', 'replicaset', '-l', 'app=web', '-n', 'team']);
    expect(rs.stdout).toMatch(/\n  ReplicaFailure\s+True\s+FailedCreate\n/);
    expect((await t.kubectl(['get', 'pods', '-n', 'team', '-l', 'app=web', '-o', 'name'])).stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a LimitRange default is applied to a pod created without resources; its max refuses a bigger one', async () => {
    expect((await t.kubectl(['create', 'namespace', 'limited'])).code).toBe(0);
    const lr = await t.kubectl(['apply', '-n', 'limited', '-f', '-'], `apiVersion: v1
kind: LimitRange
metadata: {name: cpu-limits}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
    defaultRequest: {cpu: 250m}
    max: {cpu: "1"}
`);
    expect(lr.stdout).toBe('limitrange/cpu-limits created\n');
    const described = await t.kubectl(['describe', 'limitrange', 'cpu-limits', '-n', 'limited']);
    expect(described.stdout).toMatch(/Container\s+cpu\s+-\s+1\s+250m\s+500m\s+-/);
    expect((await t.kubectl(['run', 'web', '--image=nginx', '-n', 'limited'])).stdout).toBe('pod/web created\n');
    const res = await t.kubectl(['get', 'pod', 'web', '-n', 'limited', '-o', 'jsonpath={.spec.containers[0].resources}']);
    expect(JSON.parse(res.stdout)).toEqual({ limits: { cpu: '500m' }, requests: { cpu: '250m' } });
    const ann = await t.kubectl(['get', 'pod', 'web', '-n', 'limited', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}']);
    expect(ann.stdout).toBe('LimitRanger plugin set: cpu request for container web; cpu limit for container web');
    const big = await t.kubectl(['run', 'big', '--image=nginx', '-n', 'limited', '--overrides', JSON.stringify({ spec: { containers: [{ name: 'big', image: 'nginx', resources: { limits: { cpu: '2' } } }] } })]);
    expect(big.code).toBe(1);
    expect(big.stderr).toBe('Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2\n');
  });

  it('--disable-admission-plugins=ResourceQuota,LimitRanger turns both off; the controller still counts', async () => {
    const off = await startTestHost({ flags: { disableAdmissionPlugins: ['ResourceQuota', 'LimitRanger'] } });
    try {
      expect((await off.kubectl(['create', 'quota', 'q', '--hard=count/configmaps=0'])).code).toBe(0);
      await off.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec: {limits: [{type: Container, default: {cpu: 100m}}]}\n');
      for (let i = 0; i < 200; i++) {
        if ((await off.kubectl(['get', 'quota', 'q', '-o', 'jsonpath={.status.used}'])).stdout) break;
        await new Promise((res) => setTimeout(res, 20));
      }
      expect((await off.kubectl(['create', 'configmap', 'free'])).stdout).toBe('configmap/free created\n');
      expect((await off.kubectl(['run', 'bare', '--image=nginx'])).code).toBe(0);
      expect((await off.kubectl(['get', 'pod', 'bare', '-o', 'jsonpath={.spec.containers[0].resources}'])).stdout).toBe('{}');
      // Nothing charged the create; the next recount (a delete replenishes) sees what is there: over the hard limit.
      await off.kubectl(['delete', 'configmap', 'free']);
      await off.kubectl(['create', 'configmap', 'again']);
      await off.kubectl(['create', 'configmap', 'gone']);
      await off.kubectl(['delete', 'configmap', 'gone']);
      let used = '';
      for (let i = 0; i < 200 && used !== '{"count/configmaps":"2"}'; i++) {
        used = (await off.kubectl(['get', 'quota', 'q', '-o', 'jsonpath={.status.used}'])).stdout;
        if (used !== '{"count/configmaps":"2"}') await new Promise((res) => setTimeout(res, 20));
      }
      expect(used).toBe('{"count/configmaps":"2"}');
    } finally {
      await off.stop();
    }
  });
});

/** Real kubectl 1.32 sees the control plane as on a kind cluster: componentstatuses and the control-plane Leases. */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
const host = hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

describe('the control plane through the API', () => {
  it('kubectl get componentstatuses prints controller-manager, scheduler and etcd-0 Healthy, with the deprecation warning', async () => {
    const { code, stdout, stderr } = await t.kubectl(['get', 'componentstatuses']);
    expect(code).toBe(0);
    expect(stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR$/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/))).toEqual([
      ['controller-manager', 'Healthy', 'ok'],
      ['scheduler', 'Healthy', 'ok'],
      ['etcd-0', 'Healthy', 'ok'],
    ]);
    const one = await t.kubectl(['get', 'cs', 'scheduler', '-o', 'jsonpath={.conditions[0].type}={.conditions[0].status} {.metadata.name}']);
    expect(one.stdout).toBe('Healthy=True scheduler');
  });

  it('kubectl get leases -n kube-system shows the apiserver identity Lease, kube-controller-manager and kube-scheduler', async () => {
    const out = await eventually(
      async () => (await t.kubectl(['get', 'leases', '-n', 'kube-system'])).stdout,
      (s) => ['kube-controller-manager', 'kube-scheduler'].every((n) => s.includes(n)),
      'the control-plane leases',
    );
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+HOLDER\s+AGE$/);
    const rows = lines.slice(1).map((l) => l.split(/\s+/));
    const apiserver = rows.find((r) => r[0]!.startsWith('apiserver-'));
    expect(apiserver?.[0]).toMatch(/^apiserver-[a-z2-7]{26}$/);
    expect(apiserver?.[1]).toMatch(new RegExp(`^${apiserver?.[0]}_[0-9a-f-]{36}$`));
    expect(rows.find((r) => r[0] === 'kube-controller-manager')?.[1]).toMatch(new RegExp(`^${host}_[0-9a-f-]{36}$`));
    expect(rows.find((r) => r[0] === 'kube-scheduler')?.[1]).toMatch(new RegExp(`^${host}_[0-9a-f-]{36}$`));
    const labels = await t.kubectl(['get', 'leases', '-n', 'kube-system', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver', '-o', 'jsonpath={.items[*].metadata.labels.kubernetes\\.io/hostname}']);
    expect(labels.stdout).toBe(hostname());
    const events = await eventually(
      async () => (await t.kubectl(['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection'])).stdout,
      (s) => s.includes('lease/kube-controller-manager') && s.includes('lease/kube-scheduler'),
      'the LeaderElection events',
    );
    expect(events).toMatch(/Normal\s+LeaderElection\s+lease\/kube-controller-manager\s+\S+_[0-9a-f-]{36} became leader/);
  });
});

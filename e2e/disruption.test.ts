/**
 * Real kubectl 1.32 against the Node host: PodDisruptionBudgets kept by the
 * disruption controller and honoured by the eviction subresource, as
 * `kubectl get pdb` and `kubectl drain` show them. There is no kubelet: the
 * test binds the pods to a node and reports them Running and Ready itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const manifests = (node: string, pods: string[]) =>
  [
    `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${node}\n`,
    ...pods.map((name) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels: {app: web}\nspec:\n  nodeName: ${node}\n  containers:\n  - name: c\n    image: nginx:1.27\n`),
  ].join('---\n');

describe('kubectl and PodDisruptionBudgets', () => {
  it('kubectl get pdb shows the allowed disruptions; kubectl drain evicts what the budget allows and reports the 429 for the rest', async () => {
    const created = await t.kubectl(['create', '-f', '-'], manifests('node-1', ['web-1', 'web-2']));
    expect(created.code, created.stderr).toBe(0);
    for (const pod of ['web-1', 'web-2']) {
      const running = await t.kubectl(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}']);
      expect(running.code, running.stderr).toBe(0);
    }
    const pdb = await t.kubectl(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
    expect(pdb.stdout.trim()).toBe('poddisruptionbudget.policy/web created');
    const stdout = async (args: string[]) => (await t.kubectl(args)).stdout;
    await eventually(() => stdout(['get', 'pdb', 'web', '-o', 'jsonpath={.status.currentHealthy}']), (out) => out === '2', 'the budget counted');
    const table = await t.kubectl(['get', 'pdb', 'web']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    expect(table.stdout.split('\n')[1]).toMatch(/^web\s+1\s+N\/A\s+1\s+\S+$/);

    // Two pods, one disruption allowed: one eviction goes through, the other is refused until the timeout.
    // No kubelet confirms a graceful termination, so the evicted pod is asked to go at once.
    const drain = await t.kubectl(['drain', 'node-1', '--force', '--grace-period=0', '--timeout=3s']);
    expect(drain.code).toBe(1);
    expect(drain.stdout).toContain('node/node-1 cordoned');
    expect(drain.stdout).toMatch(/pod\/web-[12] evicted/);
    expect(drain.stderr).toMatch(/error when evicting pods\/"web-[12]" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    expect(drain.stderr).toContain('global timeout reached: 3s');
    expect(drain.stderr).toContain('error: unable to drain node "node-1"');
    const left = await t.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'name']);
    expect(left.stdout.trim().split('\n')).toHaveLength(1);
    expect((await t.kubectl(['get', 'node', 'node-1', '-o', 'jsonpath={.spec.unschedulable}'])).stdout).toBe('true');
  });
});

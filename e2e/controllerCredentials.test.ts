/**
 * Real kubectl 1.32 against the Node host started with
 * --use-service-account-credentials --authorization-mode=RBAC --tls (kubectl
 * sends its token over HTTPS only), as kubeadm runs kube-controller-manager:
 * the controllers' ServiceAccounts in kube-system, and a Deployment rolling
 * out with each controller holding only its system:controller:<name> role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { useServiceAccountCredentials: true, authorizationModes: 'RBAC', simulatedNodes: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

describe('--use-service-account-credentials', () => {
  it('[AC-RBAC-116] kubectl get sa -n kube-system lists the controllers\' accounts, each bound to its system:controller role', async () => {
    const names = (await t.kubectlOk(['get', 'sa', '-n', 'kube-system', '-o', 'name'])).trim().split('\n');
    for (const name of ['default', 'deployment-controller', 'replicaset-controller', 'daemon-set-controller', 'generic-garbage-collector', 'namespace-controller', 'service-account-controller', 'endpointslice-controller', 'job-controller', 'node-controller']) {
      expect(names).toContain(`serviceaccount/${name}`);
    }
    const table = (await t.kubectlOk(['get', 'sa', '-n', 'kube-system'])).split('\n');
    expect(table[0]).toMatch(/^NAME\s+SECRETS\s+AGE$/);
    expect(table.find((l) => l.startsWith('replicaset-controller '))).toMatch(/^replicaset-controller\s+0\s+\S+$/);
    const sa = 'system:serviceaccount:kube-system:replicaset-controller';
    expect((await t.kubectl(['auth', 'can-i', 'create', 'pods', `--as=${sa}`, '-n', 'default'])).stdout).toBe('yes\n');
    expect((await t.kubectl(['auth', 'can-i', 'create', 'secrets', `--as=${sa}`, '-n', 'default'])).stdout).toBe('no\n');
  });

  it('[AC-RBAC-116] a Deployment rolls out; without its binding replicaset-controller makes no pods, and goes on once it is back', async () => {
    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'])).code).toBe(0);
    const rollout = await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(rollout.stdout).toContain('deployment "web" successfully rolled out');

    await t.kubectlOk(['delete', 'clusterrolebinding', 'system:controller:replicaset-controller']);
    await t.kubectlOk(['scale', 'deployment/web', '--replicas=3']);
    // deployment-controller still scales the ReplicaSet; replicaset-controller's pod create is Forbidden.
    await eventually(() => t.kubectlOk(['get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[0].spec.replicas}']), (out) => out === '3', 'the ReplicaSet scaled');
    expect((await t.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n')).toHaveLength(2);

    await t.kubectlOk(['create', 'clusterrolebinding', 'system:controller:replicaset-controller', '--clusterrole=system:controller:replicaset-controller', '--serviceaccount=kube-system:replicaset-controller']);
    const again = await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(again.code, again.stderr).toBe(0);
    expect((await t.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n')).toHaveLength(3);
  });
});

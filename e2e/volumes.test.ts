/** Real kubectl 1.32 against a Node host with --simulated-nodes=2: claims are provisioned and bound, StatefulSets get their volumes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

const statefulSet = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts:
        - {name: www, mountPath: /usr/share/nginx/html}
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

const staticVolume = `
apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual-pv
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  hostPath: {path: /data/manual}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: manual
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

describe('volumes on --simulated-nodes', () => {
  it('kubectl get sc shows standard (default); a StatefulSet with volumeClaimTemplates rolls out on provisioned volumes', async () => {
    const sc = await eventually(() => stdout(['get', 'sc']), (out) => out.includes('standard'), 'the default StorageClass');
    const lines = sc.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE$/);
    expect(lines[1]).toMatch(/^standard \(default\)\s+kubesim\.io\/simulated-path\s+Delete\s+WaitForFirstConsumer\s+false\s+\S+$/);

    expect((await t.kubectl(['apply', '-f', '-'], statefulSet)).code).toBe(0);
    const rollout = await t.kubectl(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(rollout.code).toBe(0);
    expect(rollout.stdout).toContain('partitioned roll out complete: 2 new pods have been updated...');

    const claims = (await stdout(['get', 'pvc'])).split('\n');
    expect(claims[0]).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/);
    expect(claims.slice(1)).toHaveLength(2);
    for (const [i, line] of claims.slice(1).entries()) expect(line).toMatch(new RegExp(`^www-web-${i}\\s+Bound\\s+pvc-[0-9a-f-]{36}\\s+1Gi\\s+RWO\\s+standard\\s+<unset>\\s+\\S+$`));
    const volumes = (await stdout(['get', 'pv'])).split('\n');
    expect(volumes[0]).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/);
    expect(volumes.slice(1).map((l) => l.replace(/^pvc-\S+\s+/, '').replace(/\s+\S+$/, '')).sort()).toEqual([
      expect.stringMatching(/^1Gi\s+RWO\s+Delete\s+Bound\s+default\/www-web-0\s+standard\s+<unset>$/),
      expect.stringMatching(/^1Gi\s+RWO\s+Delete\s+Bound\s+default\/www-web-1\s+standard\s+<unset>$/),
    ]);
    // Both kinds at once, as kubectl names them.
    const both = await stdout(['get', 'pvc,pv']);
    expect(both).toMatch(/^persistentvolumeclaim\/www-web-0\s+Bound\s+pvc-/m);
    expect(both).toMatch(/^persistentvolume\/pvc-\S+\s+1Gi\s+RWO\s+Delete\s+Bound\s+default\/www-web-1\s/m);
    const described = await eventually(async () => (await t.kubectl(['describe', 'pvc', 'www-web-0'])).stdout, (out) => out.includes('ProvisioningSucceeded'), 'the provisioning events');
    expect(described).toMatch(/Status:\s+Bound/);
    expect(described).toMatch(/volume\.kubernetes\.io\/selected-node: node-\d/);
    expect(described).toMatch(/Normal\s+ExternalProvisioning\s+.*persistentvolume-controller\s+Waiting for a volume to be created either by the external provisioner 'kubesim\.io\/simulated-path'/);
    expect(described).toMatch(/Normal\s+ProvisioningSucceeded\s+.*Successfully provisioned volume pvc-/);
    // Each pod runs where its volume is.
    for (const i of [0, 1]) {
      const node = await stdout(['get', 'pod', `web-${i}`, '-o', 'jsonpath={.spec.nodeName}']);
      const volume = await stdout(['get', 'pvc', `www-web-${i}`, '-o', 'jsonpath={.spec.volumeName}']);
      expect(await stdout(['get', 'pv', volume, '-o', 'jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}'])).toBe(node);
    }
  });

  it('binds a static volume to a claim of no class; an Immediate claim with nothing to bind keeps its pod Pending', async () => {
    expect((await t.kubectl(['apply', '-f', '-'], staticVolume)).code).toBe(0);
    const claim = await eventually(() => stdout(['get', 'pvc', 'manual', '--no-headers']), (out) => out.includes('Bound'), 'manual bound');
    expect(claim).toMatch(/^manual\s+Bound\s+manual-pv\s+5Gi\s+RWO\s+<unset>\s+\S+$/);
    expect(await stdout(['get', 'pv', 'manual-pv', '--no-headers'])).toMatch(/^manual-pv\s+5Gi\s+RWO\s+Retain\s+Bound\s+default\/manual\s+<unset>\s+\S+$/);

    const pending = `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: nothing}\nspec: {storageClassName: "", accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}}\n`;
    expect((await t.kubectl(['apply', '-f', '-'], pending)).code).toBe(0);
    expect((await t.kubectl(['run', 'needs', '--image=busybox', '--overrides={"spec":{"containers":[{"name":"needs","image":"busybox"}],"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"nothing"}}]}}'])).code).toBe(0);
    const described = await eventually(async () => (await t.kubectl(['describe', 'pod', 'needs'])).stdout, (out) => out.includes('FailedScheduling'), 'FailedScheduling');
    expect(described).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available: pod has unbound immediate PersistentVolumeClaims\. preemption: 0\/2 nodes are available: 2 Preemption is not helpful for scheduling\./);
    const claimEvents = await eventually(async () => (await t.kubectl(['describe', 'pvc', 'nothing'])).stdout, (out) => out.includes('FailedBinding'), 'FailedBinding');
    expect(claimEvents).toMatch(/Normal\s+FailedBinding\s+\S+\s+persistentvolume-controller\s+no persistent volumes available for this claim and no storage class is set/);
  });
});

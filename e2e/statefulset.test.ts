/**
 * Real kubectl 1.32 against the Node host: a StatefulSet behind a headless
 * Service, as `kubectl get`, `kubectl rollout status`, `kubectl rollout
 * history` and `kubectl scale` show it. Without nodes the test reports each
 * pod Running and Ready itself, as a kubelet would; on a host with
 * --simulated-nodes the simulated kubelets do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
let nodes: TestHost;
beforeAll(async () => {
  [t, nodes] = await Promise.all([startTestHost(), startTestHost({ flags: { simulatedNodes: 2 } })]);
});
afterAll(async () => {
  await Promise.all([t?.stop(), nodes?.stop()]);
});

const manifest = `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels: {app: nginx}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports:
  - {port: 80, name: web}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: nginx
  replicas: 2
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - {containerPort: 80, name: web}
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

const ready = '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}';

describe('kubectl and StatefulSets', () => {
  it('apply, get sts,pods,pvc, rollout status once the pods are ready, rollout history, scale', async () => {
    const applied = await t.kubectl(['apply', '-f', '-'], manifest);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split('\n')).toEqual(['service/nginx created', 'statefulset.apps/web created']);
    const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();
    await eventually(() => stdout(['get', 'pods', '-o', 'name']), (out) => out === 'pod/web-0', 'web-0');

    // rollout status waits: web-1 comes only once web-0 is Running and Ready.
    const rollout = t.kubectl(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    const listed = await t.kubectl(['get', 'sts,pods,pvc']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+READY\s+AGE$/);
    expect(lines[1]).toMatch(/^statefulset\.apps\/web\s+0\/2\s+\S+$/);
    expect(listed.stdout).toMatch(/\npod\/web-0\s+0\/1\s+Pending\s+0\s+\S+\n/);
    // No persistentvolume-binder-controller: the claim's status stays empty rather than Pending.
    expect(listed.stdout).toMatch(/\npersistentvolumeclaim\/www-web-0\s+/);
    expect(listed.stdout).not.toContain('web-1');
    for (const pod of ['web-0', 'web-1']) {
      await eventually(() => stdout(['get', 'pods', '-o', 'name']), (out) => out.includes(`pod/${pod}`), pod);
      const patched = await t.kubectl(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', ready]);
      expect(patched.code, patched.stderr).toBe(0);
    }
    const done = await rollout;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('Waiting for 2 pods to be ready...');
    expect(done.stdout.trim().split('\n').at(-1)).toBe('partitioned roll out complete: 2 new pods have been updated...');
    expect(await stdout(['get', 'sts', 'web', '-o', 'jsonpath={.status.readyReplicas}/{.status.replicas}'])).toBe('2/2');
    expect(await stdout(['get', 'pod', 'web-1', '-o', 'jsonpath={.spec.hostname}.{.spec.subdomain} {.spec.volumes[0].persistentVolumeClaim.claimName}'])).toBe('web-1.nginx www-web-1');

    const history = await t.kubectl(['rollout', 'history', 'statefulset/web']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout.trim().split('\n').map((l) => l.trim())).toEqual(['statefulset.apps/web', 'REVISION  CHANGE-CAUSE', '1         <none>']);
    const revision = await t.kubectl(['rollout', 'history', 'statefulset/web', '--revision=1']);
    expect(revision.stdout).toMatch(/Pod Template:\n\s+Labels:\s+app=nginx\n/);
    expect(revision.stdout).toMatch(/Image:\s+registry\.k8s\.io\/nginx-slim:0\.24/);

    // A new image: a second revision, web-1 replaced first.
    expect((await t.kubectl(['set', 'image', 'statefulset/web', 'nginx=registry.k8s.io/nginx-slim:0.25'])).code).toBe(0);
    await eventually(() => stdout(['get', 'pod', 'web-1', '-o', 'jsonpath={.spec.containers[0].image}']), (out) => out.endsWith(':0.25'), 'web-1 updated');
    const revisions = await stdout(['rollout', 'history', 'statefulset/web']);
    expect(revisions.split('\n').map((l) => l.trim()).slice(1)).toEqual(['REVISION  CHANGE-CAUSE', '1         <none>', '2         <none>']);

    // Undo patches the set with revision 1's template: that revision becomes revision 3.
    const undone = await t.kubectl(['rollout', 'undo', 'statefulset/web', '--to-revision=1']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout.trim()).toBe('statefulset.apps/web rolled back');
    expect(await stdout(['get', 'sts', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).toBe('registry.k8s.io/nginx-slim:0.24');
    await eventually(() => stdout(['rollout', 'history', 'statefulset/web']), (out) => out.includes('3         <none>'), 'revision 3');
    expect((await stdout(['rollout', 'history', 'statefulset/web'])).split('\n').map((l) => l.trim()).slice(2)).toEqual(['2         <none>', '3         <none>']);

    const scaled = await t.kubectl(['scale', 'statefulset', 'web', '--replicas=1']);
    expect(scaled.stdout.trim()).toBe('statefulset.apps/web scaled');
    await eventually(() => stdout(['get', 'pods', '-o', 'name']), (out) => out === 'pod/web-0', 'only web-0');
    const described = await stdout(['describe', 'sts', 'web']);
    expect(described).toMatch(/Normal\s+SuccessfulCreate\s+.*statefulset-controller\s+create Claim www-web-0 Pod web-0 in StatefulSet web success/);
    expect(described).toMatch(/Normal\s+SuccessfulDelete\s+.*statefulset-controller\s+delete Pod web-1 in StatefulSet web successful/);
    // The claims stay (whenScaled: Retain).
    expect(await stdout(['get', 'pvc', '-o', 'name'])).toBe('persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1');
  });

  it('on simulated nodes: the pods start by themselves, a rolling update and a rollout restart replace every pod, scale-down leaves web-0', async () => {
    const applied = await nodes.kubectl(['apply', '-f', '-'], manifest.replace('replicas: 2', 'replicas: 3'));
    expect(applied.code, applied.stderr).toBe(0);
    const rollout = await nodes.kubectl(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(rollout.stdout.trim().split('\n').at(-1)).toBe('partitioned roll out complete: 3 new pods have been updated...');
    const out = async (args: string[]) => (await nodes.kubectl(args)).stdout.trim();
    const pods = (await out(['get', 'pods', '-o', 'wide', '--no-headers'])).split('\n');
    expect(pods.map((l) => l.split(/\s+/)[0])).toEqual(['web-0', 'web-1', 'web-2']);
    for (const line of pods) expect(line).toMatch(/^web-\d\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d\.\d+\s+node-\d\s/);
    // The page's stable network identity: busybox:1.28's nslookup finds each pod under the headless Service.
    const web0IP = await out(['get', 'pod', 'web-0', '-o', 'jsonpath={.status.podIP}']);
    const lookup = await nodes.kubectl(['run', '-i', '--rm', '--restart=Never', '--image=busybox:1.28', 'dns-test', '--', 'nslookup', 'web-0.nginx']);
    expect(lookup.stdout).toContain(`Name:      web-0.nginx\nAddress 1: ${web0IP} web-0.nginx.default.svc.cluster.local\n`);
    expect(lookup.stdout).toMatch(/^Server:    10\.96\.0\.10\n/);

    expect((await nodes.kubectl(['set', 'image', 'statefulset/web', 'nginx=registry.k8s.io/nginx-slim:0.25'])).code).toBe(0);
    const updated = await nodes.kubectl(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(await out(['get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.containers[0].image} {end}'])).toBe(
      'web-0=registry.k8s.io/nginx-slim:0.25 web-1=registry.k8s.io/nginx-slim:0.25 web-2=registry.k8s.io/nginx-slim:0.25',
    );
    const status = await out(['get', 'sts', 'web', '-o', 'jsonpath={.status.currentRevision} {.status.updateRevision} {.status.updatedReplicas} {.status.readyReplicas}']);
    const [current, update, ...counts] = status.split(' ');
    expect(current).toBe(update);
    expect(counts).toEqual(['3', '3']);

    // rollout restart stamps the template: a third revision, every pod replaced again.
    const before = await out(['get', 'pods', '-o', 'jsonpath={.items[*].metadata.uid}']);
    expect((await nodes.kubectl(['rollout', 'restart', 'statefulset/web'])).stdout.trim()).toBe('statefulset.apps/web restarted');
    const restarted = await nodes.kubectl(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    expect(restarted.code, restarted.stderr).toBe(0);
    await eventually(() => out(['get', 'sts', 'web', '-o', 'jsonpath={.status.updatedReplicas}/{.status.currentRevision}/{.status.updateRevision}']), (o) => {
      const [n, cur, upd] = o.split('/');
      return n === '3' && cur === upd;
    }, 'restart complete');
    const after = (await out(['get', 'pods', '-o', 'jsonpath={.items[*].metadata.uid}'])).split(' ');
    expect(after.filter((uid) => before.split(' ').includes(uid))).toEqual([]);
    expect((await out(['rollout', 'history', 'statefulset/web'])).split('\n').at(-1)!.trim()).toBe('3         <none>');

    expect((await nodes.kubectl(['scale', 'sts', 'web', '--replicas=1'])).code).toBe(0);
    await eventually(() => out(['get', 'pods', '-o', 'name']), (o) => o === 'pod/web-0', 'only web-0');
    const described = await out(['describe', 'sts', 'web']);
    const deletes = [...described.matchAll(/delete Pod (web-\d) in StatefulSet web successful/g)].map((m) => m[1]);
    // The rolling update replaced web-2, web-1, web-0; the scale-down then removed web-2 and web-1.
    expect(deletes).toEqual(expect.arrayContaining(['web-0', 'web-1', 'web-2']));
  });
});

/** Real kubectl 1.32 against the Node host: the foundation's everyday commands. */
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

const manifests = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
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
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: dev
`;

describe('kubectl against the Node host', () => {
  it('kubectl version reports the server version with the skew warning', async () => {
    const r = await t.kubectl(['version']);
    expect(r.stdout).toContain('Server Version: v1.36.0');
    expect(r.stderr + r.stdout).toContain('version difference between client (1.32) and server (1.36)');
  });

  it('api-resources and api-versions come from discovery', async () => {
    const r = await t.kubectl(['api-resources']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(r.stdout).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    const v = await t.kubectl(['api-versions']);
    expect(v.stdout.split('\n')).toEqual(expect.arrayContaining(['v1', 'apps/v1', 'batch/v1', 'rbac.authorization.k8s.io/v1']));
  });

  it('create namespace (protobuf body) and get it', async () => {
    const r = await t.kubectl(['create', 'namespace', 'team-a']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('namespace/team-a created');
    const g = await t.kubectl(['get', 'namespace', 'team-a']);
    expect(g.stdout).toMatch(/^NAME\s+STATUS\s+AGE\nteam-a\s+Active\s+\d+s\n$/);
  });

  it('create -f with a Deployment, a Service and a ConfigMap', async () => {
    const r = await t.kubectl(['create', '-f', '-'], manifests);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['deployment.apps/web created', 'service/web created', 'configmap/settings created']);
  });

  it('get prints the columns a real cluster prints', async () => {
    const d = await t.kubectl(['get', 'deployments']);
    expect(d.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+0\/2\s+0\s+0\s+\d+s\n$/);
    const s = await t.kubectl(['get', 'services']);
    expect(s.stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\n/);
    expect(s.stdout).toMatch(/\nweb\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s\n/);
    const c = await t.kubectl(['get', 'configmaps', 'settings']);
    expect(c.stdout).toMatch(/^NAME\s+DATA\s+AGE\nsettings\s+1\s+\d+s\n$/);
  });

  it('get -o wide, -o yaml, -o json, -o name', async () => {
    const w = await t.kubectl(['get', 'deployment', 'web', '-o', 'wide']);
    expect(w.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/2\s+0\s+0\s+\d+s\s+nginx\s+nginx:1.27\s+app=web\n$/);
    const y = await t.kubectl(['get', 'configmap', 'settings', '-o', 'yaml']);
    expect(y.stdout).toContain('kind: ConfigMap');
    expect(y.stdout).toContain('  mode: dev');
    expect(y.stdout).toMatch(/resourceVersion: "\d+"/);
    const j = await t.kubectl(['get', 'configmap', 'settings', '-o', 'json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'dev' } });
    const n = await t.kubectl(['get', 'deployments,services', '-o', 'name']);
    // default also holds the kubernetes Service, as on any cluster.
    expect(n.stdout.trim().split('\n')).toEqual(['deployment.apps/web', 'service/kubernetes', 'service/web']);
  });

  it('explain pods.spec.containers reads /openapi/v3', async () => {
    const r = await t.kubectl(['explain', 'pods.spec.containers']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:       Pod');
    expect(r.stdout).toContain('FIELD: containers <[]Container>');
    expect(r.stdout).toContain('image\t<string>');
  });

  it('replace -f carries the live resourceVersion', async () => {
    const changed = manifests.replace('mode: dev', 'mode: prod');
    const r = await t.kubectl(['replace', '-f', '-'], changed);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap/settings replaced');
    const j = await t.kubectl(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}']);
    expect(j.stdout).toBe('prod');
  });

  it('delete, then get on the missing object prints the NotFound error', async () => {
    const d = await t.kubectl(['delete', 'configmap', 'settings']);
    expect(d.stdout.trim()).toBe('configmap "settings" deleted');
    const g = await t.kubectl(['get', 'configmap', 'settings']);
    expect(g.code).toBe(1);
    expect(g.stderr.trim()).toBe('Error from server (NotFound): configmaps "settings" not found');
  });

  it('create configmap and create deployment send protobuf bodies', async () => {
    const c = await t.kubectl(['create', 'configmap', 'pb', '--from-literal=k=v']);
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('configmap/pb created');
    const d = await t.kubectl(['create', 'deployment', 'pbdep', '--image=busybox']);
    expect(d.stderr).toBe('');
    expect(d.stdout.trim()).toBe('deployment.apps/pbdep created');
  });

  it('auth can-i and auth whoami (protobuf reviews)', async () => {
    const c = await t.kubectl(['auth', 'can-i', 'create', 'pods']);
    expect(c.stdout.trim()).toBe('yes');
    const w = await t.kubectl(['auth', 'whoami']);
    expect(w.code).toBe(0);
    // kubectl sends its token over HTTPS only: over plain HTTP it is anonymous.
    expect(w.stdout).toMatch(/Username\s+system:anonymous/);
  });

  it('[API-PATH-037] delete of several objects (one DELETE each), a foreground cascade, and a namespace with its content', async () => {
    await t.kubectl(['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n');
    const two = await t.kubectl(['delete', 'configmap', 'a', 'b', '-v=6']);
    expect(two.stdout.trim().split('\n')).toEqual(['configmap "a" deleted', 'configmap "b" deleted']);
    const deletes = two.stderr.split('\n').filter((l) => / DELETE /.test(l)).map((l) => /DELETE \S+\/configmaps\/(\w+) 200 OK/.exec(l)?.[1]);
    expect(deletes).toEqual(['a', 'b']);
    const fg = await t.kubectl(['delete', 'deployment', 'pbdep', '--cascade=foreground']);
    expect(fg.stderr).toBe('');
    expect(fg.stdout.trim()).toBe('deployment.apps "pbdep" deleted');
    expect((await t.kubectl(['get', 'deployment', 'pbdep'])).code).toBe(1);
    await t.kubectl(['create', '-f', '-', '-n', 'team-a'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside}\n');
    const ns = await t.kubectl(['delete', 'namespace', 'team-a']);
    expect(ns.stdout.trim()).toBe('namespace "team-a" deleted');
    const gone = await t.kubectl(['get', 'namespace', 'team-a']);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): namespaces "team-a" not found');
  });
});

/**
 * The official clients' write calls against the Node host: @kubernetes/client-node
 * reads an object, changes it and replaces it (the timestamp it re-serialises
 * is not a change), and a stale resourceVersion is 409; the Python client
 * (Debian's python3-kubernetes) replaces a ConfigMap after a read, patches a
 * Deployment's scale (strategic merge) and applies with force=True.
 */
import { AppsV1Api, CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startTestHost, type TestHost } from './support/host';

let h: TestHost;
let kc: KubeConfig;

beforeAll(async () => {
  h = await startTestHost();
  kc = new KubeConfig();
  // client-node speaks plain HTTP only with skipTLSVerify set.
  kc.loadFromOptions({
    clusters: [{ name: 'kubesim', server: h.host.url, skipTLSVerify: true }],
    users: [{ name: 'admin' }],
    contexts: [{ name: 'kubesim', cluster: 'kubesim', user: 'admin' }],
    currentContext: 'kubesim',
  });
});

afterAll(async () => {
  await h?.stop();
});

async function createNamespace(name: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
}

describe('@kubernetes/client-node read, change, replace', () => {
  it('API-META-016 API-ERR-008: replace after a read works (creationTimestamp kept); a stale resourceVersion is 409', async () => {
    await createNamespace('node-client');
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'node-client', body: { metadata: { name: 'cm' }, data: { a: '1' } } });
    const read: V1ConfigMap = await core.readNamespacedConfigMap({ name: 'cm', namespace: 'node-client' });
    // client-node holds creationTimestamp as a Date and sends it back as `...T...000Z`.
    expect(read.metadata!.creationTimestamp).toBeInstanceOf(Date);
    const staleRv = read.metadata!.resourceVersion;
    read.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'cm', namespace: 'node-client', body: read });
    expect(replaced.data).toEqual({ a: '2' });
    expect(replaced.metadata!.creationTimestamp!.getTime()).toBe(read.metadata!.creationTimestamp!.getTime());
    expect(replaced.metadata!.uid).toBe(read.metadata!.uid);
    expect(replaced.metadata!.resourceVersion).not.toBe(staleRv);

    read.metadata!.resourceVersion = staleRv;
    read.data = { a: '3' };
    const err = await core.replaceNamespacedConfigMap({ name: 'cm', namespace: 'node-client', body: read }).then(
      () => undefined,
      (e: { code?: number; body?: string }) => e,
    );
    expect(err?.code).toBe(409);
    expect(JSON.parse(err!.body!)).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('replace of a Deployment and of a Service keeps their server-set fields', async () => {
    await createNamespace('node-client2');
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'node-client2',
      body: { metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } } },
    });
    const d = await apps.readNamespacedDeployment({ name: 'd', namespace: 'node-client2' });
    d.spec!.replicas = 2;
    const rd = await apps.replaceNamespacedDeployment({ name: 'd', namespace: 'node-client2', body: d });
    expect(rd.spec!.replicas).toBe(2);
    expect(rd.metadata!.generation).toBe(2);

    await core.createNamespacedService({ namespace: 'node-client2', body: { metadata: { name: 's' }, spec: { type: 'NodePort', selector: { app: 'd' }, ports: [{ port: 80 }] } } });
    const s = await core.readNamespacedService({ name: 's', namespace: 'node-client2' });
    s.metadata!.labels = { tier: 'web' };
    const rs = await core.replaceNamespacedService({ name: 's', namespace: 'node-client2', body: s });
    expect(rs.spec!.clusterIP).toBe(s.spec!.clusterIP);
    expect(rs.spec!.ports![0]!.nodePort).toBe(s.spec!.ports![0]!.nodePort);
    expect(rs.metadata!.labels).toEqual({ tier: 'web' });
  });
});

describe('the Python client (python3-kubernetes)', () => {
  it('API-SSA-029 API-PATCH-006 API-PATH-007 API-ERR-008: replace after read, stale replace 409, patch_namespaced_deployment_scale, apply with force=True', async () => {
    await createNamespace('py-client');
    const script = fileURLToPath(new URL('./python/clients.py', import.meta.url));
    const r = await run('/usr/bin/python3', [script, h.host.kubeconfigPath, 'py-client'], { HOME: h.home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      replace: { data: { a: '2' }, creationTimestampKept: true, uidKept: true },
      staleReplace: { status: 409, reason: 'Conflict' },
      scale: { kind: 'Scale', replicas: 3, deploymentReplicas: 3 },
      applyConflict: { status: 409 },
      applyForce: { data: { k: 'b' }, managers: ['py-two'] },
    });
  });
});

describe('kubectl and Services', () => {
  it('kubectl create -f of an invalid Service prints kube\'s causes; NodePort and ClusterIP conflicts too', async () => {
    const manifest = (name: string, spec: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
    const big = await h.kubectl(['create', '-f', '-'], manifest('big', '  ports:\n  - port: 70000\n'));
    expect(big.code).toBe(1);
    expect(big.stderr).toBe(
      'The Service "big" is invalid: \n' +
        '* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n' +
        '* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n',
    );
    const none = await h.kubectl(['create', '-f', '-'], manifest('none', '  selector:\n    app: x\n'));
    expect(none.stderr).toBe('The Service "none" is invalid: spec.ports: Required value\n');
    const np = await h.kubectl(['create', '-f', '-'], manifest('np', '  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 8080\n'));
    expect(np.stderr).toBe('The Service "np" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767\n');
    const ip = await h.kubectl(['create', '-f', '-'], manifest('ip', '  clusterIP: 10.96.0.1\n  ports:\n  - port: 80\n'));
    expect(ip.stderr).toBe('The Service "ip" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated\n');
    const get = await h.kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}']);
    expect(get.stdout).toBe('10.96.0.1');
  });
});

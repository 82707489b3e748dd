/**
 * NetworkPolicies with real kubectl against a Node host with a simulated node:
 * the server defaults what kubectl sends, kubectl shows it, and busybox in a
 * pod finds its connections and DNS queries dropped, or let through, as the
 * policies say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, withoutClientLogs, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

const kubectl = async (args: string[], input = ''): Promise<RunResult> => withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input));

const workloads = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: httpd
    image: busybox
    command: [sh, -c, 'mkdir -p /www; echo hello > /www/index.html; httpd -f -p 8080 -h /www']
    ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata: {name: frontend, labels: {role: frontend}}
spec:
  containers: [{name: c, image: busybox, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, labels: {role: other}}
spec:
  containers: [{name: c, image: busybox, command: [sleep, '3600']}]
`;

const allowFrontend = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-from-frontend}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: frontend}}}]
    ports: [{port: http}]
`;

const denyEgress = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: other-egress}
spec:
  podSelector: {matchLabels: {role: other}}
  policyTypes: [Egress]
`;

const allowDns = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-dns}
spec:
  podSelector: {matchLabels: {role: other}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
      podSelector: {matchLabels: {k8s-app: kube-dns}}
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
`;

const fetch = (pod: string) => kubectl(['exec', pod, '--', 'wget', '-qO-', '-T', '1', 'web']);

describe('NetworkPolicy', () => {
  beforeAll(async () => {
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    expect((await kubectl(['apply', '-f', '-'], workloads)).code).toBe(0);
    expect((await kubectl(['wait', '--for=condition=Ready', 'pod', '--all', '--timeout=25s'])).code).toBe(0);
    await eventually(async () => await fetch('other'), (r) => r.code === 0, 'wget through the Service');
  });

  it('an ingress policy lets the pods it names reach the named port, and drops every other connection (the client times out)', async () => {
    expect(await fetch('other')).toMatchObject({ code: 0, stdout: 'hello\n' });
    expect((await kubectl(['apply', '-f', '-'], allowFrontend)).stdout).toBe('networkpolicy.networking.k8s.io/web-from-frontend created\n');
    // The server defaulted the policy types and the port's protocol.
    expect(JSON.parse((await kubectl(['get', 'networkpolicy', 'web-from-frontend', '-o', 'json'])).stdout).spec).toEqual({
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }],
      policyTypes: ['Ingress'],
    });
    expect((await kubectl(['get', 'networkpolicy'])).stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\nweb-from-frontend\s+app=web\s+\d+s\n$/);
    expect(await fetch('frontend')).toMatchObject({ code: 0, stdout: 'hello\n' });
    expect(await fetch('other')).toMatchObject({ code: 1, stdout: '', stderr: 'wget: download timed out\ncommand terminated with exit code 1\n' });
    expect((await kubectl(['delete', 'networkpolicy', 'web-from-frontend'])).code).toBe(0);
    await eventually(async () => await fetch('other'), (r) => r.code === 0, 'the connection let through again');
  });

  it('default-deny egress drops DNS as well; a policy allowing DNS to kube-dns brings names back', async () => {
    expect((await kubectl(['apply', '-f', '-'], denyEgress)).code).toBe(0);
    const lookup = () => kubectl(['exec', 'other', '--', 'nslookup', 'web.default.svc.cluster.local']);
    expect(await lookup()).toMatchObject({ code: 1, stdout: ';; connection timed out; no servers could be reached\n\n' });
    expect((await kubectl(['apply', '-f', '-'], allowDns)).code).toBe(0);
    expect(await lookup()).toMatchObject({ code: 0, stdout: expect.stringContaining('Name:\tweb.default.svc.cluster.local\n') });
    // The name resolves; the connection itself is still not allowed out.
    expect(await fetch('other')).toMatchObject({ code: 1, stderr: 'wget: download timed out\ncommand terminated with exit code 1\n' });
    expect(await fetch('frontend')).toMatchObject({ code: 0, stdout: 'hello\n' });
  });
});

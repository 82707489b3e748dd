/** "Debug Services" against a Node host started with --simulated-nodes=1: real kubectl exec into a client pod that looks the Service up and fetches from it through the simulated cluster network. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, withoutClientLogs, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

const kubectl = async (args: string[], input = ''): Promise<RunResult> => withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input));

const manifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
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
metadata: {name: client}
spec:
  containers: [{name: client, image: busybox, command: [sleep, '3600']}]
`;

describe('debugging a Service from inside the cluster', () => {
  let clusterIP = '';
  beforeAll(async () => {
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    expect((await kubectl(['apply', '-f', '-'], manifests)).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])).stdout, (r) => r === '2', 'the Deployment ready');
    await eventually(async () => (await kubectl(['get', 'pod', 'client', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', 'the client running');
    clusterIP = (await kubectl(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
  });

  it('nslookup finds the Service in the pod namespace search domain, and wget reaches a pod behind it', async () => {
    // busybox asks every search domain, and any NXDOMAIN makes its exit code 1.
    expect(await kubectl(['exec', 'client', '--', 'nslookup', 'web'])).toMatchObject({
      code: 1,
      stdout:
        `Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${clusterIP}\n\n` +
        "** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n" +
        "*** Can't find web.default.svc.cluster.local: No answer\n\n** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n",
      stderr: 'command terminated with exit code 1\n',
    });
    expect(await kubectl(['exec', 'client', '--', 'nslookup', 'web.default.svc.cluster.local'])).toMatchObject({ code: 0, stdout: `Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${clusterIP}\n\n*** Can't find web.default.svc.cluster.local: No answer\n\n` });
    expect(await kubectl(['exec', 'client', '--', 'nslookup', 'nope.default.svc.cluster.local'])).toMatchObject({ code: 1, stderr: 'command terminated with exit code 1\n' });
    // The endpoints are published once the controller has seen the pods ready.
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web:80']), (r) => r.code === 0, 'wget through the Service');
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web:80'])).toMatchObject({ code: 0, stdout: 'hello\n', stderr: '' });
    expect(await kubectl(['exec', 'client', '--', 'wget', '-O-', 'web'])).toMatchObject({ code: 0, stdout: 'hello\n', stderr: `Connecting to web (${clusterIP}:80)\nwriting to stdout\n${'-'.padEnd(20)}100% |*******************************|     6   0:00:00 ETA\nwritten to stdout\n` });
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web/missing'])).toMatchObject({ code: 1, stderr: 'wget: server returned error: HTTP/1.0 404 Not Found\ncommand terminated with exit code 1\n' });
    expect(await kubectl(['exec', 'client', '--', 'nc', '-zv', 'web', '80'])).toMatchObject({ code: 0, stderr: `web (${clusterIP}:80) open\n` });
  });

  it('ping reaches a pod behind the Service but never its ClusterIP; the client knows its own address', async () => {
    const podIP = (await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'])).stdout;
    const ownIP = (await kubectl(['get', 'pod', 'client', '-o', 'jsonpath={.status.podIP}'])).stdout;
    const toPod = await kubectl(['exec', 'client', '--', 'ping', '-c', '1', podIP]);
    expect(toPod).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^PING ${podIP} \\(${podIP}\\): 56 data bytes\n64 bytes from ${podIP}: seq=0 ttl=64 time=0\\.\\d{3} ms\n\n--- ${podIP} ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\n`)) });
    expect(await kubectl(['exec', 'client', '--', 'ping', '-c', '1', '-W', '1', 'web'])).toMatchObject({
      code: 1,
      stdout: `PING web (${clusterIP}): 56 data bytes\n\n--- web ping statistics ---\n1 packets transmitted, 0 packets received, 100% packet loss\n`,
      stderr: 'command terminated with exit code 1\n',
    });
    expect(await kubectl(['exec', 'client', '--', 'hostname', '-i'])).toMatchObject({ code: 0, stdout: `${ownIP} \n` });
    // The web pods' httpd listens on IPv6's any address (dual stack), as busybox's does; the client listens on nothing.
    expect((await kubectl(['exec', 'deploy/web', '--', 'netstat', '-tln'])).stdout).toBe('Active Internet connections (only servers)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       \ntcp        0      0 :::8080                 :::*                    LISTEN      \n');
    expect((await kubectl(['exec', 'client', '--', 'netstat', '-tln'])).stdout.split('\n').length).toBe(3);
    expect((await kubectl(['exec', 'client', '--', 'ip', 'route'])).stdout).toBe(`default via ${ownIP.split('.').slice(0, 3).join('.')}.1 dev eth0 \n${ownIP.split('.').slice(0, 3).join('.')}.0/24 dev eth0 scope link  src ${ownIP} \n`);
  });

  it('a selector that matches nothing leaves the Service without endpoints: connections are refused until it is fixed', async () => {
    expect((await kubectl(['patch', 'service', 'web', '-p', '{"spec":{"selector":{"app":"wrong"}}}'])).code).toBe(0);
    const refused = `wget: can't connect to remote host (${clusterIP}): Connection refused\ncommand terminated with exit code 1\n`;
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web:80']), (r) => r.code === 1, 'the endpoints gone');
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web:80'])).toMatchObject({ code: 1, stdout: '', stderr: refused });
    expect((await kubectl(['patch', 'service', 'web', '-p', '{"spec":{"selector":{"app":"web"}}}'])).code).toBe(0);
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web.default.svc.cluster.local']), (r) => r.code === 0, 'the endpoints back');
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web.default.svc.cluster.local'])).toMatchObject({ code: 0, stdout: 'hello\n' });
  });

  it('a targetPort nothing listens on is refused at the pod', async () => {
    expect((await kubectl(['patch', 'service', 'web', '-p', '{"spec":{"ports":[{"port":80,"targetPort":9999}]}}'])).code).toBe(0);
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web']), (r) => r.code === 1, 'the new target port');
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'web'])).toMatchObject({ code: 1, stderr: `wget: can't connect to remote host (${clusterIP}): Connection refused\ncommand terminated with exit code 1\n` });
    const podIP = (await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'])).stdout;
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', `${podIP}:8080`])).toMatchObject({ code: 0, stdout: 'hello\n' });
  });

  it('a pod that is not Ready is no endpoint of its Service: refused through the Service, answering on its own address', async () => {
    const slow = `apiVersion: v1
kind: Pod
metadata: {name: slow, labels: {app: slow}}
spec:
  containers:
  - name: httpd
    image: busybox
    command: [sh, -c, 'mkdir -p /www; echo slow > /www/index.html; httpd -f -p 8080 -h /www']
    readinessProbe: {tcpSocket: {port: 8080}, initialDelaySeconds: 3600}
---
apiVersion: v1
kind: Service
metadata: {name: slow}
spec:
  selector: {app: slow}
  ports: [{port: 80, targetPort: 8080}]
`;
    expect((await kubectl(['apply', '-f', '-'], slow)).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=slow', '-o', 'jsonpath={.items[0].endpoints[0].conditions.ready}'])).stdout, (r) => r === 'false', 'the pod published not ready');
    const ip = (await kubectl(['get', 'service', 'slow', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'slow'])).toMatchObject({ code: 1, stderr: `wget: can't connect to remote host (${ip}): Connection refused\ncommand terminated with exit code 1\n` });
    const podIP = (await kubectl(['get', 'pod', 'slow', '-o', 'jsonpath={.status.podIP}'])).stdout;
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', `${podIP}:8080`])).toMatchObject({ code: 0, stdout: 'slow\n' });
  });

  it("a client pod's loop sees the Service as it is at each fetch: its log turns from refused to served once the Service is fixed", async () => {
    // The Service still targets a port nothing listens on (above).
    const poller = `apiVersion: v1
kind: Pod
metadata: {name: poller}
spec:
  containers: [{name: poller, image: busybox, command: [sh, -c, 'while true; do wget -qO- web 2>&1; sleep 1; done']}]
`;
    expect((await kubectl(['apply', '-f', '-'], poller)).code).toBe(0);
    const ip = (await kubectl(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    await eventually(async () => (await kubectl(['logs', 'poller', '--tail=1'])).stdout, (l) => l === `wget: can't connect to remote host (${ip}): Connection refused\n`, 'the poller refused');
    expect((await kubectl(['patch', 'service', 'web', '-p', '{"spec":{"ports":[{"port":80,"targetPort":"http"}]}}'])).code).toBe(0);
    await eventually(async () => (await kubectl(['logs', 'poller', '--tail=1'])).stdout, (l) => l === 'hello\n', 'the poller served');
  });

  it("kubectl expose --type=NodePort: the node's address and the NodePort reach the pods from inside the cluster; the kubelet's port answers TLS only", async () => {
    expect((await kubectl(['expose', 'deployment', 'web', '--name=web-np', '--type=NodePort', '--port=80', '--target-port=http'])).stdout).toBe('service/web-np exposed\n');
    const nodePort = (await kubectl(['get', 'service', 'web-np', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).stdout;
    expect(Number(nodePort)).toBeGreaterThanOrEqual(30000);
    const nodeIP = (await kubectl(['get', 'node', 'node-1', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])).stdout;
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', '-T', '1', `${nodeIP}:${nodePort}`]), (r) => r.code === 0, 'the NodePort served');
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', '-T', '1', `${nodeIP}:${nodePort}`])).toMatchObject({ code: 0, stdout: 'hello\n' });
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', `${nodeIP}:10250`])).toMatchObject({ code: 1, stderr: 'wget: server returned error: HTTP/1.0 400 Bad Request\ncommand terminated with exit code 1\n' });
    expect(await kubectl(['exec', 'client', '--', 'wget', '-qO-', `${nodeIP}:7777`])).toMatchObject({ code: 1, stderr: `wget: can't connect to remote host (${nodeIP}): Connection refused\ncommand terminated with exit code 1\n` });
  });

  it('the Ingress tutorial\'s hello-app: a Deployment exposed on 8080 answers with its version and pod name and logs each request; it has no shell', async () => {
    expect((await kubectl(['create', 'deployment', 'hello', '--image=gcr.io/google-samples/hello-app:2.0'])).code).toBe(0);
    expect((await kubectl(['expose', 'deployment', 'hello', '--type=NodePort', '--port=8080'])).stdout).toBe('service/hello exposed\n');
    await eventually(async () => (await kubectl(['get', 'deployment', 'hello', '-o', 'jsonpath={.status.readyReplicas}'])).stdout, (r) => r === '1', 'hello ready');
    const pod = (await kubectl(['get', 'pods', '-l', 'app=hello', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await eventually(async () => await kubectl(['exec', 'client', '--', 'wget', '-qO-', '-T', '1', 'hello:8080/v2']), (r) => r.code === 0, 'hello served');
    expect((await kubectl(['exec', 'client', '--', 'wget', '-qO-', 'http://hello.default.svc.cluster.local:8080/'])).stdout).toBe(`Hello, world!\nVersion: 2.0.0\nHostname: ${pod}\n`);
    const logs = (await kubectl(['logs', pod])).stdout;
    expect(logs).toMatch(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d Server listening on port 8080\n/);
    expect(logs).toMatch(/ Serving request: \/v2\n(?:.*\n)*.* Serving request: \/\n$/);
    expect(await kubectl(['exec', pod, '--', 'sh'])).toMatchObject({ code: 1, stderr: expect.stringContaining('exec: "sh": executable file not found in $PATH') });
    expect(await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.status.containerStatuses[0].image}'])).toMatchObject({ stdout: 'gcr.io/google-samples/hello-app:2.0' });
  });
});

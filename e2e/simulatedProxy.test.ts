/** The apiserver proxy to simulated pods, as real kubectl reaches it: `kubectl get --raw` of pods/proxy and services/proxy, and `kubectl proxy` serving them on a local port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

const env = () => ({ ...process.env, HOME: t.home, KUBECONFIG: t.host.kubeconfigPath });
const kubectl = (args: string[], input = ''): Promise<RunResult> => run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input);

const manifests = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: httpd
    image: busybox
    command: [sh, -c, 'mkdir -p /www; echo "<h1>hello from $HOSTNAME</h1>" > /www/index.html; httpd -f -p 8080 -h /www']
    ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`;

describe('kubectl reaching a simulated pod through the apiserver proxy', () => {
  beforeAll(async () => {
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    expect((await kubectl(['apply', '-f', '-'], manifests)).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].addresses[0].ip}'])).stdout, (ip) => ip !== '', 'the endpoints');
  });

  it('kubectl get --raw of pods/proxy and services/proxy prints what the pod server answers', async () => {
    expect(await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/'])).toMatchObject({ code: 0, stdout: '<h1>hello from web</h1>\n' });
    expect(await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/web:http/proxy/'])).toMatchObject({ code: 0, stdout: '<h1>hello from web</h1>\n' });
    const missing = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/web:http/proxy/missing.html']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Error from server (NotFound)');
  });

  it('kubectl proxy serves the service proxy on a local port', async () => {
    let proxy: ChildProcess | undefined;
    try {
      proxy = spawn('kubectl', ['proxy', '--port=0'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        proxy!.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        proxy!.once('exit', (code) => reject(new Error(`kubectl proxy exited ${code}: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/services/web:http/proxy/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html');
      expect(await res.text()).toBe('<h1>hello from web</h1>\n');
    } finally {
      proxy?.kill();
    }
  });
});

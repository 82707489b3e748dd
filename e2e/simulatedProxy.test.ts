/**
 * Reaching a simulated pod's server from outside the cluster, as real kubectl does: `kubectl get --raw`
 * of pods/proxy and services/proxy, `kubectl proxy` serving them on a local port, and `kubectl
 * port-forward` (SPDY over kubectl's WebSocket tunnel) to a pod and to a Service.
 */
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

  /** Starts `kubectl port-forward <target> :<port>` and resolves with the local port it prints. */
  async function portForward(target: string, remote: number, output: string[], extraEnv: Record<string, string> = {}): Promise<{ port: number; process: ChildProcess }> {
    const child = spawn('kubectl', ['port-forward', target, `:${remote}`], { env: { ...env(), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        output.push(d.toString());
        const m = /Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${output.join('')}`)));
    });
    return { port, process: child };
  }

  it('kubectl port-forward to the pod and to its Service: each local connection reaches the server in the pod', async () => {
    const output: string[] = [];
    const forwards: ChildProcess[] = [];
    try {
      const toPod = await portForward('pod/web', 8080, output);
      forwards.push(toPod.process);
      const first = await fetch(`http://127.0.0.1:${toPod.port}/`);
      expect(first.status).toBe(200);
      expect(await first.text()).toBe('<h1>hello from web</h1>\n');
      const missing = await fetch(`http://127.0.0.1:${toPod.port}/missing.html`);
      expect(missing.status).toBe(404);
      // The Service's port 80 is resolved to the pod's targetPort, as kubectl does before forwarding.
      const toService = await portForward('service/web', 80, output);
      forwards.push(toService.process);
      expect(output.join('')).toContain(`Forwarding from 127.0.0.1:${toService.port} -> 8080`);
      expect(await (await fetch(`http://127.0.0.1:${toService.port}/`)).text()).toBe('<h1>hello from web</h1>\n');
      expect(output.join('')).toContain(`Handling connection for ${toPod.port}`);
      // kubectl's older transport: the connection itself upgraded to SPDY/3.1, no WebSocket tunnel.
      const legacy = await portForward('pod/web', 8080, output, { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
      forwards.push(legacy.process);
      expect(await (await fetch(`http://127.0.0.1:${legacy.port}/`)).text()).toBe('<h1>hello from web</h1>\n');
    } finally {
      forwards.forEach((f) => f.kill());
    }
  });

  it('a port nothing in the pod listens on: the runtime refusal on the error stream, and kubectl ends', async () => {
    const output: string[] = [];
    const forward = await portForward('pod/web', 9090, output);
    const exited = new Promise<number | null>((resolve) => forward.process.once('exit', resolve));
    await expect(fetch(`http://127.0.0.1:${forward.port}/`)).rejects.toThrow();
    expect(await exited).toBe(1);
    const printed = output.join('');
    expect(printed).toMatch(/an error occurred forwarding \d+ -> 9090: error forwarding port 9090 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace .*failed to connect to localhost:9090 inside namespace .*connect: connection refused/);
    expect(printed).toContain('error: lost connection to pod');
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

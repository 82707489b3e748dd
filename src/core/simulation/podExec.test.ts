/** `kubectl exec` into simulated pods: what the container sees, through the pods/exec subresource. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { isProcessStream, upgradeSessionOf, type StreamResult } from '../http/upgrade';
import { runStreamSession } from '../testing/streamSession';
import { expandEnv, serviceEnvVars } from './containerView';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

async function cluster(options: Parameters<typeof newTestServer>[0] = {}): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: 1, ...options });
  await eventually(async () => (await t!.json('GET', '/api/v1/nodes/node-1')).status, (s) => s === 200, 'the node');
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  await eventually(async () => (await t!.json('GET', `${ns}/configmaps/kube-root-ca.crt`)).status, (s) => s === 200, 'the root CA ConfigMap');
  return t;
}

async function runningPod(s: TestServer, body: Record<string, unknown>): Promise<any> {
  expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
  const name = (body['metadata'] as { name: string }).name;
  return eventually(async () => (await s.json('GET', `${ns}/pods/${name}`)).body, (p: any) => p?.status?.phase === 'Running', `pod ${name} running`);
}

/** POSTs pods/exec as an upgrade and attaches to the streamed process the server hands the host, collecting what it writes. */
async function streamExec(s: TestServer, pod: string, command: string[], query: Record<string, string>) {
  const q = new URLSearchParams(query);
  for (const c of command) q.append('command', c);
  const request = new Request(`http://127.0.0.1:8080${ns}/pods/${pod}/exec?${q}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
  await s.server.handle(request);
  const session = upgradeSessionOf(request);
  if (!session || !isProcessStream(session)) throw new Error('not a streamed session');
  let out = '';
  const attached = session.attach((_stream, text) => (out += text));
  return { attached, out: () => out };
}

/** POSTs pods/exec as an upgrade, as kubectl does, and runs the session the server hands the host. */
async function exec(s: TestServer, pod: string, command: string[], opts: { container?: string; stdin?: string; upgrade?: boolean } = {}): Promise<StreamResult | Response> {
  const q = new URLSearchParams();
  for (const c of command) q.append('command', c);
  if (opts.container) q.set('container', opts.container);
  if (opts.stdin !== undefined) q.set('stdin', 'true');
  const headers: Record<string, string> = opts.upgrade === false ? {} : { connection: 'Upgrade', upgrade: 'websocket' };
  const request = new Request(`http://127.0.0.1:8080${ns}/pods/${pod}/exec?${q}`, { method: 'POST', headers });
  const response = await s.server.handle(request);
  const session = upgradeSessionOf(request);
  return session ? runStreamSession(session, opts.stdin ?? '') : response;
}

async function ran(s: TestServer, pod: string, command: string[], opts: { container?: string; stdin?: string } = {}): Promise<StreamResult> {
  const r = await exec(s, pod, command, opts);
  if (r instanceof Response) throw new Error(`exec answered ${r.status}: ${await r.text()}`);
  return r;
}

const envOf = (r: StreamResult) => Object.fromEntries(r.stdout.trimEnd().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

describe('exec into a simulated container', () => {
  it('[AC-AUTHN-042] cat of the mounted token file gives a token bound to the pod that authenticates as its service account', async () => {
    const s = await cluster();
    const pod = await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
    const ls = await ran(s, 'web', ['ls', dir]);
    expect(ls.stdout).toBe('ca.crt\nnamespace\ntoken\n');
    expect((await ran(s, 'web', ['cat', `${dir}/namespace`])).stdout).toBe('default');
    const ca = (await s.json('GET', `${ns}/configmaps/kube-root-ca.crt`)).body.data['ca.crt'];
    expect((await ran(s, 'web', ['cat', `${dir}/ca.crt`])).stdout).toBe(ca);
    const cat = await ran(s, 'web', ['cat', `${dir}/token`]);
    expect(cat.status).toEqual({ metadata: {}, status: 'Success' });
    const token = cat.stdout;
    const review = await s.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } });
    expect(review.status).toBe(201);
    expect(review.body.status.userInfo.username).toBe('system:serviceaccount:default:default');
    expect(review.body.status.userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['web']);
    expect(review.body.status.userInfo.extra['authentication.kubernetes.io/pod-uid']).toEqual([pod.metadata.uid]);
    // The projected source's expirationSeconds (3607, the ServiceAccount admission's) is the token's life.
    const claims = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    expect(claims.exp - claims.iat).toBe(3607);
    // The kubelet keeps the token it has: a second read is the same token.
    expect((await ran(s, 'web', ['cat', `${dir}/token`])).stdout).toBe(token);
    // Bound to the pod: gone with it.
    await s.json('DELETE', `${ns}/pods/web?gracePeriodSeconds=0`);
    await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).status, (st) => st === 404, 'the pod gone');
    expect((await s.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('a projected token with an audience carries that audience', async () => {
    const s = await cluster();
    await runningPod(s, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'vault' },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 't', mountPath: '/t' }] }], volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { audience: 'vault', expirationSeconds: 600, path: 'vault-token' } }] } }] },
    });
    const token = (await ran(s, 'vault', ['cat', '/t/vault-token'])).stdout;
    const claims = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    expect(claims.aud).toEqual(['vault']);
    expect(claims.exp - claims.iat).toBe(600);
  });

  it('builds the environment as the kubelet does: service variables, envFrom with its prefix, env with $(VAR) expansion over them, valueFrom', async () => {
    const s = await cluster();
    await s.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { MODE: 'fast', LEVEL: '3' } } });
    await s.json('POST', `${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, data: { password: btoa('s3cret') } } });
    await s.json('POST', `${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'my-db' }, spec: { clusterIP: '10.96.0.50', ports: [{ name: 'sql', port: 5432 }, { name: 'metrics', port: 9187, protocol: 'TCP' }] } } });
    await s.json('POST', `${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } } });
    await runningPod(s, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'envy', labels: { app: 'envy' } },
      spec: {
        containers: [{
          name: 'app', image: 'busybox', command: ['sleep', '3600'], resources: { limits: { cpu: '500m', memory: '128Mi' } },
          envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }, { configMapRef: { name: 'cfg' } }],
          env: [
            { name: 'MODE', value: 'slow' },
            { name: 'URL', value: 'postgres://$(MY_DB_SERVICE_HOST):$(MY_DB_SERVICE_PORT)/$(MODE) $(NOPE) $$(MODE)' },
            { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'sec', key: 'password' } } },
            { name: 'LEVEL_AGAIN', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'LEVEL' } } },
            { name: 'MISSING', valueFrom: { configMapKeyRef: { name: 'nope', key: 'x', optional: true } } },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
            { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
            { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
            { name: 'CPU_M', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
          ],
        }],
      },
    });
    const r = await ran(s, 'envy', ['env']);
    const env = envOf(r);
    const pod = (await s.json('GET', `${ns}/pods/envy`)).body;
    expect(r.stdout.split('\n')[0]).toBe('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    expect(r.stdout.split('\n')[1]).toBe('HOSTNAME=envy');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('HOME=/root');
    expect(env).toMatchObject({
      CFG_MODE: 'fast', CFG_LEVEL: '3', LEVEL: '3', MODE: 'slow',
      URL: 'postgres://10.96.0.50:5432/slow $(NOPE) $(MODE)',
      PASSWORD: 's3cret', LEVEL_AGAIN: '3', POD_NAME: 'envy', POD_IP: pod.status.podIP, APP: 'envy',
      CPU_LIMIT: '1', MEM_MI: '128', CPU_M: '500',
      MY_DB_SERVICE_HOST: '10.96.0.50', MY_DB_SERVICE_PORT: '5432', MY_DB_SERVICE_PORT_SQL: '5432', MY_DB_SERVICE_PORT_METRICS: '9187',
      MY_DB_PORT: 'tcp://10.96.0.50:5432', MY_DB_PORT_9187_TCP_ADDR: '10.96.0.50', MY_DB_PORT_9187_TCP_PROTO: 'tcp',
      KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', KUBERNETES_SERVICE_PORT_HTTPS: '443', KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
    });
    expect(env).not.toHaveProperty('MISSING');
    expect(Object.keys(env).some((k) => k.startsWith('HEADLESS_'))).toBe(false);
    expect((await ran(s, 'envy', ['printenv', 'MODE', 'POD_NAME'])).stdout).toBe('slow\nenvy\n');
    expect((await ran(s, 'envy', ['sh', '-c', 'echo "$MODE at ${MY_DB_SERVICE_HOST}"; hostname'])).stdout).toBe('slow at 10.96.0.50\nenvy\n');
  });

  it('enableServiceLinks: false leaves only the kubernetes Service variables; services made after the start are not there', async () => {
    const s = await cluster();
    await s.json('POST', `${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'before' }, spec: { ports: [{ port: 80 }] } } });
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nolinks' }, spec: { enableServiceLinks: false, containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const env = envOf(await ran(s, 'nolinks', ['env']));
    expect(env['KUBERNETES_SERVICE_HOST']).toBe('10.96.0.1');
    expect(env).not.toHaveProperty('BEFORE_SERVICE_HOST');
  });

  it('mounts configMap, secret (items, subPath), downwardAPI and emptyDir volumes as the kubelet writes them', async () => {
    const s = await cluster();
    await s.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { 'app.conf': 'port=80\n', other: 'x' } } });
    await s.json('POST', `${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, data: { 'tls.key': btoa('KEY'), 'tls.crt': btoa('CRT') } } });
    await runningPod(s, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'files', labels: { b: '2', a: '1' }, annotations: { note: 'say "hi"' } },
      spec: {
        containers: [{
          name: 'app', image: 'busybox', command: ['sleep', '3600'], workingDir: '/work',
          volumeMounts: [
            { name: 'cfg', mountPath: '/etc/config' },
            { name: 'sec', mountPath: '/etc/tls', readOnly: true },
            { name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' },
            { name: 'info', mountPath: '/etc/podinfo' },
            { name: 'scratch', mountPath: '/work' },
          ],
        }],
        volumes: [
          { name: 'cfg', configMap: { name: 'cfg' } },
          { name: 'sec', secret: { secretName: 'sec', items: [{ key: 'tls.key', path: 'private/key.pem' }] } },
          { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
          { name: 'scratch', emptyDir: {} },
        ],
      },
    });
    expect((await ran(s, 'files', ['ls', '/etc/config'])).stdout).toBe('app.conf\nother\n');
    expect((await ran(s, 'files', ['cat', '/etc/config/app.conf'])).stdout).toBe('port=80\n');
    expect((await ran(s, 'files', ['cat', '/etc/app.conf'])).stdout).toBe('port=80\n');
    expect((await ran(s, 'files', ['ls', '/etc/tls'])).stdout).toBe('private\n');
    expect((await ran(s, 'files', ['cat', '/etc/tls/private/key.pem'])).stdout).toBe('KEY');
    expect((await ran(s, 'files', ['cat', '/etc/podinfo/labels'])).stdout).toBe('a="1"\nb="2"');
    expect((await ran(s, 'files', ['cat', '/etc/podinfo/annotations'])).stdout).toContain('note="say \\"hi\\""');
    expect((await ran(s, 'files', ['cat', '/etc/podinfo/name'])).stdout).toBe('files');
    expect((await ran(s, 'files', ['pwd'])).stdout).toBe('/work\n');
    expect((await ran(s, 'files', ['ls'])).stdout).toBe('');
    expect((await ran(s, 'files', ['cat', '/etc/hostname'])).stdout).toBe('files\n');
    expect((await ran(s, 'files', ['cat', '/etc/resolv.conf'])).stdout).toBe('search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n');
    const missing = await ran(s, 'files', ['cat', 'nope', '/etc/hostname']);
    expect(missing.stderr).toBe("cat: can't open 'nope': No such file or directory\n");
    expect(missing.stdout).toBe('files\n');
    expect(missing.status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '1' }] } });
    // Each key is the atomic writer's symlink into ..data (a symlink takes no block: total 0); -L shows the file it leads to.
    const [total, long] = (await ran(s, 'files', ['ls', '-l', '/etc/config'])).stdout.split('\n');
    expect(total).toBe('total 0');
    expect(long).toMatch(/^lrwxrwxrwx +1 root +root +15 \w{3} +\d+ \d\d:\d\d app\.conf -> \.\.data\/app\.conf$/);
    const followed = (await ran(s, 'files', ['ls', '-lL', '/etc/config'])).stdout.split('\n')[1]!;
    expect(followed).toMatch(/^-rw-r--r-- +1 root +root +8 \w{3} +\d+ \d\d:\d\d app\.conf$/);
  });

  it("resolv.conf follows dnsPolicy with the pod's dnsConfig appended as the kubelet does: the docs' dnsPolicy None example, and ClusterFirst with options merged by name", async () => {
    const s = await cluster();
    const dnsConfig = { nameservers: ['192.0.2.1'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
    const pod = (name: string, spec: Record<string, unknown>) => runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...spec } });
    await pod('dns-example', { dnsPolicy: 'None', dnsConfig });
    expect((await ran(s, 'dns-example', ['cat', '/etc/resolv.conf'])).stdout).toBe('search ns1.svc.cluster-domain.example my.dns.search.suffix\nnameserver 192.0.2.1\noptions ndots:2 edns0\n');
    await pod('cluster-first', { dnsConfig: { ...dnsConfig, nameservers: ['192.0.2.1', '192.0.2.2', '192.0.2.3'] } });
    // Three nameservers at most: the cluster's first; the kubelet says what it left out.
    expect((await ran(s, 'cluster-first', ['cat', '/etc/resolv.conf'])).stdout).toBe('search default.svc.cluster.local svc.cluster.local cluster.local ns1.svc.cluster-domain.example my.dns.search.suffix\nnameserver 10.96.0.10\nnameserver 192.0.2.1\nnameserver 192.0.2.2\noptions ndots:2 edns0\n');
    const events = (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dcluster-first`)).body.items as any[];
    expect(events.filter((e) => e.reason === 'DNSConfigForming').map((e) => [e.type, e.message, e.source.component, e.involvedObject.fieldPath])).toEqual([
      ['Warning', 'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 192.0.2.1 192.0.2.2', 'kubelet', undefined],
    ]);
    expect((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Ddns-example`)).body.items.some((e: any) => e.reason === 'DNSConfigForming')).toBe(false);
  });

  it('programs: id from the security context, true/false, sh -c over them, and what the image does not have', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'prog' }, spec: { securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000 }, containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    expect((await ran(s, 'prog', ['id'])).stdout).toBe('uid=1000 gid=3000 groups=2000,3000\n');
    expect((await ran(s, 'prog', ['true'])).status).toEqual({ metadata: {}, status: 'Success' });
    expect((await ran(s, 'prog', ['false'])).status).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '1' }] } });
    expect((await ran(s, 'prog', ['sh', '-c', 'false || echo recovered && exit 3'])).status).toMatchObject({ details: { causes: [{ message: '3' }] } });
    const sh = await ran(s, 'prog', ['sh', '-c', 'python3 -V']);
    expect(sh.stderr).toBe('sh: python3: not found\n');
    expect(sh.status).toMatchObject({ details: { causes: [{ message: '127' }] } });
    const missing = await ran(s, 'prog', ['python3', '-V']);
    expect(missing.status).toMatchObject({ status: 'Failure', reason: 'InternalError', code: 500 });
    expect(String(missing.status['message'])).toMatch(/^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "python3": executable file not found in \$PATH: unknown$/);
    expect(String((await ran(s, 'prog', ['/opt/app'])).status['message'])).toContain('exec: "/opt/app": stat /opt/app: no such file or directory: unknown');
    expect((await ran(s, 'prog', ['cat'], { stdin: 'typed\n' })).stdout).toBe('typed\n');
  });

  it('sh -c runs loops, pipes, redirections into its own files and command substitution; a syntax error is busybox\'s, exit 2', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shell' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'], env: [{ name: 'GREETING', value: 'hello' }] }] } });
    const script = 'for i in 1 2 3; do echo "line $i"; done | grep -c line; echo "$GREETING from $(hostname)" > /tmp/f; cat /tmp/f; case $GREETING in h*) echo matched;; esac';
    expect((await ran(s, 'shell', ['sh', '-c', script])).stdout).toBe('3\nhello from shell\nmatched\n');
    // Each exec is a process of the same container: the file the last one wrote is still there.
    expect((await ran(s, 'shell', ['cat', '/tmp/f'])).stdout).toBe('hello from shell\n');
    const bad = await ran(s, 'shell', ['sh', '-c', 'for i in 1 2; do done']);
    expect(bad.stderr).toBe('sh: syntax error: unexpected "done"\n');
    expect(bad.status).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
    expect((await ran(s, 'shell', ['wc', '-l'], { stdin: 'a\nb\n' })).stdout).toBe('2\n');
    expect((await ran(s, 'shell', ['sh', '-c', 'while read l; do echo "<$l>"; done'], { stdin: 'a\nb\n' })).stdout).toBe('<a>\n<b>\n');
  });

  it("an exec'd sleep takes the server clock's time, and date reads that clock", async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sleeper' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const before = s.clock.now().getTime();
    // The process's sleep is the clock's 2000 ms sleeper (the controllers sleep on it too).
    let sleeping = false;
    const sleep = s.clock.sleep.bind(s.clock);
    s.clock.sleep = (ms, signal) => ((sleeping ||= ms === 2_000), sleep(ms, signal));
    let done = false;
    const pending = ran(s, 'sleeper', ['sh', '-c', 'date +%s; sleep 2; date +%s']).then((r) => ((done = true), r));
    await eventually(async () => sleeping, (v) => v, 'the exec sleeping');
    expect(done).toBe(false);
    s.clock.advance(2_000);
    const r = await pending;
    expect(r.stdout).toBe(`${Math.floor(before / 1000)}\n${Math.floor(before / 1000) + 2}\n`);
    expect(r.status).toEqual({ metadata: {}, status: 'Success' });
  });

  it('streams a command as it runs: output as the clock reaches it, and an interactive shell on a terminal with its prompts', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'live' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const attach = (command: string[], query: Record<string, string>) => streamExec(s, 'live', command, query);
    const ticking = await attach(['sh', '-c', 'echo first; sleep 5; echo second'], { stdout: 'true' });
    await eventually(async () => ticking.out(), (o) => o === 'first\n', 'the first line before the sleep ends');
    s.clock.advance(5_000);
    expect(await ticking.attached.done).toEqual({ metadata: {}, status: 'Success' });
    expect(ticking.out()).toBe('first\nsecond\n');

    const shell = await attach(['sh'], { stdin: 'true', stdout: 'true', tty: 'true' });
    await eventually(async () => shell.out(), (o) => o === '/ # ', 'the prompt');
    shell.attached.input('for i in 1 2; do\r');
    await eventually(async () => shell.out(), (o) => o.endsWith('> '), 'the continuation prompt');
    shell.attached.input('echo n$i; done\r');
    await eventually(async () => shell.out(), (o) => o.endsWith('n2\r\n/ # '), 'the loop run');
    shell.attached.input('exit 3\r');
    expect(await shell.attached.done).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ message: '3' }] } });
    expect(shell.out()).toBe('/ # for i in 1 2; do\r\n> echo n$i; done\r\nn1\r\nn2\r\n/ # exit 3\r\n');
  });

  it("a server an exec runs listens while its process runs: nc -l until its one client, httpd -f until ^C kills it, and on when the client leaves; a daemon until the container ends", async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'srv' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const open = (command: string[], query: Record<string, string>) => streamExec(s, 'srv', command, query);
    const fetch = async (port: number) => (await ran(s, 'srv', ['sh', '-c', `wget -qO- 127.0.0.1:${port}/etc/hostname 2>&1`])).stdout;
    const refused = "wget: can't connect to remote host (127.0.0.1): Connection refused\n";

    // nc -l: one client, then it prints what that client sent and its exec ends.
    const nc = await open(['nc', '-l', '-p', '7000'], { stdin: 'true', stdout: 'true' });
    nc.attached.input('pong\n');
    nc.attached.closeInput();
    await eventually(async () => (await ran(s, 'srv', ['sh', '-c', 'echo ping | nc 127.0.0.1 7000'])).stdout, (o) => o === 'pong\n', 'nc answering');
    expect((await ran(s, 'srv', ['sh', '-c', 'nc -z 127.0.0.1 7000; echo $?'])).stdout).toBe('1\n');
    s.clock.advance(2_000);
    expect(await nc.attached.done).toEqual({ metadata: {}, status: 'Success' });
    expect(nc.out()).toBe('ping\n');

    // httpd -f on a terminal: ^C kills it (kubectl: command terminated with exit code 130), and its socket closes.
    const fg = await open(['httpd', '-f', '-p', '8080', '-h', '/'], { stdin: 'true', stdout: 'true', tty: 'true' });
    await eventually(() => fetch(8080), (o) => o === 'srv\n', 'httpd -f serving');
    fg.attached.input('\x03');
    expect(await fg.attached.done).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ message: '130' }] } });
    expect(fg.out()).toBe('^C');
    expect(await fetch(8080)).toBe(refused);

    // nc's handler says so before it dies of the signal.
    const ncTty = await open(['nc', '-l', '-p', '7001'], { stdin: 'true', stdout: 'true', tty: 'true' });
    ncTty.attached.input('\x04');
    await eventually(async () => (await ran(s, 'srv', ['sh', '-c', 'nc -zv 127.0.0.1 7001 2>&1; echo $?'])).stdout, (o) => o === '127.0.0.1 (127.0.0.1:7001) open\n0\n', 'nc -l listening');
    ncTty.attached.input('\x03');
    expect(await ncTty.attached.done).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ message: '130' }] } });
    expect(ncTty.out()).toBe('^Cpunt!\r\n');

    // The client leaving does not end the process (the runtime keeps it): it still serves.
    const left = await open(['httpd', '-f', '-p', '8081', '-h', '/'], { stdout: 'true' });
    await eventually(() => fetch(8081), (o) => o === 'srv\n', 'httpd -f serving');
    left.attached.detach();
    await left.attached.done;
    expect(await fetch(8081)).toBe('srv\n');

    // Without -f httpd forks a daemon and its exec ends at once; the daemon serves on.
    expect(await ran(s, 'srv', ['httpd', '-p', '8082', '-h', '/'])).toMatchObject({ stdout: '', status: { status: 'Success' } });
    expect(await fetch(8082)).toBe('srv\n');
  });

  it('python with -it: its REPL, ^C a KeyboardInterrupt, ^D the end', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'py' }, spec: { containers: [{ name: 'app', image: 'python:3.13', command: ['sleep', '3600'] }] } });
    const q = new URLSearchParams({ stdin: 'true', stdout: 'true', tty: 'true', command: 'python3' });
    const request = new Request(`http://127.0.0.1:8080${ns}/pods/py/exec?${q}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    await s.server.handle(request);
    const session = upgradeSessionOf(request);
    if (!session || !isProcessStream(session)) throw new Error('not a streamed session');
    let out = '';
    const attached = session.attach((_stream, text) => (out += text));
    await eventually(async () => out, (o) => o.endsWith('>>> '), 'the prompt');
    attached.input('6 * 7\r');
    await eventually(async () => out, (o) => o.endsWith('42\r\n>>> '), 'the answer');
    attached.input('pri\x03');
    await eventually(async () => out, (o) => o.endsWith('KeyboardInterrupt\r\n>>> '), 'the interrupt');
    attached.input('\x04');
    expect(await attached.done).toEqual({ metadata: {}, status: 'Success' });
    expect(out).toBe('Python 3.13.1 (main, Dec  4 2024, 20:40:27) [GCC 12.2.0] on linux\r\nType "help", "copyright", "credits" or "license" for more information.\r\n>>> 6 * 7\r\n42\r\n>>> pri^C\r\nKeyboardInterrupt\r\n>>> \r\n');
  });

  it('refuses as kube-apiserver and the kubelet do: a plain request, an unknown container, a container not running, a stopped kubelet', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two' }, spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } });
    const plain = await exec(s, 'two', ['ls'], { upgrade: false });
    expect(plain).toBeInstanceOf(Response);
    expect((plain as Response).status).toBe(400);
    expect(((await (plain as Response).json()) as { message: string }).message).toBe('Upgrade request required');
    const wrong = (await exec(s, 'two', ['ls'], { container: 'nope' })) as Response;
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toBe('container nope is not valid for pod two');
    const done = (await exec(s, 'two', ['ls'], { container: 'init' })) as Response;
    expect(done.status).toBe(500);
    expect(await done.text()).toBe('container not found ("init")');
    await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': 'stopped' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const stopped = (await exec(s, 'two', ['ls'])) as Response;
    expect(stopped.status).toBe(500);
    expect(((await stopped.json()) as { message: string }).message).toBe('error dialing backend: dial tcp: lookup node-1: no such host');
  });
});

describe('environment rules', () => {
  it('expands $(VAR), keeps unknown references and unescapes $$', () => {
    const vars: Record<string, string> = { A: 'x' };
    expect(expandEnv('$(A)-$(B)-$$(A)-$A-$', (n) => vars[n])).toBe('x-$(B)-$(A)-$A-$');
  });

  it('gives a service the docker link variables of each port, the first also as _PORT', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dns-svc' }, spec: { clusterIP: '10.0.0.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }] } };
    expect(serviceEnvVars([svc])).toEqual([
      ['DNS_SVC_SERVICE_HOST', '10.0.0.10'],
      ['DNS_SVC_SERVICE_PORT', '53'],
      ['DNS_SVC_SERVICE_PORT_DNS', '53'],
      ['DNS_SVC_SERVICE_PORT_DNS_TCP', '53'],
      ['DNS_SVC_PORT', 'udp://10.0.0.10:53'],
      ['DNS_SVC_PORT_53_UDP', 'udp://10.0.0.10:53'],
      ['DNS_SVC_PORT_53_UDP_PROTO', 'udp'],
      ['DNS_SVC_PORT_53_UDP_PORT', '53'],
      ['DNS_SVC_PORT_53_UDP_ADDR', '10.0.0.10'],
      ['DNS_SVC_PORT_53_TCP', 'tcp://10.0.0.10:53'],
      ['DNS_SVC_PORT_53_TCP_PROTO', 'tcp'],
      ['DNS_SVC_PORT_53_TCP_PORT', '53'],
      ['DNS_SVC_PORT_53_TCP_ADDR', '10.0.0.10'],
    ]);
  });
});

describe('ps and kill inside a container', () => {
  it('ps lists the container\'s own process and the execs; kill 1 reaches pid 1 only when it handles SIGTERM, and SIGKILL never from inside', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] } });
    const sleeper = await streamExec(s, 'box', ['sleep', '1000'], { stdout: 'true' });
    const listed = await ran(s, 'box', ['ps']);
    expect(listed.stdout).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n    7 root      0:00 sleep 1000\n    8 root      0:00 ps\n');
    // The one command of `sh -c` is exec'd in place of the shell; with more, ps is the shell's child.
    expect((await ran(s, 'box', ['sh', '-c', 'ps aux'])).stdout.split('\n').slice(-3)).toEqual(['    7 root      0:00 sleep 1000', '    9 root      0:00 ps aux', '']);
    expect((await ran(s, 'box', ['sh', '-c', 'true; ps aux'])).stdout.split('\n').slice(-3)).toEqual(['   10 root      0:00 sh -c true; ps aux', '   11 root      0:00 ps aux', '']);
    // The exec'd sleep dies of the default action: 143, as kubectl shows it.
    expect(await ran(s, 'box', ['kill', '7'])).toMatchObject({ stdout: '', stderr: '' });
    expect(await sleeper.attached.done).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '143' }] } });
    // sleep as pid 1 has no handler: SIGTERM and SIGKILL from inside the container are dropped.
    expect(await ran(s, 'box', ['sh', '-c', 'kill 1; kill -9 1; kill -KILL 1; echo $?'])).toMatchObject({ stdout: '0\n', stderr: '' });
    expect(await ran(s, 'box', ['kill', '99'])).toMatchObject({ stderr: "kill: can't kill pid 99: No such process\n" });
    expect(await ran(s, 'box', ['kill', '-FOO', '1'])).toMatchObject({ stderr: "kill: bad signal name 'FOO'\n" });
    const pod = (await s.json('GET', `${ns}/pods/box`)).body;
    expect(pod.status.containerStatuses[0]).toMatchObject({ restartCount: 0, state: { running: {} } });
  });

  it('kill 1 in an nginx container: nginx shuts down on SIGTERM (exit 0) and the kubelet restarts it', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } });
    // The nginx image has no kill program: the shell's builtin sends the signal.
    expect(await ran(s, 'web', ['sh', '-c', 'kill 1'])).toMatchObject({ stdout: '', stderr: '' });
    const restarted = await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).body, (p: any) => p?.status?.containerStatuses?.[0]?.restartCount === 1, 'the restart');
    expect(restarted.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });

  it('kill 1 in a shell that traps SIGTERM runs its handler: `sleep 3600 & wait` returns at once, the handler\'s exit code ends the container', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trapper' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', "trap 'echo stopping; exit 3' TERM; echo up; sleep 3600 & wait"] }] } });
    expect(await ran(s, 'trapper', ['kill', '1'])).toMatchObject({ stdout: '', stderr: '' });
    const restarted = await eventually(async () => (await s.json('GET', `${ns}/pods/trapper`)).body, (p: any) => p?.status?.containerStatuses?.[0]?.restartCount === 1, 'the restart');
    expect(restarted.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(await (await s.request('GET', `${ns}/pods/trapper/log?previous=true`)).text()).toBe('up\nstopping\n');
  });
});

describe('/proc, mount and df inside a container', () => {
  it('/proc has a directory per process (cmdline, comm, status, environ, mounts, maps) and self; /proc/mounts lists the volumes as the kubelet mounts them', async () => {
    const s = await cluster();
    await runningPod(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: {
        volumes: [{ name: 'html', emptyDir: {} }, { name: 'cache', emptyDir: { medium: 'Memory' } }, { name: 'conf', configMap: { name: 'missing', optional: true } }],
        containers: [{ name: 'app', image: 'nginx:1.27', volumeMounts: [{ name: 'html', mountPath: '/usr/share/nginx/html' }, { name: 'cache', mountPath: '/var/cache/app' }, { name: 'conf', mountPath: '/etc/app' }] }],
      },
    });
    const mounts = (await ran(s, 'web', ['cat', '/proc/mounts'])).stdout.split('\n');
    expect(mounts.slice(0, 2)).toEqual([expect.stringMatching(/^overlay \/ overlay rw,relatime,lowerdir=\S+ 0 0$/), 'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0']);
    // The kubelet's mounts by depth (its order kept within one): a configMap's read-only, a Memory emptyDir on tmpfs.
    expect(mounts.slice(7, 16)).toEqual([
      '/dev/vda1 /etc/app ext4 ro,relatime 0 0',
      '/dev/vda1 /etc/hosts ext4 rw,relatime 0 0',
      '/dev/vda1 /dev/termination-log ext4 rw,relatime 0 0',
      '/dev/vda1 /etc/hostname ext4 rw,relatime 0 0',
      '/dev/vda1 /etc/resolv.conf ext4 rw,relatime 0 0',
      'shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0',
      'tmpfs /var/cache/app tmpfs rw,relatime,size=16777216k 0 0',
      '/dev/vda1 /usr/share/nginx/html ext4 rw,relatime 0 0',
      'tmpfs /var/run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime,size=16777216k 0 0',
    ]);
    expect((await ran(s, 'web', ['cat', '/proc/1/mounts'])).stdout).toBe(mounts.join('\n'));
    // pid 1 is nginx's master after the entrypoint's exec; its workers (29, 30) run as nginx; the reader is the next pid.
    expect((await ran(s, 'web', ['ls', '/proc'])).stdout).toBe('1\n29\n30\n33\ncpuinfo\nmeminfo\nmounts\nself\nversion\n');
    expect((await ran(s, 'web', ['sh', '-c', 'tr "\\0" " " < /proc/1/cmdline; echo; cat /proc/1/comm /proc/29/comm'])).stdout).toBe('nginx: master process nginx -g daemon off; \nnginx\nnginx\n');
    expect((await ran(s, 'web', ['readlink', '/proc/self'])).stdout).toBe('35\n');
    const worker = (await ran(s, 'web', ['cat', '/proc/29/status'])).stdout;
    expect(worker).toContain('Name:\tnginx\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t29\nNgid:\t0\nPid:\t29\nPPid:\t1\nTracerPid:\t0\nUid:\t101\t101\t101\t101\nGid:\t101\t101\t101\t101\n');
    expect(worker).toContain('CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t00000000a80425fb\n');
    expect((await ran(s, 'web', ['sh', '-c', 'tr "\\0" "\\n" < /proc/1/environ | grep NGINX_VERSION'])).stdout).toBe('NGINX_VERSION=1.27.3\n');
    const maps = (await ran(s, 'web', ['cat', '/proc/1/maps'])).stdout.split('\n');
    expect(maps[0]).toMatch(/^[0-9a-f]{12}-[0-9a-f]{12} r--p 00000000 00:2d \d+ {20,}\/usr\/sbin\/nginx$/);
    expect(maps[0]!.indexOf('/usr/sbin/nginx')).toBe(73);
    expect(maps.some((l) => l.endsWith(' /usr/lib/x86_64-linux-gnu/libc.so.6'))).toBe(true);
    expect(maps.at(-2)).toBe('ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]');
    // Nothing in /proc can be written; the kernel's files are the node's.
    expect((await ran(s, 'web', ['sh', '-c', 'echo x > /proc/version; echo $?'])).stdout).toBe('2\n');
    expect((await ran(s, 'web', ['sh', '-c', 'grep -c ^processor /proc/cpuinfo; head -1 /proc/meminfo'])).stdout).toBe('4\nMemTotal:       16777216 kB\n');
  });

  it('/proc/1/status shows the capabilities, no_new_privs and seccomp mode the securityContext asks for', async () => {
    const s = await cluster();
    const pod = (name: string, securityContext: object, podSecurity: object = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { securityContext: podSecurity, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], securityContext }] } });
    const caps = async (name: string) => (await ran(s, name, ['sh', '-c', 'cd /proc/1; grep -E "^(Uid|CapPrm|CapEff|CapBnd|NoNewPrivs|Seccomp):" status'])).stdout;
    await runningPod(s, pod('plain', {}));
    expect(await caps('plain')).toBe('Uid:\t0\t0\t0\t0\nCapPrm:\t00000000a80425fb\nCapEff:\t00000000a80425fb\nCapBnd:\t00000000a80425fb\nNoNewPrivs:\t0\nSeccomp:\t0\n');
    // The docs' security-context-demo-4: NET_ADMIN and SYS_TIME added.
    await runningPod(s, pod('added', { capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } }));
    expect(await caps('added')).toContain('CapEff:\t00000000aa0435fb\n');
    await runningPod(s, pod('restricted', { capabilities: { drop: ['ALL'], add: ['CAP_NET_BIND_SERVICE'] }, allowPrivilegeEscalation: false, runAsUser: 1000 }, { seccompProfile: { type: 'RuntimeDefault' } }));
    expect(await caps('restricted')).toBe('Uid:\t1000\t1000\t1000\t1000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000400\nNoNewPrivs:\t1\nSeccomp:\t2\n');
    await runningPod(s, pod('privileged', { privileged: true }));
    expect(await caps('privileged')).toContain('CapEff:\t000001ffffffffff\n');
    expect((await ran(s, 'privileged', ['sh', '-c', 'grep -c /proc/kcore /proc/mounts; grep " /sys " /proc/mounts'])).stdout).toBe('0\nsysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n');
  });

  it('mount lists the table and cannot mount; df shows the filesystems with blocks, coreutils once per device', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] } });
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'deb' }, spec: { containers: [{ name: 'app', image: 'debian:bookworm', command: ['sleep', '3600'] }] } });
    expect((await ran(s, 'box', ['sh', '-c', 'mount | head -2'])).stdout).toBe('overlay on / type overlay (rw,relatime,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/2/fs:/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/1/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/3/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/3/work)\nproc on /proc type proc (rw,nosuid,nodev,noexec,relatime)\n');
    expect((await ran(s, 'box', ['mount', '-t', 'cgroup2'])).stdout).toBe('cgroup on /sys/fs/cgroup type cgroup2 (ro,nosuid,nodev,noexec,relatime)\n');
    expect(await ran(s, 'box', ['sh', '-c', 'mount -t tmpfs none /mnt; echo $?'])).toMatchObject({ stdout: '255\n', stderr: 'mount: permission denied (are you root?)\n' });
    expect(await ran(s, 'deb', ['sh', '-c', 'mount -t tmpfs none /mnt; echo $?'])).toMatchObject({ stdout: '32\n', stderr: 'mount: /mnt: permission denied.\n       dmesg(1) may have more information after failed mount system call.\n' });
    const busybox = (await ran(s, 'box', ['df'])).stdout.split('\n');
    expect(busybox.slice(0, 4)).toEqual(['Filesystem           1K-blocks      Used Available Use% Mounted on', 'overlay              104857600  15728640  83886080  16% /', 'tmpfs                    65536         0     65536   0% /dev', '/dev/vda1            104857600  15728640  83886080  16% /etc/hosts']);
    expect(busybox.filter((l) => l.startsWith('/dev/vda1'))).toHaveLength(4);
    expect((await ran(s, 'deb', ['df'])).stdout).toBe(
      [
        'Filesystem     1K-blocks     Used Available Use% Mounted on',
        'overlay        104857600 15728640  83886080  16% /',
        'tmpfs              65536        0     65536   0% /dev',
        '/dev/vda1      104857600 15728640  83886080  16% /etc/hosts',
        'shm                65536        0     65536   0% /dev/shm',
        'tmpfs           16777216       12  16777204   1% /var/run/secrets/kubernetes.io/serviceaccount',
        'tmpfs            8388608        0   8388608   0% /proc/acpi',
        'tmpfs            8388608        0   8388608   0% /proc/scsi',
        'tmpfs            8388608        0   8388608   0% /sys/firmware',
        '',
      ].join('\n'),
    );
    expect((await ran(s, 'deb', ['df', '-h', '/tmp'])).stdout).toBe('Filesystem      Size  Used Avail Use% Mounted on\noverlay         100G   15G   80G  16% /\n');
    expect((await ran(s, 'box', ['df', '-h', '/dev/shm'])).stdout).toBe('Filesystem                Size      Used Available Use% Mounted on\nshm                      64.0M         0     64.0M   0% /dev/shm\n');
  });
});

describe("a server's workers", () => {
  it("nginx's master replaces a worker that is killed with one of the next pid, and logs both as ngx_reap_children does", async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });
    expect(await ran(s, 'web', ['sh', '-c', 'kill 29; kill -9 30; echo $?'])).toMatchObject({ stdout: '0\n', stderr: '' });
    expect((await ran(s, 'web', ['ls', '/proc'])).stdout.split('\n').slice(0, 4)).toEqual(['1', '32', '33', '34']);
    expect((await ran(s, 'web', ['cat', '/proc/32/cmdline'])).stdout).toBe('nginx: worker process\0');
    const log = (await (await s.request('GET', '/api/v1/namespaces/default/pods/web/log')).text()).split('\n').map((l) => l.replace(/^\S+ \S+ /, ''));
    expect(log.slice(-9)).toEqual([
      '[notice] 1#1: signal 17 (SIGCHLD) received from 29',
      '[notice] 1#1: worker process 29 exited with code 0',
      '[notice] 1#1: start worker process 32',
      '[notice] 1#1: signal 29 (SIGIO) received',
      '[notice] 1#1: signal 17 (SIGCHLD) received from 30',
      '[alert] 1#1: worker process 30 exited on signal 9',
      '[notice] 1#1: start worker process 33',
      '[notice] 1#1: signal 29 (SIGIO) received',
      '',
    ]);
    // /proc read again after a kill at the same instant shows the table as it is then.
    const again = (await ran(s, 'web', ['sh', '-c', 'ls /proc | head -4; kill 32; ls /proc | head -4'])).stdout;
    expect(again).toBe('1\n32\n33\n36\n1\n33\n36\n37\n');
  });
});

describe('an image kubesim does not know', () => {
  it('its process, which kubesim cannot run, shows in ps and /proc as the command the container gives', async () => {
    const s = await cluster();
    await runningPod(s, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app' }, spec: { containers: [{ name: 'app', image: 'example.com/team/app:1', command: ['/app/server'], args: ['--port=80'] }] } });
    expect((await ran(s, 'app', ['ps'])).stdout).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 /app/server --port=80\n    7 root      0:00 ps\n');
    expect((await ran(s, 'app', ['cat', '/proc/1/cmdline'])).stdout).toBe('/app/server\0--port=80\0');
  });
});

describe('a shared PID namespace', () => {
  it('shareProcessNamespace: the sandbox\'s pause is pid 1 and every container sees the others\' processes; one killed from another container ends and restarts', async () => {
    const s = await cluster();
    await runningPod(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'shared' },
      spec: { shareProcessNamespace: true, containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'shell', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
    });
    const table = (await ran(s, 'shared', ['ps', 'ax'], { container: 'shell' })).stdout;
    // The containers start in turn (pids 7 and 8), nginx's workers as its log names them; their user is
    // uid 101, which busybox's /etc/passwd has no name for (the Share Process Namespace page's `101`).
    expect(table).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 root      0:00 nginx: master process nginx -g daemon off;\n    8 root      0:00 sleep 3600\n   29 101       0:00 nginx: worker process\n   30 101       0:00 nginx: worker process\n   31 root      0:00 ps ax\n');
    // The nginx container sees the same table, and the pid it runs as next.
    expect((await ran(s, 'shared', ['ls', '/proc'], { container: 'nginx' })).stdout.split('\n').slice(0, 6)).toEqual(['1', '29', '30', '32', '7', '8']);
    expect((await ran(s, 'shared', ['cat', '/proc/8/cmdline'], { container: 'nginx' })).stdout).toBe('sleep\x003600\0');
    // The page's `kill -HUP` to nginx's master from the shell container: it reloads, new workers in place of the old.
    expect((await ran(s, 'shared', ['sh', '-c', 'kill -HUP 7; ps ax'], { container: 'shell' })).stdout).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 root      0:00 nginx: master process nginx -g daemon off;\n    8 root      0:00 sleep 3600\n   34 root      0:00 sh -c kill -HUP 7; ps ax\n   35 101       0:00 nginx: worker process\n   36 101       0:00 nginx: worker process\n   37 root      0:00 ps ax\n');
    // nginx names its master by its pid, 7 here.
    const log = (await (await s.request('GET', '/api/v1/namespaces/default/pods/shared/log?container=nginx')).text()).split('\n').map((l) => l.replace(/^\S+ \S+ /, ''));
    expect(log).toContain('[notice] 7#7: start worker processes');
    expect(log).toEqual(expect.arrayContaining(['[notice] 7#7: signal 1 (SIGHUP) received from 34, reconfiguring', '[notice] 7#7: start worker process 35', '[notice] 29#29: gracefully shutting down', '[notice] 7#7: worker process 30 exited with code 0']));
    // The page's look at nginx's configuration through its master's root.
    expect((await ran(s, 'shared', ['head', '-2', '/proc/7/root/etc/nginx/nginx.conf'], { container: 'shell' })).stdout).toBe('\nuser  nginx;\n');
    expect(await ran(s, 'shared', ['sh', '-c', 'cat /proc/35/root/etc/os-release | head -1; cat /proc/1/root/etc/nginx/nginx.conf; ls /proc/8'], { container: 'shell' })).toMatchObject({ stdout: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\ncgroup\ncmdline\ncomm\nenviron\nmaps\nmounts\nroot\nstatus\n', stderr: "cat: can't open '/proc/1/root/etc/nginx/nginx.conf': No such file or directory\n" });
    // Not the namespace's init, the sleep dies of the default action; pause ignores what it is sent.
    expect(await ran(s, 'shared', ['sh', '-c', 'kill 1; kill 8; echo $?'], { container: 'nginx' })).toMatchObject({ stdout: '0\n', stderr: '' });
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/pods/shared')).body, (p) => p.status.containerStatuses.find((c: { name: string }) => c.name === 'shell').restartCount === 1, 'the shell container restarted');
    expect((await s.json('GET', '/api/v1/namespaces/default/pods/shared')).body.status.containerStatuses.find((c: { name: string }) => c.name === 'shell').lastState.terminated.exitCode).toBe(143);
  });

  it("ps in a shared namespace shows each container's processes as their own user, whichever container looks", async () => {
    const s = await cluster();
    await runningPod(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'users' },
      spec: { shareProcessNamespace: true, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], securityContext: { runAsUser: 1000 } }, { name: 'shell', image: 'busybox:1.36', command: ['sleep', '3601'] }] },
    });
    expect((await ran(s, 'users', ['ps'], { container: 'shell' })).stdout).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 1000      0:00 sleep 3600\n    8 root      0:00 sleep 3601\n    9 root      0:00 ps\n');
    expect((await ran(s, 'users', ['ps'], { container: 'app' })).stdout).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 1000      0:00 sleep 3600\n    8 root      0:00 sleep 3601\n   10 1000      0:00 ps\n');
    // /proc says the same.
    expect((await ran(s, 'users', ['sh', '-c', 'grep ^Uid /proc/7/status /proc/8/status'], { container: 'shell' })).stdout).toBe('/proc/7/status:Uid:\t1000\t1000\t1000\t1000\n/proc/8/status:Uid:\t0\t0\t0\t0\n');
  });
});

/** Real kubectl 1.32 exec into the pods of a Node host started with --simulated-nodes=1 --tls: what the container sees, over WebSockets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, withoutClientLogs, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

/** kubectl under a timeout, so a stream that never ends fails the test instead of hanging it. */
const kubectl = async (args: string[], input = '', env: NodeJS.ProcessEnv = {}): Promise<RunResult> =>
  withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath, ...env }, input));

const dir = '/var/run/secrets/kubernetes.io/serviceaccount';

const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, annotations: {kubectl.kubernetes.io/default-container: app}}
spec:
  initContainers: [{name: init, image: busybox}]
  containers:
  - name: app
    image: busybox
    command: [sleep, "3600"]
    envFrom: [{configMapRef: {name: settings}}]
    volumeMounts: [{name: config, mountPath: /etc/config}]
  volumes: [{name: config, configMap: {name: settings}}]
`;

describe('kubectl exec into a simulated pod', () => {
  beforeAll(async () => {
    expect((await kubectl(['create', 'configmap', 'settings', '--from-literal=GREETING=hello', '--from-literal=app.conf=port=80'])).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    expect((await kubectl(['create', '-f', '-'], pod)).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', 'the pod running');
  });

  it('prints the mounted service account namespace, the environment and a configMap file', async () => {
    expect(await kubectl(['exec', 'web', '--', 'cat', `${dir}/namespace`])).toMatchObject({ code: 0, stdout: 'default' });
    const env = await kubectl(['exec', 'web', '--', 'env']);
    expect(env.code).toBe(0);
    expect(env.stdout).toMatch(/^PATH=\/usr\/local\/sbin:\/usr\/local\/bin:\/usr\/sbin:\/usr\/bin:\/sbin:\/bin\nHOSTNAME=web\n/);
    expect(env.stdout).toContain('\nGREETING=hello\n');
    expect(env.stdout).toContain('\nKUBERNETES_SERVICE_HOST=10.96.0.1\n');
    expect(env.stdout).toContain('\nKUBERNETES_SERVICE_PORT=443\n');
    expect(await kubectl(['exec', 'web', '--', 'cat', '/etc/config/app.conf'])).toMatchObject({ code: 0, stdout: 'port=80' });
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo $GREETING from $(hostname)'])).toMatchObject({ code: 0, stdout: 'hello from web\n' });
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo "$GREETING" from $HOSTNAME'])).toMatchObject({ code: 0, stdout: 'hello from web\n' });
    // Standard input, closed by kubectl when its own input ends (v5.channel.k8s.io).
    expect(await kubectl(['exec', '-i', 'web', '--', 'cat'], 'typed\n')).toMatchObject({ code: 0, stdout: 'typed\n' });
    expect(await kubectl(['exec', '-i', 'web', '--', 'sh'], 'cd /etc/config\nls\nexit 3\n')).toMatchObject({ code: 3, stdout: 'GREETING\napp.conf\n' });
  });

  it('a shell script: loops, pipes, files of its own, sleep, and a construct over several input lines', async () => {
    const script = 'for i in 1 2 3; do echo "n$i"; done | tail -n 2; echo "$GREETING" > /tmp/g; sleep 1; cat /tmp/g; [ -f /etc/config/app.conf ] && echo config';
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', script])).toMatchObject({ code: 0, stdout: 'n2\nn3\nhello\nconfig\n' });
    expect(await kubectl(['exec', '-i', 'web', '--', 'sh'], 'for f in a b\ndo\n  echo "[$f]"\ndone\nexit 5\n')).toMatchObject({ code: 5, stdout: '[a]\n[b]\n' });
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', 'if true; then echo'])).toMatchObject({ code: 2, stderr: 'sh: syntax error: unexpected end of file (expecting "fi")\ncommand terminated with exit code 2\n' });
  });

  it('exit codes and failures as kubectl shows them from a cluster', async () => {
    expect(await kubectl(['exec', 'web', '--', 'false'])).toMatchObject({ code: 1, stderr: 'command terminated with exit code 1\n' });
    const missing = await kubectl(['exec', 'web', '--', 'cat', '/nope']);
    expect(missing).toMatchObject({ code: 1, stderr: "cat: can't open '/nope': No such file or directory\ncommand terminated with exit code 1\n" });
    const unknown = await kubectl(['exec', 'web', '--', 'python3', '-V']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "python3": executable file not found in \$PATH: unknown\n$/);
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', 'python3 -V'])).toMatchObject({ code: 127, stderr: 'sh: python3: not found\ncommand terminated with exit code 127\n' });
    expect(await kubectl(['exec', 'web', '-c', 'nope', '--', 'ls'])).toMatchObject({ code: 1, stderr: 'Error from server (BadRequest): container nope is not valid for pod web\n' });
    // The init container has completed: the kubelet finds no running container of that name.
    expect(await kubectl(['exec', 'web', '-c', 'init', '--', 'ls'])).toMatchObject({ code: 1, stderr: 'error: unable to upgrade connection: container not found ("init")\n' });
  });

  it('[AC-AUTHN-042] the mounted token authenticates as the pod\'s service account', async () => {
    const token = await kubectl(['exec', 'web', '--', 'cat', `${dir}/token`]);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const whoami = await kubectl(['--token', token.stdout, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.extra.authentication\\.kubernetes\\.io/pod-name}']);
    expect(whoami).toMatchObject({ code: 0, stdout: 'system:serviceaccount:default:default ["web"]' });
  });

  it('SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) is refused with a message; a plain request is kube\'s 400', async () => {
    const spdy = await kubectl(['exec', 'web', '--', 'true'], '', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    expect(spdy.code).toBe(1);
    expect(spdy.stderr).toContain('the simulated kubelet streams exec and attach over WebSockets only');
    const plain = await kubectl(['create', '--raw', '/api/v1/namespaces/default/pods/web/exec?command=ls', '-f', '-'], '{}');
    expect(plain.stderr).toContain('Upgrade request required');
  });

  it('kubectl cp out of and into the container, through the image\'s tar', async () => {
    const local = mkdtempSync(join(tmpdir(), 'kubesim-cp-'));
    // Out: `tar cf - /etc/hostname` in the container, unpacked by kubectl; busybox's notice comes through (kubectl cp writes the remote stderr to its stdout).
    expect(await kubectl(['cp', 'web:/etc/hostname', join(local, 'hostname')])).toMatchObject({ code: 0, stdout: "tar: removing leading '/' from member names\n", stderr: '' });
    expect(readFileSync(join(local, 'hostname'), 'utf8')).toBe('web\n');
    // A missing source: tar fails in the container, yet kubectl exits 0 having copied nothing, as against a cluster
    // (kubectl does not wait for the remote command's status; what tar said may or may not get printed first).
    expect((await kubectl(['cp', 'web:/nope', join(local, 'nope')])).code).toBe(0);
    expect(existsSync(join(local, 'nope'))).toBe(false);
    // In: kubectl's tar (Go's archive/tar) unpacked by `tar -xmf - -C /tmp`; a directory under a new name too.
    mkdirSync(join(local, 'site', 'img'), { recursive: true });
    writeFileSync(join(local, 'site', 'index.html'), '<h1>hi</h1>\n');
    writeFileSync(join(local, 'site', 'img', 'logo.svg'), '<svg/>\n');
    expect(await kubectl(['cp', join(local, 'hostname'), 'web:/tmp/copied'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await kubectl(['cp', join(local, 'site'), 'web:/tmp/www', '--no-preserve'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // The container's processes share its files: what kubectl cp put there is there for the next exec, and comes back out.
    expect(await kubectl(['exec', 'web', '--', 'sh', '-c', 'cat /tmp/copied; find /tmp/www | sort; cat /tmp/www/index.html'])).toMatchObject({ code: 0, stdout: 'web\n/tmp/www\n/tmp/www/img\n/tmp/www/img/logo.svg\n/tmp/www/index.html\n<h1>hi</h1>\n' });
    expect((await kubectl(['cp', 'web:/tmp/www', join(local, 'back')])).code).toBe(0);
    expect(readFileSync(join(local, 'back', 'img', 'logo.svg'), 'utf8')).toBe('<svg/>\n');
    // A configMap volume is read-only: tar cannot write there, and kubectl says how the command ended.
    const refused = await kubectl(['cp', join(local, 'hostname'), 'web:/etc/config/hostname']);
    expect(refused).toMatchObject({ code: 1, stderr: "tar: can't open 'hostname': Read-only file system\ncommand terminated with exit code 1\n" });
  });

  it('kubectl cp carries bytes that are not UTF-8 both ways unchanged, and exec passes them on stdout', async () => {
    const local = mkdtempSync(join(tmpdir(), 'kubesim-cp-bin-'));
    // Every byte value, then a pseudo-random stretch long enough to span several WebSocket frames.
    let seed = 11;
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from(Array.from({ length: 200_000 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 255))]);
    writeFileSync(join(local, 'blob.bin'), bytes);
    expect(await kubectl(['cp', join(local, 'blob.bin'), 'web:/tmp/blob.bin'])).toMatchObject({ code: 0, stderr: '' });
    expect((await kubectl(['exec', 'web', '--', 'sh', '-c', 'wc -c < /tmp/blob.bin'])).stdout.trim()).toBe(String(bytes.length));
    expect((await kubectl(['cp', 'web:/tmp/blob.bin', join(local, 'back.bin')])).code).toBe(0);
    expect(readFileSync(join(local, 'back.bin')).equals(bytes)).toBe(true);
    // kubectl exec's stdout as bytes (the host runs in this process: the child is awaited, never waited for synchronously).
    const child = spawn('kubectl', ['exec', 'web', '--', 'cat', '/tmp/blob.bin'], { env: { ...process.env, HOME: t.home, KUBECONFIG: t.host.kubeconfigPath } });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('"Get a Shell to a Running Container": in nginx, apt-get update then install curl and procps, the page changed and fetched from localhost', async () => {
    expect((await kubectl(['run', 'shell-demo', '--image=nginx:1.27'])).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'pod', 'shell-demo', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', 'nginx running');
    expect(await kubectl(['exec', 'shell-demo', '--', 'curl', 'http://localhost/'])).toMatchObject({ code: 1, stderr: expect.stringContaining('executable file not found in $PATH') });
    const installed = await kubectl(['exec', 'shell-demo', '--', 'bash', '-c', "apt-get update > /dev/null && apt-get install -y curl procps > /dev/null && echo 'Hello shell demo' > /usr/share/nginx/html/index.html && curl -s http://localhost/ && which ps"]);
    expect(installed).toMatchObject({ code: 0, stdout: 'Hello shell demo\n/usr/bin/ps\n' });
    expect((await kubectl(['exec', 'shell-demo', '--', 'cat', '/etc/os-release'])).stdout).toMatch(/^PRETTY_NAME="Debian GNU\/Linux 12 \(bookworm\)"\n/);
    // The page's `ps aux`: procps' columns; nginx's master process under its title, its two workers as the nginx user; an exec'd ps leads its own session.
    const aux = await kubectl(['exec', 'shell-demo', '--', 'ps', 'aux']);
    expect(aux).toMatchObject({ code: 0, stderr: '' });
    expect(aux.stdout).toMatch(/^USER {9}PID %CPU %MEM {4}VSZ {3}RSS TTY {6}STAT START {3}TIME COMMAND\nroot {11}1  0\.0  0\.0  11404  7428 \? {8}Ss {3}\d\d:\d\d {3}0:00 nginx: master process nginx -g daemon off;\nnginx {9}29 .* S {4}\d\d:\d\d {3}0:00 nginx: worker process\nnginx {9}30 .* nginx: worker process\n(?:root .*\n)*root +\d+  0\.0  0\.0   8092  4096 \? {8}Rs {3}\d\d:\d\d {3}0:00 ps aux\n$/);
    // Run by a shell, ps is its child; without options it lists the processes without a terminal, by their names.
    const ef = await kubectl(['exec', 'shell-demo', '--', 'bash', '-c', 'ps -ef; ps']);
    expect(ef.stdout).toMatch(/^UID {10}PID {4}PPID  C STIME TTY {10}TIME CMD\nroot {11}1 {7}0  0 \d\d:\d\d \? {8}00:00:00 nginx: master process nginx -g daemon off;\nnginx {9}29 {7}1  0 \d\d:\d\d \? {8}00:00:00 nginx: worker process\nnginx {9}30 {7}1  0 \d\d:\d\d \? {8}00:00:00 nginx: worker process\nroot +(\d+) {7}0  0 \d\d:\d\d \? {8}00:00:00 bash -c ps -ef; ps\nroot +\d+ +\1  0 \d\d:\d\d \? {8}00:00:00 ps -ef\n {4}PID TTY {10}TIME CMD\n {6}1 \? {8}00:00:00 nginx\n {5}29 \? {8}00:00:00 nginx\n {5}30 \? {8}00:00:00 nginx\n +\d+ \? {8}00:00:00 bash\n +\d+ \? {8}00:00:00 ps\n$/);
    expect((await kubectl(['exec', 'shell-demo', '--', 'ps', '-o', 'pid,user,cmd', '-p', '1'])).stdout).toBe('    PID USER     CMD\n      1 root     nginx: master process nginx -g daemon off;\n');
    expect((await kubectl(['exec', 'shell-demo', '--', 'ps', '-o', 'pid=', '-p', '1'])).stdout).toBe('      1\n');
    expect(await kubectl(['exec', 'shell-demo', '--', 'ps', '-o', 'foo'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: unknown user-defined format specifier "foo"\n\nUsage:\n/) });
    // `-aux`, as often typed: procps takes it as `aux`.
    expect((await kubectl(['exec', 'shell-demo', '--', 'ps', '-aux'])).stdout).toMatch(/^USER {9}PID %CPU .*\nroot {11}1 .* nginx: master process nginx -g daemon off;\n/);
    expect(await kubectl(['exec', 'shell-demo', '--', 'ps', '-J'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: unsupported SysV option\n\nUsage:\n ps \[options\]\n/) });
    expect((await kubectl(['exec', 'shell-demo', '--', 'ls', '/'])).stdout.split('\n').join(' ')).toBe('bin boot dev docker-entrypoint.d docker-entrypoint.sh etc home lib lib64 media mnt opt proc root run sbin srv sys tmp usr var ');
    // The image's configuration, as the entrypoint left it (IPv6 listen added).
    expect((await kubectl(['exec', 'shell-demo', '--', 'grep', 'listen', '/etc/nginx/conf.d/default.conf'])).stdout).toBe('    listen       80;\n    listen  [::]:80;\n');
    expect((await kubectl(['exec', 'shell-demo', '--', 'head', '-3', '/etc/nginx/nginx.conf'])).stdout).toBe('\nuser  nginx;\nworker_processes  auto;\n');
    // The page's look at /proc: the container's mounts (its root an overlay, the token on tmpfs) and pid 1's memory map.
    const mounts = (await kubectl(['exec', 'shell-demo', '--', 'cat', '/proc/mounts'])).stdout;
    expect(mounts).toMatch(/^overlay \/ overlay rw,relatime,lowerdir=\S+ 0 0\nproc \/proc proc rw,nosuid,nodev,noexec,relatime 0 0\n/);
    expect(mounts).toContain('\ntmpfs /var/run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime,size=16777216k 0 0\n');
    expect((await kubectl(['exec', 'shell-demo', '--', 'cat', '/proc/1/mounts'])).stdout).toBe(mounts);
    expect((await kubectl(['exec', 'shell-demo', '--', 'cat', '/proc/1/maps'])).stdout).toMatch(/^[0-9a-f]{12}-[0-9a-f]{12} r--p 00000000 00:2d \d+ +\/usr\/sbin\/nginx\n/);
    expect((await kubectl(['exec', 'shell-demo', '--', 'df', '-h', '/'])).stdout).toBe('Filesystem      Size  Used Avail Use% Mounted on\noverlay         100G   15G   80G  16% /\n');
  });

  it('"Configure a Security Context": capabilities added to a container show in /proc/1/status, and runAsUser in ps and id', async () => {
    const pods = `apiVersion: v1
kind: Pod
metadata: {name: security-context-demo-3}
spec:
  containers: [{name: sec-ctx-3, image: busybox:1.36, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: security-context-demo-4}
spec:
  containers:
  - name: sec-ctx-4
    image: busybox:1.36
    command: [sleep, "3600"]
    securityContext:
      capabilities:
        add: ["NET_ADMIN", "SYS_TIME"]
---
apiVersion: v1
kind: Pod
metadata: {name: security-context-demo}
spec:
  securityContext: {runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000}
  containers:
  - name: sec-ctx-demo
    image: busybox:1.36
    command: [sh, -c, "sleep 1h"]
    securityContext: {allowPrivilegeEscalation: false}
`;
    expect((await kubectl(['apply', '-f', '-'], pods)).code).toBe(0);
    for (const name of ['security-context-demo-3', 'security-context-demo-4', 'security-context-demo']) {
      await eventually(async () => (await kubectl(['get', 'pod', name, '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', `${name} running`);
    }
    // As the page has it: a shell in the container, then `cd /proc/1` and `cat status`.
    const status = async (name: string) => (await kubectl(['exec', '-i', name, '--', 'sh'], 'cd /proc/1\ncat status\n')).stdout;
    expect(await status('security-context-demo-3')).toContain('\nCapPrm:\t00000000a80425fb\nCapEff:\t00000000a80425fb\n');
    expect(await status('security-context-demo-4')).toContain('\nCapPrm:\t00000000aa0435fb\nCapEff:\t00000000aa0435fb\n');
    const demo = await status('security-context-demo');
    expect(demo).toContain('\nUid:\t1000\t1000\t1000\t1000\nGid:\t3000\t3000\t3000\t3000\n');
    expect(demo).toContain('\nCapEff:\t0000000000000000\n');
    expect(demo).toContain('\nNoNewPrivs:\t1\n');
    expect((await kubectl(['exec', 'security-context-demo', '--', 'id'])).stdout).toBe('uid=1000 gid=3000 groups=2000,3000\n');
    expect((await kubectl(['exec', 'security-context-demo', '--', 'ps'])).stdout).toMatch(/^PID   USER     TIME  COMMAND\n    1 1000      0:00 sleep 1h\n/);
  });

  it('"Share Process Namespace": the shell container sees nginx and its workers (uid 101), signals nginx to reload, and reads its configuration through /proc/<pid>/root', async () => {
    const page = `apiVersion: v1
kind: Pod
metadata:
  name: nginx
spec:
  shareProcessNamespace: true
  containers:
  - name: nginx
    image: nginx
  - name: shell
    image: busybox:1.28
    command: ["sleep", "3600"]
    securityContext:
      capabilities:
        add:
        - SYS_PTRACE
    stdin: true
    tty: true
`;
    expect((await kubectl(['apply', '-f', '-'], page)).stdout).toBe('pod/nginx created\n');
    await eventually(async () => (await kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.status.containerStatuses[*].ready}'])).stdout, (r) => r === 'true true', 'both containers ready');
    const ps = (await kubectl(['exec', 'nginx', '-c', 'shell', '--', 'ps', 'ax'])).stdout;
    expect(ps).toMatch(/^PID   USER     TIME  COMMAND\n    1 root      0:00 \/pause\n    7 root      0:00 nginx: master process nginx -g daemon off;\n\s+\d+ 101       0:00 nginx: worker process\n/);
    const master = /^\s+(\d+) root\s+0:00 nginx: master/m.exec(ps)![1];
    expect(await kubectl(['exec', 'nginx', '-c', 'shell', '--', 'kill', '-HUP', master!])).toMatchObject({ code: 0, stderr: '' });
    const conf = await kubectl(['exec', 'nginx', '-c', 'shell', '--', 'head', `/proc/${master}/root/etc/nginx/nginx.conf`]);
    expect(conf.stdout).toBe('\nuser  nginx;\nworker_processes  auto;\n\nerror_log  /var/log/nginx/error.log notice;\npid        /var/run/nginx.pid;\n\n\nevents {\n    worker_connections  1024;\n');
    expect((await kubectl(['logs', 'nginx', '-c', 'nginx'])).stdout).toMatch(new RegExp(`\\[notice\\] ${master}#${master}: signal 1 \\(SIGHUP\\) received from \\d+, reconfiguring\\n`));
  });

  it('ps shows the container\'s process and the exec; kill 1 does not reach a sleep as pid 1', async () => {
    const ps = await kubectl(['exec', 'web', '--', 'ps']);
    expect(ps.code).toBe(0);
    expect(ps.stdout).toMatch(/^PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n(?:\s+\d+ root      0:00 .*\n)*\s+\d+ root      0:00 ps\n$/);
    expect(await kubectl(['exec', 'web', '--', 'kill', '1'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await kubectl(['exec', 'web', '--', 'kill', '999'])).toMatchObject({ code: 1, stderr: "kill: can't kill pid 999: No such process\ncommand terminated with exit code 1\n" });
    expect(await kubectl(['get', 'pod', 'web', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).toMatchObject({ stdout: '0' });
  });

  it('@kubernetes/client-node Exec gets the output and the Status', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(t.host.kubeconfigPath);
    let out = '';
    const stdout = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(kc).exec('default', 'web', 'app', ['printenv', 'HOSTNAME', 'GREETING'], stdout, null, null, false, resolve).catch(reject);
    });
    expect(status).toMatchObject({ status: 'Success' });
    expect(out).toBe('web\nhello\n');
  });
});

/**
 * Operational endpoints on the Node host with --authorization-mode=RBAC: real
 * kubectl reads /readyz and /livez (system:public-info-viewer lets any user and
 * anonymous callers in), and --shutdown-delay-duration drains with /readyz failing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';
import { run, type RunResult } from './support/host';

let host: RunningHost;
let dir: string;

function kubectl(token: string, args: string[]): Promise<RunResult> {
  return run('kubectl', [`--token=${token}`, ...args], { HOME: join(dir, 'home'), KUBECONFIG: host.kubeconfigPath });
}

/** An anonymous GET over HTTPS (no credentials at all). */
function anonymousGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${host.secureUrl}${path}`, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesim-ops-'));
  writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,1,system:masters\nalice-token,alice,2\nbob-token,bob,3\n');
  host = await startHost({
    port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'data'), store: 'memory', tls: true, securePort: 0, help: false,
    authorizationModes: 'RBAC', authn: { tokenAuthFile: join(dir, 'tokens.csv') }, shutdownDelayMs: 3000,
  });
});

afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The Node host's command line (`kubesim ...`), run as users run it. */
function kubesim(args: string[], input = ''): Promise<RunResult> {
  return run(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {}, input);
}

describe('status pages, deprecation and the removed-API check', () => {
  it('[API-VER-002][API-VER-051] kubectl prints the Warning of a deprecated built-in version', async () => {
    const r = await kubectl('admin-token', ['get', 'endpoints', '-n', 'default']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n');
    const cs = await kubectl('admin-token', ['get', '--raw', '/api/v1/componentstatuses']);
    expect(cs.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
  });

  it('kubectl events reads core/v1 Events through events.k8s.io/v1', async () => {
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'pulled', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default' }, reason: 'Pulled', message: 'Successfully pulled image', type: 'Normal', firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), count: 1, source: { component: 'kubelet' } };
    const made = await run('kubectl', ['--token=admin-token', 'create', '-f', '-'], { HOME: join(dir, 'home'), KUBECONFIG: host.kubeconfigPath }, JSON.stringify(event));
    expect(made.code, made.stderr).toBe(0);
    const r = await kubectl('admin-token', ['events', '-n', 'default']);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('Pulled'))!;
    expect(line.split(/\s{2,}/).slice(1)).toEqual(['Normal', 'Pulled', 'Pod/web-1', 'Successfully pulled image']);
  });

  it('kubectl autoscale, then the HorizontalPodAutoscaler read through autoscaling/v1 and autoscaling/v2', async () => {
    expect((await kubectl('admin-token', ['create', 'deployment', 'scaled', '--image=nginx', '-n', 'default'])).code).toBe(0);
    const made = await kubectl('admin-token', ['autoscale', 'deployment', 'scaled', '--cpu-percent=50', '--max=3', '-n', 'default']);
    expect(made.code, made.stderr).toBe(0);
    const v1 = JSON.parse((await kubectl('admin-token', ['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/scaled'])).stdout);
    expect(v1.spec).toMatchObject({ maxReplicas: 3, targetCPUUtilizationPercentage: 50 });
    const v2 = JSON.parse((await kubectl('admin-token', ['get', '--raw', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/scaled'])).stdout);
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    const table = await kubectl('admin-token', ['get', 'hpa', 'scaled', '-n', 'default']);
    expect(table.stdout).toContain('cpu: <unknown>/50%');
  });

  it('[AC-STATUSZ-015][AC-STATUSZ-018][AC-STATUSZ-012] kubectl get --raw /statusz and /flagz answer plain text', async () => {
    const statusz = await kubectl('admin-token', ['get', '--raw', '/statusz']);
    expect(statusz.code, statusz.stderr).toBe(0);
    expect(statusz.stdout.split('\n')[0]).toBe('kube-apiserver statusz');
    expect(statusz.stdout).toContain('\nBinary version: 1.36.0\n');
    const flagz = await kubectl('admin-token', ['get', '--raw', '/flagz']);
    expect(flagz.code, flagz.stderr).toBe(0);
    expect(flagz.stdout.split('\n')).toEqual(expect.arrayContaining(['kube-apiserver flags', 'secure-port=0', 'store=memory', 'authorization-mode=RBAC']));
  });

  it('system:monitoring reads /statusz but not /flagz', async () => {
    expect((await kubectl('bob-token', ['get', '--raw', '/statusz'])).code).toBe(1);
    expect((await kubectl('admin-token', ['create', 'clusterrolebinding', 'bob-monitoring', '--clusterrole=system:monitoring', '--user=bob'])).code).toBe(0);
    const statusz = await kubectl('bob-token', ['get', '--raw', '/statusz']);
    expect(statusz.code, statusz.stderr).toBe(0);
    expect(statusz.stdout).toContain('kube-apiserver statusz');
    const flagz = await kubectl('bob-token', ['get', '--raw', '/flagz']);
    expect(flagz.code).toBe(1);
    expect(flagz.stderr).toContain('Error from server (Forbidden)');
  });

  it('[AC-METRICS-004] /metrics/slis is served on the HTTPS port', async () => {
    // The kubeconfig points kubectl at the secure port.
    expect(readFileSync(host.kubeconfigPath, 'utf8')).toContain(`server: ${host.secureUrl}`);
    expect((await anonymousGet('/readyz')).status).toBe(200);
    const r = await kubectl('admin-token', ['get', '--raw', '/metrics/slis']);
    expect(r.code, r.stderr).toBe(0);
    const families = parsePrometheusTextFormat(r.stdout);
    expect(families.map((f) => f.name)).toEqual(['kubernetes_healthcheck', 'kubernetes_healthchecks_total']);
  });

  it('[API-VER-050] kubesim refuses to start when a locked GA gate is disabled', async () => {
    const r = await kubesim(['--port=0', '--store=memory', '--feature-gates=ComponentSLIs=false']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: invalid argument "ComponentSLIs=false" for "--feature-gates" flag: cannot set feature gate ComponentSLIs to false, feature is locked to true');
  });

  it('[API-VER-048] setting a GA gate logs its warning at start; a bad --show-hidden-metrics-for-version stops the host', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--port=0', '--store=memory', `--data-dir=${join(dir, 'ga')}`, '--feature-gates=ComponentSLIs=true'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${stderr}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        if (String(d).includes('kubesim serving on')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(stderr).toContain('Setting GA feature gate ComponentSLIs=true. It will be removed in a future release.');
    const bad = await kubesim(['--port=0', '--store=memory', `--data-dir=${join(dir, 'hidden')}`, '--show-hidden-metrics-for-version=1.30']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--show-hidden-metrics-for-version must be omitted or have the value '1.35'. Only the previous minor version is allowed");
  });

  it('kubesim check reports removed apiVersions, their replacements and field changes, and converts', async () => {
    const file = join(dir, 'old.yaml');
    writeFileSync(file, [
      'apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata: {name: web, namespace: default}\nspec:\n  rules:\n  - http:\n      paths:\n      - path: /\n        backend: {serviceName: web, servicePort: 80}',
      'apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly}\nspec: {schedule: "0 0 * * *", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}}',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: fine, namespace: default}',
      'apiVersion: v1\nkind: Endpoints\nmetadata: {name: legacy, namespace: default}',
    ].join('\n---\n'));
    const report = await kubesim(['check', file]);
    expect(report.code, report.stderr).toBe(3);
    const lines = report.stdout.split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['FILE', 'KIND', 'NAME', 'VERSION', 'DEPRECATED-IN', 'REMOVED', 'REMOVED-IN', 'REPLACEMENT']);
    expect(lines[1]!.split(/\s{2,}/)).toEqual([file, 'Ingress', 'default/web', 'networking.k8s.io/v1beta1', '-', 'true', '1.22', 'networking.k8s.io/v1']);
    expect(lines[2]!.split(/\s{2,}/)).toEqual([file, 'CronJob', 'nightly', 'batch/v1beta1', '-', 'true', '1.25', 'batch/v1']);
    expect(lines[3]!.split(/\s{2,}/)).toEqual([file, 'ServiceAccount', 'default/fine', 'v1', '-', 'false', '-', '-']);
    expect(lines[4]!.split(/\s{2,}/)).toEqual([file, 'Endpoints', 'default/legacy', 'v1', '1.33', 'false', '-', 'discovery.k8s.io/v1']);
    expect(report.stdout).toContain(`${file}: Endpoints default/legacy: v1 is deprecated since 1.33; use discovery.k8s.io/v1\n`);
    expect(report.stdout).toContain('  - backend serviceName is renamed service.name\n');
    // Before 1.22 nothing in the file is removed yet.
    expect((await kubesim(['check', '--target-version=1.21', file])).code).toBe(0);
    // The converted manifests apply to this server as they are.
    const converted = await kubesim(['check', '--convert', '-'], readFileSync(file, 'utf8'));
    expect(converted.code).toBe(3);
    expect(converted.stdout).toContain('apiVersion: networking.k8s.io/v1\n');
    const r = await run('kubectl', ['--token=admin-token', 'apply', '-f', '-'], { HOME: join(dir, 'home'), KUBECONFIG: host.kubeconfigPath }, converted.stdout);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ingress.networking.k8s.io/web created');
    expect(r.stdout).toContain('cronjob.batch/nightly created');
    expect(r.stderr).toContain('Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice');
  });
});

describe('health endpoints through kubectl', () => {
  it('[AC-HEALTH-002][AC-HEALTH-006] kubectl get --raw /readyz?verbose prints every check and "readyz check passed"', async () => {
    const r = await kubectl('alice-token', ['get', '--raw', '/readyz?verbose']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 5)).toEqual(['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok']);
    expect(lines).toContain('[+]poststarthook/rbac/bootstrap-roles ok');
    expect(lines.slice(-2)).toEqual(['[+]shutdown ok', 'readyz check passed']);
  });

  it('[AC-HEALTH-008][AC-HEALTH-010] kubectl get --raw /livez?exclude=etcd', async () => {
    const r = await kubectl('admin-token', ['get', '--raw', '/livez?exclude=etcd&verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('[+]etcd excluded: ok\n');
    expect((await kubectl('admin-token', ['get', '--raw', '/livez?exclude=etcd'])).stdout).toBe('ok');
    expect((await kubectl('admin-token', ['get', '--raw', '/readyz/nope'])).code).toBe(1);
  });

  it('[AC-HEALTH-001][AC-HEALTH-012] anonymous callers read the health endpoints (not single checks) through system:public-info-viewer', async () => {
    expect(await anonymousGet('/livez')).toEqual({ status: 200, body: 'ok' });
    expect(await anonymousGet('/readyz')).toEqual({ status: 200, body: 'ok' });
    // The role lists /livez, /readyz and /healthz exactly; single checks are for system:monitoring and admins.
    expect((await anonymousGet('/readyz/etcd')).status).toBe(403);
    const single = await kubectl('admin-token', ['get', '--raw', '/readyz/etcd']);
    expect(single.stdout).toBe('ok');
  });

  it('[AC-AUTHN-119] with --authorization-mode=RBAC and no --anonymous-auth, requests without credentials are system:anonymous', async () => {
    expect((await anonymousGet('/version')).status).toBe(200);
    const denied = await anonymousGet('/api/v1/namespaces');
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body).message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  it('[AC-METRICS-010] kubectl get --raw /metrics: a Prometheus parser reads the request counts kubectl caused', async () => {
    const storedConfigMaps = async () => {
      const text = (await kubectl('admin-token', ['get', '--raw', '/metrics'])).stdout;
      return Number(parsePrometheusTextFormat(text).find((f) => f.name === 'apiserver_storage_objects')!.metrics.find((m) => m.labels?.['resource'] === 'configmaps')!.value);
    };
    const before = await storedConfigMaps();
    expect((await kubectl('admin-token', ['create', 'configmap', 'm1', '-n', 'default'])).code).toBe(0);
    expect(await storedConfigMaps()).toBe(before + 1);
    expect((await kubectl('admin-token', ['get', 'configmaps', '-n', 'default'])).code).toBe(0);
    const r = await kubectl('admin-token', ['get', '--raw', '/metrics']);
    expect(r.code, r.stderr).toBe(0);
    const families = parsePrometheusTextFormat(r.stdout);
    const total = families.find((f) => f.name === 'apiserver_request_total')!;
    expect(total.type).toBe('COUNTER');
    const created = total.metrics.find((m) => m.labels?.['verb'] === 'POST' && m.labels['resource'] === 'configmaps' && m.labels['code'] === '201');
    expect(created?.labels).toEqual({ verb: 'POST', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '201' });
    expect(created?.value).toBe('1');
    expect(total.metrics.some((m) => m.labels?.['verb'] === 'LIST' && m.labels['resource'] === 'configmaps')).toBe(true);
    // /metrics is not in system:public-info-viewer: a user without bindings is refused, as in kube-apiserver.
    const alice = await kubectl('alice-token', ['get', '--raw', '/metrics']);
    expect(alice.code).toBe(1);
    expect(alice.stderr).toContain('Error from server (Forbidden)');
  });

  it('[AC-HEALTH-018] --shutdown-delay-duration: after shutdown starts /readyz fails while the API still answers', async () => {
    const closing = host.close();
    const ready = await anonymousGet('/readyz');
    expect(ready.status).toBe(500);
    expect(ready.body).toContain('[-]shutdown failed: reason withheld\nreadyz check failed\n');
    expect((await anonymousGet('/livez')).status).toBe(200);
    const r = await kubectl('admin-token', ['get', 'namespace', 'default', '-o', 'name']);
    expect(r.stdout.trim()).toBe('namespace/default');
    await closing;
    host = undefined as unknown as RunningHost;
  });
});

describe('health through anonymous conditions', () => {
  let limited: RunningHost;
  beforeAll(async () => {
    const config = join(dir, 'authn-config.yaml');
    writeFileSync(config, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n');
    limited = await startHost({
      port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'limited'), store: 'memory', tls: false, securePort: 0, help: false,
      authn: { tokenAuthFile: join(dir, 'tokens.csv'), authenticationConfig: config },
    });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('[AC-HEALTH-019] anonymous requests are let in on /livez and /readyz only', async () => {
    const get = async (path: string) => {
      const r = await fetch(`${limited.url}${path}`);
      return { status: r.status, body: await r.text() };
    };
    expect(await get('/livez')).toEqual({ status: 200, body: 'ok' });
    expect(await get('/readyz')).toEqual({ status: 200, body: 'ok' });
    expect((await get('/api')).status).toBe(401);
    expect((await get('/metrics')).status).toBe(401);
    const admin = await fetch(`${limited.url}/api`, { headers: { authorization: 'Bearer admin-token' } });
    expect(admin.status).toBe(200);
  });
});

describe('--runtime-config across a restart', () => {
  it('[API-VER-021] a group version switched off is served again only once the server restarts without the flag', async () => {
    const base = { port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'runtime-config'), store: 'sqlite' as const, tls: false, securePort: 0, help: false };
    let h = await startHost({ ...base, runtimeConfig: 'batch/v1=false' });
    try {
      expect((await fetch(`${h.url}/apis/batch/v1`)).status).toBe(404);
      await h.close();
      h = await startHost(base);
      expect((await fetch(`${h.url}/apis/batch/v1`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

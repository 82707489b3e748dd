/**
 * Every Pod Security check at its level, through HTTP: a pod that fails one
 * check is sent (dryRun=All) to a namespace enforcing baseline or restricted,
 * and the 403's message must be kube's, reason and detail. The Windows
 * exemptions and the versioned revisions are evaluated directly where pod
 * validation would refuse the pod first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../../testing/client';
import { latestVersion } from '../api';
import { aggregateCheckResults, defaultChecks, forbiddenDetail, newEvaluator } from '.';
import type { PodSpec } from './check';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
  for (const level of ['baseline', 'restricted']) {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: level, labels: { 'pod-security.kubernetes.io/enforce': level } } };
    expect((await t.json('POST', '/api/v1/namespaces', { body: ns })).status).toBe(201);
  }
});

/** Passes every restricted check. */
const restrictedContainer = (name = 'c') => ({
  name,
  image: 'nginx',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
});
const restrictedPod = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', ...metadata },
  spec: { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer()], ...spec },
});

async function refusal(level: string, pod: unknown): Promise<string> {
  const r = await t.json('POST', `/api/v1/namespaces/${level}/pods?dryRun=All`, { body: pod });
  if (r.status === 201) return 'admitted';
  expect(r.body.reason).toBe('Forbidden');
  return r.body.message;
}

const prefix = (level: string) => `pods "p" is forbidden: violates PodSecurity "${level}:latest": `;

const sc = (securityContext: Record<string, unknown>, name = 'c') => ({ name, image: 'nginx', securityContext });

describe('baseline checks, through a namespace enforcing baseline', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['hostNamespaces', { hostNetwork: true, hostPID: true, hostIPC: true, containers: [{ name: 'c', image: 'nginx' }] }, 'host namespaces (hostIPC, hostNetwork, hostPID)'],
    ['hostPathVolumes', { volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }], containers: [{ name: 'c', image: 'nginx' }] }, 'hostPath volumes (volume "h")'],
    ['hostPorts', { containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 80 }] }, { name: 'b', image: 'nginx', ports: [{ containerPort: 82, hostPort: 9090 }] }] }, 'hostPort (containers "a", "b" use hostPorts 80, 8080, 9090)'],
    ['privileged', { containers: [sc({ privileged: true }, 'a'), { name: 'b', image: 'nginx' }] }, 'privileged (container "a" must not set securityContext.privileged=true)'],
    ['capabilities_baseline', { containers: [sc({ capabilities: { add: ['NET_ADMIN', 'CHOWN', 'SYS_ADMIN'] } })] }, 'non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add)'],
    ['sysctls', { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '4096 87380 16777216' }, { name: 'net.core.somaxconn', value: '1024' }, { name: 'kernel.msgmax', value: '65536' }] }, containers: [{ name: 'c', image: 'nginx' }] }, 'forbidden sysctls (net.core.somaxconn, kernel.msgmax)'],
    ['seLinuxOptions', { securityContext: { seLinuxOptions: { user: 'u', role: 'r' } }, containers: [sc({ seLinuxOptions: { type: 'spc_t' } })] }, 'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)'],
    ['seccompProfile_baseline', { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'c', image: 'nginx' }] }, 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'],
    [
      'hostProbesAndHostLifecycle (v1.34)',
      {
        containers: [
          { name: 'b', image: 'nginx', livenessProbe: { httpGet: { host: '10.0.0.1', port: 80 } }, lifecycle: { preStop: { httpGet: { host: 'localhost', port: 9091 } } } },
          { name: 'a', image: 'nginx', readinessProbe: { tcpSocket: { host: '10.0.0.1', port: 80 } } },
        ],
      },
      'probe or lifecycle host (containers "a", "b" use probe or lifecycle hosts "10.0.0.1", "localhost")',
    ],
    ['appArmorProfile', { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [{ name: 'c', image: 'nginx' }] }, 'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")'],
  ];
  it.each(cases)('%s', async (_id, spec, violation) => {
    expect(await refusal('baseline', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec })).toBe(prefix('baseline') + violation);
  });

  it('procMount: refused at baseline up to v1.34; from v1.35 a user-namespace pod may unmask /proc at baseline, not at restricted', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'baseline-v134', labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.34' } } };
    expect((await t.json('POST', '/api/v1/namespaces', { body: ns })).status).toBe(201);
    const unmasked = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { hostUsers: false, containers: [sc({ procMount: 'Unmasked' })] } };
    expect(await refusal('baseline-v134', unmasked)).toBe('pods "p" is forbidden: violates PodSecurity "baseline:v1.34": procMount (container "c" must not set securityContext.procMount to "Unmasked")');
    expect(await refusal('baseline', unmasked)).toBe('admitted');
    const restricted = restrictedPod({ hostUsers: false, containers: [{ ...restrictedContainer(), securityContext: { ...restrictedContainer().securityContext, procMount: 'Unmasked' } }] });
    expect(await refusal('restricted', restricted)).toBe(prefix('restricted') + 'procMount (container "c" must not set securityContext.procMount to "Unmasked")');
  });

  it('a pod of the default shape passes baseline', async () => {
    expect(await refusal('baseline', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } })).toBe('admitted');
  });

  it('several failures list baseline checks sorted by id, the AppArmor annotations with them', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } },
      spec: { hostNetwork: true, containers: [sc({ privileged: true })] },
    };
    expect(await refusal('baseline', pod)).toBe(
      prefix('baseline') +
        'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined""), host namespaces (hostNetwork), privileged (container "c" must not set securityContext.privileged=true)',
    );
  });
});

describe('restricted checks, through a namespace enforcing restricted', () => {
  it('a pod setting every restricted field is admitted', async () => {
    expect(await refusal('restricted', restrictedPod({ volumes: [{ name: 'v', configMap: { name: 'cm' } }] }))).toBe('admitted');
  });

  it('a default pod: the four restricted reasons, in kube order', async () => {
    expect(await refusal('restricted', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).toBe(
      prefix('restricted') +
        'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['allowPrivilegeEscalation', { containers: [sc({ allowPrivilegeEscalation: true, capabilities: { drop: ['ALL'] } })] }, 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)'],
    [
      'capabilities_restricted (supersedes capabilities_baseline)',
      { containers: [sc({ allowPrivilegeEscalation: false, capabilities: { add: ['SYS_ADMIN', 'NET_BIND_SERVICE'] } })] },
      'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
    ],
    ['runAsNonRoot', { securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } } }, 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)'],
    ['runAsUser', { securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } }, 'runAsUser=0 (pod must not set runAsUser=0)'],
    [
      'seccompProfile_restricted (supersedes seccompProfile_baseline)',
      { securityContext: { runAsNonRoot: true }, containers: [{ ...restrictedContainer('a'), securityContext: { ...restrictedContainer().securityContext, seccompProfile: { type: 'Unconfined' } } }] },
      'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
    ],
    ['restrictedVolumes (supersedes hostPathVolumes)', { volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } }] }, 'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")'],
  ];
  it.each(cases)('%s', async (_id, spec, violation) => {
    expect(await refusal('restricted', restrictedPod(spec))).toBe(prefix('restricted') + violation);
  });

  it('baseline checks run at restricted too, before the restricted ones', async () => {
    expect(await refusal('restricted', restrictedPod({ hostPID: true, securityContext: { runAsNonRoot: true } }))).toBe(
      prefix('restricted') + 'host namespaces (hostPID), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });
});

describe('revisions and exemptions evaluated directly', () => {
  const evaluator = newEvaluator(defaultChecks(), 32);
  const detail = (level: 'baseline' | 'restricted', minor: number | 'latest', spec: PodSpec) =>
    forbiddenDetail(aggregateCheckResults(evaluator.evaluatePod({ level, version: minor === 'latest' ? latestVersion : { latest: false, minor } }, {}, spec)));

  it('latest is the newest revision: net.ipv4.tcp_rmem became a safe sysctl in v1.32', () => {
    const spec: PodSpec = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem' }] }, containers: [{ name: 'c' }] };
    expect(evaluator.maxVersion).toBe(32);
    expect(detail('baseline', 'latest', spec)).toBe('');
    expect(detail('baseline', 31, spec)).toBe('forbidden sysctls (net.ipv4.tcp_rmem)');
    expect(detail('baseline', 40, spec)).toBe('');
  });

  it('latest is capped at the server minor: a v1.32 server does not check probe hosts (a v1.34 check), a v1.36 one does', () => {
    const spec: PodSpec = { containers: [{ name: 'c', startupProbe: { httpGet: { host: 'example.com' } } }] };
    expect(detail('baseline', 'latest', spec)).toBe('');
    const newer = newEvaluator(defaultChecks(), 36);
    expect(newer.maxVersion).toBe(35);
    const at = (minor: number | 'latest') => forbiddenDetail(aggregateCheckResults(newer.evaluatePod({ level: 'baseline', version: minor === 'latest' ? latestVersion : { latest: false, minor } }, {}, spec)));
    expect(at('latest')).toBe('probe or lifecycle host (container "c" uses probe or lifecycle host "example.com")');
    expect(at(33)).toBe('');
  });

  it('runAsUser=0 is refused from v1.23, capabilities from v1.22, seccompProfile from v1.19 (the alpha annotations before)', () => {
    const spec: PodSpec = { securityContext: { runAsNonRoot: true, runAsUser: 0 }, containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false } }] };
    expect(detail('restricted', 18, spec)).toBe('');
    expect(detail('restricted', 21, spec)).toBe('seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
    expect(detail('restricted', 23, spec)).toBe(
      'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsUser=0 (pod must not set runAsUser=0), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    const annotated = evaluator.evaluatePod({ level: 'baseline', version: { latest: false, minor: 18 } }, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }, { containers: [{ name: 'c' }] });
    expect(forbiddenDetail(aggregateCheckResults(annotated))).toBe('seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
  });

  it('from v1.35 a pod in a user namespace (hostUsers: false) may run as root', () => {
    const newer = newEvaluator(defaultChecks(), 36);
    const spec: PodSpec = { hostUsers: false, securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] };
    const at = (minor: number | 'latest') => forbiddenDetail(aggregateCheckResults(newer.evaluatePod({ level: 'restricted', version: minor === 'latest' ? latestVersion : { latest: false, minor } }, {}, spec)));
    expect(at('latest')).toBe('');
    expect(at(34)).toBe('runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), runAsUser=0 (pod must not set runAsUser=0)');
  });

  it('Windows pods skip allowPrivilegeEscalation, capabilities and seccompProfile from v1.25', () => {
    const spec: PodSpec = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'c' }] };
    expect(detail('restricted', 'latest', spec)).toBe('');
    expect(detail('restricted', 24, spec)).toBe(
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it('windowsHostProcess; ephemeral and init containers are checked like containers', () => {
    const spec: PodSpec = {
      securityContext: { windowsOptions: { hostProcess: true } },
      initContainers: [{ name: 'i', securityContext: { privileged: true } }],
      containers: [{ name: 'c', securityContext: { windowsOptions: { hostProcess: true } } }],
      ephemeralContainers: [{ name: 'debug', securityContext: { privileged: true } }],
    };
    expect(detail('baseline', 'latest', spec)).toBe(
      'privileged (containers "i", "debug" must not set securityContext.privileged=true), hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
    );
  });
});

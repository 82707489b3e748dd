/**
 * Pod Security admission as real kubectl 1.32 meets it on the Node host:
 * a namespace labelled restricted refuses `kubectl run` and `kubectl debug`
 * without the restricted profile, warn mode prints
 * kubectl's `Warning:` lines on `kubectl create deployment`, and
 * `kubectl label --dry-run=server` previews a tightened enforce level;
 * --admission-control-config-file sets cluster-wide defaults and exemptions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  // No deployment-controller: the pods a Deployment would create are not part of these checks.
  t = await startTestHost({ authn: { controllers: ['*', '-deployment-controller'] } });
});
afterAll(async () => {
  await t?.stop();
});

const restrictedDetail = (c: string) =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

describe('Pod Security admission with kubectl', () => {
  it('kubectl run in a namespace labelled enforce=restricted is refused with kube message', async () => {
    expect((await t.kubectl(['create', 'namespace', 'secure'])).code).toBe(0);
    const labelled = await t.kubectl(['label', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=restricted']);
    expect(labelled.stdout.trim()).toBe('namespace/secure labeled');
    const run = await t.kubectl(['run', 'web', '--image=nginx', '-n', 'secure']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`Error from server (Forbidden): pods "web" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail('web')}`);
    const compliant = `apiVersion: v1
kind: Pod
metadata: {name: ok}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: app
    image: nginx
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
`;
    const created = await t.kubectl(['apply', '-n', 'secure', '-f', '-'], compliant);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('pod/ok created');
    // kubectl debug's general profile adds SYS_PTRACE and nothing else; the restricted profile hardens the container.
    const debug = await t.kubectl(['debug', 'ok', '-n', 'secure', '--image=busybox', '-c', 'dbg', '--profile=general']);
    expect(debug.code).toBe(1);
    expect(debug.stderr.trim()).toBe(
      'Error from server (Forbidden): pods "ok" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "dbg" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "dbg" must set securityContext.capabilities.drop=["ALL"]; container "dbg" must not include "SYS_PTRACE" in securityContext.capabilities.add)',
    );
    const restricted = await t.kubectl(['debug', 'ok', '-n', 'secure', '--image=busybox', '-c', 'dbg', '--profile=restricted']);
    expect(restricted.stderr).toBe('');
    expect(restricted.code).toBe(0);
  });

  it('warn mode: kubectl create deployment succeeds and prints the Warning', async () => {
    expect((await t.kubectl(['create', 'namespace', 'audited'])).code).toBe(0);
    expect((await t.kubectl(['label', 'namespace', 'audited', 'pod-security.kubernetes.io/warn=restricted', 'pod-security.kubernetes.io/warn-version=v1.32'])).code).toBe(0);
    const r = await t.kubectl(['create', 'deployment', 'web', '--image=nginx', '-n', 'audited']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('deployment.apps/web created');
    expect(r.stderr.trim()).toBe(`Warning: would violate PodSecurity "restricted:v1.32": ${restrictedDetail('nginx')}`);
  });

  it('kubectl label --dry-run=server previews the existing pods a new enforce level would refuse, and stores nothing', async () => {
    expect((await t.kubectl(['create', 'namespace', 'legacy'])).code).toBe(0);
    const privileged = `apiVersion: v1
kind: Pod
metadata: {name: agent}
spec:
  hostNetwork: true
  containers:
  - {name: agent, image: busybox, securityContext: {privileged: true}}
`;
    expect((await t.kubectl(['apply', '-n', 'legacy', '-f', '-'], privileged)).code).toBe(0);
    expect((await t.kubectl(['run', 'plain', '--image=nginx', '-n', 'legacy'])).code).toBe(0);
    const preview = await t.kubectl(['label', '--dry-run=server', '--overwrite', 'namespace', 'legacy', 'pod-security.kubernetes.io/enforce=baseline']);
    expect(preview.code).toBe(0);
    expect(preview.stdout.trim()).toBe('namespace/legacy labeled (server dry run)');
    expect(preview.stderr.trim().split('\n')).toEqual([
      'Warning: existing pods in namespace "legacy" violate the new PodSecurity enforce level "baseline:latest"',
      'Warning: agent: host namespaces, privileged',
    ]);
    const labels = await t.kubectl(['get', 'namespace', 'legacy', '-o', 'jsonpath={.metadata.labels}']);
    expect(labels.stdout).not.toContain('pod-security.kubernetes.io/enforce');
    const restricted = await t.kubectl(['label', '--dry-run=server', '--overwrite', 'namespace', 'legacy', 'pod-security.kubernetes.io/enforce=restricted']);
    expect(restricted.stderr.trim().split('\n')).toEqual([
      'Warning: existing pods in namespace "legacy" violate the new PodSecurity enforce level "restricted:latest"',
      'Warning: agent: host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'Warning: plain: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
  });

  it('an invalid level is refused as Invalid', async () => {
    const r = await t.kubectl(['label', '--overwrite', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=strict']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('The Namespace "secure" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
  });
});

describe('--admission-control-config-file', () => {
  it('a PodSecurityConfiguration in its own file: baseline by default, kube-system exempt, and kubectl told so when labelling it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-psa-'));
    writeFileSync(join(dir, 'admission.yaml'), `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  path: podsecurity.yaml
`);
    writeFileSync(join(dir, 'podsecurity.yaml'), `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  enforce: baseline
  enforce-version: latest
exemptions:
  namespaces: [kube-system]
`);
    const host = await startTestHost({ authn: { controllers: ['*', '-deployment-controller'] }, flags: { admissionControlConfigFile: join(dir, 'admission.yaml') } });
    try {
      const run = await host.kubectl(['run', 'agent', '--image=busybox', '--privileged']);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe('Error from server (Forbidden): pods "agent" is forbidden: violates PodSecurity "baseline:latest": privileged (container "agent" must not set securityContext.privileged=true)');
      expect((await host.kubectl(['run', 'agent', '--image=busybox', '--privileged', '-n', 'kube-system'])).code).toBe(0);
      const labelled = await host.kubectl(['label', 'namespace', 'kube-system', 'pod-security.kubernetes.io/enforce=restricted']);
      expect(labelled.stdout.trim()).toBe('namespace/kube-system labeled');
      expect(labelled.stderr.trim()).toBe('Warning: namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored');
    } finally {
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

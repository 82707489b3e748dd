import { describe, expect, it } from 'vitest';
import { validateAuthorizationFlags } from './authorization';
import { parseFlags } from './flags';

describe('authorization flags', () => {
  it('[AC-AUTHZ-038] --authorization-mode defaults to AlwaysAllow and keeps its order', () => {
    expect(validateAuthorizationFlags({})).toEqual(['AlwaysAllow']);
    expect(validateAuthorizationFlags(parseFlags(['--authorization-mode=Node,RBAC']))).toEqual(['Node', 'RBAC']);
  });

  it('[AC-AUTHZ-039] --authorization-config with --authorization-mode is an error', () => {
    expect(() => validateAuthorizationFlags(parseFlags(['--authorization-mode=RBAC', '--authorization-config=/x.yaml']))).toThrow(
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    );
  });

  it('bad mode lists fail the way kube-apiserver validates them', () => {
    expect(() => validateAuthorizationFlags({ authorizationModes: 'RBAC,Magic' })).toThrow('authorization-mode "Magic" is not a valid mode');
    expect(() => validateAuthorizationFlags({ authorizationModes: 'RBAC,RBAC' })).toThrow('authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
    expect(() => validateAuthorizationFlags({ authorizationModes: 'ABAC' })).toThrow("authorization-mode ABAC's authorization policy file not passed");
    expect(() => validateAuthorizationFlags({ authorizationPolicyFile: '/p.jsonl' })).toThrow('cannot specify --authorization-policy-file without mode ABAC');
    expect(() => validateAuthorizationFlags({ authorizationModes: 'Webhook' })).toThrow("authorization-mode Webhook's authorization config file not passed");
    expect(() => validateAuthorizationFlags({ authorizationWebhookConfigFile: '/w' })).toThrow('cannot specify --authorization-webhook-config-file without mode Webhook');
  });

  it('[AC-AUTHZ-064] the Webhook mode\'s flags parse; they cannot join --authorization-config', () => {
    const f = parseFlags(['--authorization-mode=Webhook,RBAC', '--authorization-webhook-config-file=/w.kubeconfig', '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=1m', '--authorization-webhook-cache-unauthorized-ttl=5s']);
    expect(f).toMatchObject({ authorizationWebhookConfigFile: '/w.kubeconfig', authorizationWebhookVersion: 'v1', authorizationWebhookCacheAuthorizedTTL: '1m', authorizationWebhookCacheUnauthorizedTTL: '5s' });
    expect(validateAuthorizationFlags(f)).toEqual(['Webhook', 'RBAC']);
    expect(() => validateAuthorizationFlags({ authorizationConfig: '/c.yaml', authorizationWebhookVersion: 'v1' })).toThrow('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  });
});

describe('--authorization-config', () => {
  const file = (authorizers: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
${authorizers}`;
  const rbac = '- type: RBAC\n  name: rbac\n';
  const node = '- type: Node\n  name: node\n';
  const hook = (policy: string) => `- type: Webhook
  name: hook
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${policy}
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: hook.kubeconfig}
`;

  it('[AC-AUTHZ-065][AC-AUTHZ-066] reloads webhook changes; adding or removing Node or RBAC is rejected and the old chain kept', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { reloadingConfigAuthorizer } = await import('./authorization');
    const dir = mkdtempSync(join(tmpdir(), 'authz-config-'));
    writeFileSync(join(dir, 'hook.kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    const path = join(dir, 'authz.yaml');
    writeFileSync(path, file(rbac + hook('NoOpinion')).replace('hook.kubeconfig', join(dir, 'hook.kubeconfig')));
    const errors: string[] = [];
    const r = reloadingConfigAuthorizer(path, (e) => errors.push(e.message));
    try {
      writeFileSync(path, file(hook('Deny') + rbac).replace('hook.kubeconfig', join(dir, 'hook.kubeconfig')));
      expect(r.reload()).toBe(true);
      writeFileSync(path, file(node + rbac).replace('hook.kubeconfig', join(dir, 'hook.kubeconfig')));
      expect(r.reload()).toBe(false);
      expect(errors.at(-1)).toBe('Node and RBAC authorizers cannot be added or removed on reload');
      writeFileSync(path, file('- type: RBAC\n'));
      expect(r.reload()).toBe(false);
      expect(errors.at(-1)).toBe('authorizers[0].name: Required value');
    } finally {
      r.stop();
    }
  });
});

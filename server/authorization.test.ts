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

  it('[AC-AUTHZ-041] failure policies, match conditions and a second webhook exist only in the configuration file', () => {
    for (const flag of ['--authorization-webhook-failure-policy=Deny', '--authorization-webhook-match-conditions=x', '--authorization-webhook-name=second']) {
      expect(() => parseFlags([flag])).toThrow(`unknown flag: ${flag.split('=')[0]}`);
    }
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

describe('--authorization-config defaults, through a host-loaded file and a live webhook', () => {
  const withStub = async (body: (path: string, calls: () => number) => Promise<void>) => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createServer } = await import('node:http');
    let calls = 0;
    const stub = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        calls++;
        const review = JSON.parse(text);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed: review.spec.user === 'alice' } }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const port = (stub.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'authz-ttl-'));
    writeFileSync(join(dir, 'hook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}/"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
    const path = join(dir, 'authz.yaml');
    // No authorizedTTL or unauthorizedTTL: the defaults apply.
    writeFileSync(path, `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: hook\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${join(dir, 'hook.kubeconfig')}}\n`);
    try {
      await body(path, () => calls);
    } finally {
      await new Promise((r) => stub.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('[AC-LIM-005][AC-LIM-006] allow answers are cached for 5m0s, deny answers for 30s', async () => {
    const { vi } = await import('vitest');
    const { hostAuthorization } = await import('./authorization');
    const { newTestServer } = await import('../src/core/testing/client');
    const { asUser, headerAuthenticator } = await import('../src/core/auth/authorizer/testing');
    await withStub(async (path, calls) => {
      vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
      const authz = hostAuthorization({ authorizationConfig: path });
      try {
        const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authz.authorizer });
        const get = async (user: string) => (await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: asUser(user) })).status;
        expect(await get('alice')).toBe(200);
        expect(calls()).toBe(1);
        vi.advanceTimersByTime(5 * 60_000 - 1);
        expect(await get('alice')).toBe(200);
        expect(calls()).toBe(1);
        vi.advanceTimersByTime(1);
        expect(await get('alice')).toBe(200);
        expect(calls()).toBe(2);
        expect(await get('bob')).toBe(403);
        expect(calls()).toBe(3);
        vi.advanceTimersByTime(30_000 - 1);
        expect(await get('bob')).toBe(403);
        expect(calls()).toBe(3);
        vi.advanceTimersByTime(1);
        expect(await get('bob')).toBe(403);
        expect(calls()).toBe(4);
      } finally {
        authz.stop();
        vi.useRealTimers();
      }
    });
  });

  it('[AC-LIM-008] the file is read again every 60 seconds', async () => {
    const { vi } = await import('vitest');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const { reloadingConfigAuthorizer } = await import('./authorization');
    await withStub(async (path) => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const errors: string[] = [];
      const r = reloadingConfigAuthorizer(path, (e) => errors.push(e.message));
      try {
        // A change the reload must reject shows when the file was read; nothing awaits, so only the timer can read it.
        writeFileSync(path, `${readFileSync(path, 'utf8')}- type: Node\n  name: node\n`);
        vi.advanceTimersByTime(59_999);
        expect(errors).toEqual([]);
        vi.advanceTimersByTime(1);
        expect(errors).toEqual(['Node and RBAC authorizers cannot be added or removed on reload']);
        vi.advanceTimersByTime(60_000);
        expect(errors).toHaveLength(2);
      } finally {
        r.stop();
        vi.useRealTimers();
      }
    });
  });
});

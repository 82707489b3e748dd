/** Real kubectl over the Node host's TLS port: the admin token of the written kubeconfig, --token, whoami. */
import { createServer } from 'node:http';
import { createServer as createHttpsServer, get as httpsGet } from 'node:https';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';
import { run, startTestHost, type TestHost } from './support/host';

let t: TestHost;
const dir = mkdtempSync(join(tmpdir(), 'kubesim-authn-'));
const tokenFile = join(dir, 'tokens.csv');
type Pem = { cert: string; private: string };
let clientCa: Pem;

async function issue(subject: { name: string; value: string }[], ca: Pem): Promise<Pem> {
  return generate(subject, {
    keySize: 2048, algorithm: 'sha256', ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', clientAuth: true }],
  });
}
async function authority(cn: string): Promise<Pem> {
  return generate([{ name: 'commonName', value: cn }], { keySize: 2048, algorithm: 'sha256', extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true }] });
}

beforeAll(async () => {
  writeFileSync(tokenFile, 'admintoken,kubesim-admin,a-1,system:masters\nalicetoken,alice,u-1,"dev,ops"\n');
  clientCa = await authority('client-ca');
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.cert);
  t = await startTestHost({ tls: true, authn: { tokenAuthFile: tokenFile, clientCaFile: join(dir, 'client-ca.crt') } });
});
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubectl with bearer tokens', () => {
  it('[AC-REV-035] [AC-AUTHN-009] the written kubeconfig authenticates as the admin of the token file', async () => {
    expect(readFileSync(t.host.kubeconfigPath, 'utf8')).toContain('token: admintoken');
    const w = await t.kubectl(['auth', 'whoami', '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'kubesim-admin', uid: 'a-1', groups: ['system:masters', 'system:authenticated'] });
  });

  it('[AC-AUTHN-030] [AC-AUTHN-031] [AC-REV-014] --token of another row: whoami shows its user, uid and groups', async () => {
    const w = await t.kubectl(['auth', 'whoami', '--token=alicetoken']);
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/Username\s+alice\n/);
    expect(w.stdout).toMatch(/UID\s+u-1\n/);
    expect(w.stdout).toMatch(/Groups\s+\[dev ops system:authenticated\]/);
  });

  it('[AC-AUTHN-034] a bearer token travels as an HTTP header value: characters a header value cannot hold are refused before authentication', async () => {
    const raw = (token: string) => new Promise<string>((resolve, reject) => {
      const url = new URL(t.host.url);
      const body = '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}';
      const head = `POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const c = connect(Number(url.port), url.hostname, () => c.write(head + body));
      let out = '';
      c.on('data', (d) => (out += d));
      c.on('close', () => resolve(out));
      c.on('error', reject);
    });
    const ok = await raw('alicetoken');
    expect(ok.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(ok).toContain('"username":"alice"');
    expect((await raw('alice\x01token')).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    // Clients refuse to send such a value at all.
    expect(() => new Headers({ authorization: 'Bearer alice\ntoken' })).toThrow(TypeError);
  });

  it('[AC-AUTHN-117] an unknown token is refused with 401', async () => {
    const r = await t.kubectl(['get', 'ns', '--token=wrong']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server (the server has asked for the client to provide credentials)');
  });
});

describe('static token file lifetime', () => {
  it('[AC-AUTHN-032] a token added to the file authenticates only after the server restarts', async () => {
    const file = join(dir, 'restart-tokens.csv');
    writeFileSync(file, 'admintoken,kubesim-admin,a-1,system:masters\n');
    const flags = { port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'restart-data'), store: 'memory' as const, tls: true, securePort: 0, help: false, authn: { tokenAuthFile: file } };
    const kubectlAt = (h: RunningHost, token: string) => run('kubectl', ['auth', 'whoami', '-o', 'json', `--token=${token}`], { HOME: join(dir, 'restart-home'), KUBECONFIG: h.kubeconfigPath });
    let h = await startHost(flags);
    try {
      writeFileSync(file, 'admintoken,kubesim-admin,a-1,system:masters\nnewtoken,newcomer,n-1\n');
      // Longer than any file polling would take.
      await new Promise((r) => setTimeout(r, 1500));
      const before = await kubectlAt(h, 'newtoken');
      expect(before.code).not.toBe(0);
      expect(before.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
      await h.close();
      h = await startHost(flags);
      const after = await kubectlAt(h, 'newtoken');
      expect(after.stderr).toBe('');
      expect(JSON.parse(after.stdout).status.userInfo.username).toBe('newcomer');
    } finally {
      await h.close();
    }
  });
});

describe('kubectl impersonation', () => {
  it('[AC-IMP-012] [AC-IMP-013] [AC-IMP-001] --as and --as-group: whoami shows the impersonated identity', async () => {
    const w = await t.kubectl(['auth', 'whoami', '--as=bob', '--as-group=g1', '--as-group=g2', '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'bob', groups: ['g1', 'g2', 'system:authenticated'] });
  });

  it('[AC-IMP-014] kubectl has no flag for impersonated extras (its --as-uid, added after the spec, sets the uid)', async () => {
    const extra = await t.kubectl(['auth', 'whoami', '--as=bob', '--as-extra=scopes=view']);
    expect(extra.code).not.toBe(0);
    expect(extra.stderr).toContain('unknown flag: --as-extra');
    const w = await t.kubectl(['auth', 'whoami', '--as=bob', '--as-uid=u9', '-o', 'json']);
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'bob', uid: 'u9', groups: ['system:authenticated'] });
  });
});

describe('service account tokens', () => {
  it('[AC-AUTHN-044] [AC-AUTHN-035] [AC-AUTHN-040] [AC-AUTHN-041] kubectl create token: the token authenticates as the account', async () => {
    expect((await t.kubectl(['create', 'serviceaccount', 'sa1'])).stdout.trim()).toBe('serviceaccount/sa1 created');
    const c = await t.kubectl(['create', 'token', 'sa1', '--duration=20m', '--audience=https://kubernetes.default.svc.cluster.local']);
    expect(c.stderr).toBe('');
    const token = c.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const w = await t.kubectl(['auth', 'whoami', `--token=${token}`, '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toMatchObject({
      username: 'system:serviceaccount:default:sa1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    // A token bound to a Pod: revoked with the Pod.
    await t.kubectl(['run', 'p1', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"sa1"}}']);
    const bound = (await t.kubectl(['create', 'token', 'sa1', '--bound-object-kind=Pod', '--bound-object-name=p1'])).stdout.trim();
    expect(JSON.parse((await t.kubectl(['auth', 'whoami', `--token=${bound}`, '-o', 'json'])).stdout).status.userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['p1']);
    await t.kubectl(['delete', 'pod', 'p1', '--grace-period=0', '--force']);
    expect((await t.kubectl(['auth', 'whoami', `--token=${bound}`])).code).not.toBe(0);
    const missing = await t.kubectl(['create', 'token', 'nope']);
    expect(missing.stderr.trim()).toBe('error: failed to create token: serviceaccounts "nope" not found');
  });

  it('[AC-AUTHN-045] a legacy token Secret gets a token, the namespace and the cluster CA; kubectl uses its token', async () => {
    const created = await t.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: sa1-token\n  annotations: {kubernetes.io/service-account.name: sa1}\ntype: kubernetes.io/service-account-token\n');
    expect(created.stderr).toBe('');
    let data: Record<string, string> = {};
    for (let i = 0; i < 40 && !data['token']; i++) {
      data = JSON.parse((await t.kubectl(['get', 'secret', 'sa1-token', '-o', 'json'])).stdout).data ?? {};
      if (!data['token']) await new Promise((r) => setTimeout(r, 100));
    }
    expect(Buffer.from(data['ca.crt']!, 'base64').toString()).toContain('-----BEGIN CERTIFICATE-----');
    expect(Buffer.from(data['namespace']!, 'base64').toString()).toBe('default');
    const token = Buffer.from(data['token']!, 'base64').toString();
    const w = await t.kubectl(['auth', 'whoami', `--token=${token}`, '-o', 'json']);
    expect(JSON.parse(w.stdout).status.userInfo.username).toBe('system:serviceaccount:default:sa1');
  });

  it('[AC-REV-003] @kubernetes/client-node with a service account token: requests and a TokenReview', async () => {
    const token = (await t.kubectl(['create', 'token', 'sa1'])).stdout.trim();
    const kc = new KubeConfig();
    kc.loadFromFile(t.host.kubeconfigPath);
    const admin = kc.makeApiClient(AuthenticationV1Api);
    const review = await admin.createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe('system:serviceaccount:default:sa1');
    const asSa = new KubeConfig();
    asSa.loadFromOptions({
      clusters: [{ name: 'c', server: t.host.secureUrl!, caData: kc.getCurrentCluster()!.caData }],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const ns = await asSa.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
    const bad = new KubeConfig();
    bad.loadFromOptions({ ...JSON.parse(JSON.stringify({ clusters: asSa.clusters, contexts: asSa.contexts, currentContext: 'x' })), users: [{ name: 'u', token: 'x' + token }] });
    await expect(bad.makeApiClient(CoreV1Api).readNamespace({ name: 'default' })).rejects.toMatchObject({ code: 401 });
  });
});

describe('client certificates', () => {
  /** A kubeconfig for the host's TLS port whose user is a client certificate. */
  function certKubeconfig(name: string, pem: Pem): string {
    const kc = readFileSync(t.host.kubeconfigPath, 'utf8').replace(/users:[\s\S]*$/, '');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, `${kc}users:\n- name: kubesim-admin\n  user:\n    client-certificate-data: ${b64(pem.cert)}\n    client-key-data: ${b64(pem.private)}\n`);
    return path;
  }

  it('[AC-AUTHN-021] [AC-AUTHN-027] [AC-AUTHN-028] [AC-AUTHN-029] kubectl with a client certificate: CN is the user, each O a group', async () => {
    const jane = await issue([{ name: 'commonName', value: 'jane' }, { name: 'organizationName', value: 'dev' }, { name: 'organizationName', value: 'ops' }], clientCa);
    const w = await t.kubectl(['auth', 'whoami', '-o', 'json', `--kubeconfig=${certKubeconfig('jane', jane)}`]);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('a certificate from an authority outside --client-ca-file is refused', async () => {
    const mallory = await issue([{ name: 'commonName', value: 'mallory' }], await authority('other-ca'));
    const r = await t.kubectl(['get', 'ns', `--kubeconfig=${certKubeconfig('mallory', mallory)}`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server');
  });
});

describe('webhook token authentication', () => {
  it('[AC-AUTHN-104] [AC-AUTHN-107] [AC-AUTHN-108] kubectl --token is reviewed by the remote service named in the webhook kubeconfig', async () => {
    const reviews: Record<string, any>[] = [];
    const stub = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const review = JSON.parse(body);
        reviews.push(review);
        const authenticated = review.spec.token === 'webhook-token';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: authenticated ? { authenticated, user: { username: 'remote-user', groups: ['remote'] } } : { authenticated } }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const config = join(dir, 'webhook.kubeconfig');
    writeFileSync(config, `apiVersion: v1\nkind: Config\nclusters:\n- name: remote\n  cluster:\n    server: http://127.0.0.1:${(stub.address() as AddressInfo).port}/review\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: webhook\n  context: {cluster: remote, user: apiserver}\ncurrent-context: webhook\n`);
    const h = await startTestHost({ tls: true, authn: { webhookConfigFile: config } });
    try {
      const w = await h.kubectl(['auth', 'whoami', '--token=webhook-token', '-o', 'json']);
      expect(w.stderr).toBe('');
      expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'remote-user', groups: ['remote', 'system:authenticated'] });
      expect(reviews[0]).toMatchObject({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 'webhook-token' } });
      const bad = await h.kubectl(['get', 'ns', '--token=other']);
      expect(bad.stderr).toContain('error: You must be logged in to the server');
    } finally {
      await h.stop();
      stub.close();
    }
  });
});

describe('OpenID Connect through --authentication-config', () => {
  it('[AC-AUTHN-065] [AC-AUTHN-047] [AC-AUTHN-078] [AC-AUTHN-046] [AC-AUTHN-067] [AC-AUTHN-103] kubectl --token with an id_token of a local issuer: keys by discovery over its private CA', async () => {
    const ca = await authority('idp-ca');
    const serving = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048, algorithm: 'sha256', ca: { key: ca.private, cert: ca.cert },
      extensions: [{ name: 'basicConstraints', cA: false }, { name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    let issuerUrl = '';
    const idp = createHttpsServer({ key: serving.private, cert: serving.cert }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/keys` }));
      else res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    issuerUrl = `https://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const config = join(dir, 'authn-config.yaml');
    writeFileSync(config, JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration',
      jwt: [{
        issuer: { url: issuerUrl, audiences: ['kubesim'], certificateAuthority: ca.cert },
        claimMappings: { username: { claim: 'email', prefix: '' }, groups: { expression: 'claims.roles' } },
        claimValidationRules: [{ expression: 'claims.email_verified == true' }],
      }],
    }));
    const h = await startTestHost({ tls: true, authn: { authenticationConfig: config } });
    try {
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({ email: 'jane@example.com', email_verified: true, roles: ['dev'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuerUrl).setAudience('kubesim').setSubject('u1').setIssuedAt(now).setExpirationTime(now + 300).sign(privateKey);
      const w = await h.kubectl(['auth', 'whoami', `--token=${idToken}`, '-o', 'json']);
      expect(w.stderr).toBe('');
      expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'jane@example.com', groups: ['dev', 'system:authenticated'] });
      const unverified = await new SignJWT({ email: 'x@example.com', email_verified: false })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuerUrl).setAudience('kubesim').setExpirationTime(now + 300).sign(privateKey);
      expect((await h.kubectl(['get', 'ns', `--token=${unverified}`])).stderr).toContain('error: You must be logged in to the server');

      // [AC-AUTHN-067] [AC-AUTHN-103] a changed file applies without a restart.
      const forOther = await new SignJWT({ email: 'jane@example.com', email_verified: true, roles: [] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuerUrl).setAudience('other').setExpirationTime(now + 300).sign(privateKey);
      expect((await h.kubectl(['get', 'ns', `--token=${forOther}`])).code).not.toBe(0);
      writeFileSync(config, readFileSync(config, 'utf8').replace('"audiences":["kubesim"]', '"audiences":["other"]'));
      let reloaded = false;
      for (let i = 0; i < 60 && !reloaded; i++) {
        reloaded = (await h.kubectl(['auth', 'whoami', `--token=${forOther}`])).code === 0;
        if (!reloaded) await new Promise((r) => setTimeout(r, 250));
      }
      expect(reloaded).toBe(true);
      expect((await h.kubectl(['get', 'ns', `--token=${idToken}`])).code).not.toBe(0);
    } finally {
      await h.stop();
      idp.close();
    }
  });

  it('[AC-AUTHN-068] [AC-ERR-007] [AC-AUTHN-053] conflicting or invalid options stop the server at start', async () => {
    const config = join(dir, 'empty-authn.yaml');
    writeFileSync(config, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n');
    await expect(startTestHost({ authn: { authenticationConfig: config, oidcIssuerUrl: 'https://idp', oidcClientId: 'x' } })).rejects.toThrow('authentication-config file and oidc-* flags are mutually exclusive');
    await expect(startTestHost({ authn: { oidcIssuerUrl: 'http://idp', oidcClientId: 'x' } })).rejects.toThrow('jwt[0].issuer.url: Invalid value: "http://idp": URL scheme must be https');
    await expect(startTestHost({ authn: { oidcIssuerUrl: 'https://idp', oidcClientId: 'x', oidcSigningAlgs: ['HS256'] } })).rejects.toThrow('unsupported signing algorithm "HS256"');
  });
});

describe('client credential plugins', () => {
  it('[AC-AUTHN-014] [AC-AUTHN-123] [AC-AUTHN-126] [AC-AUTHN-127] [AC-AUTHN-129] [AC-AUTHN-134] an exec plugin (relative command, env, args) prints an ExecCredential whose token kubectl sends', async () => {
    const plugin = join(dir, 'plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\necho "$KUBERNETES_EXEC_INFO" > "${dir}/exec-info.json"\necho "$FOO $1" > "${dir}/exec-args.txt"\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"alicetoken"}}'\n`, { mode: 0o755 });
    const kc = readFileSync(t.host.kubeconfigPath, 'utf8').replace(/users:[\s\S]*$/, '');
    const path = join(dir, 'exec.kubeconfig');
    writeFileSync(path, `${kc}users:\n- name: kubesim-admin\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin.sh\n      args: [--x]\n      env: [{name: FOO, value: bar}]\n      interactiveMode: Never\n      provideClusterInfo: true\n`);
    const w = await t.kubectl(['auth', 'whoami', '-o', 'json', `--kubeconfig=${path}`]);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo.username).toBe('alice');
    const info = JSON.parse(readFileSync(join(dir, 'exec-info.json'), 'utf8'));
    expect(info).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { cluster: { server: t.host.secureUrl }, interactive: false } });
    expect(info.spec.cluster['certificate-authority-data']).toBeTruthy();
    expect(readFileSync(join(dir, 'exec-args.txt'), 'utf8').trim()).toBe('bar --x');
  });
});

describe('client credential plugin configuration errors', () => {
  function execKubeconfig(name: string, exec: string): string {
    const kc = readFileSync(t.host.kubeconfigPath, 'utf8').replace(/users:[\s\S]*$/, '');
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, `${kc}users:\n- name: kubesim-admin\n  user:\n    exec:\n${exec}`);
    return path;
  }

  it('[AC-AUTHN-125] [AC-AUTHN-131] [AC-AUTHN-128] output in another apiVersion, v1 without interactiveMode, a missing command with its installHint', async () => {
    const v1beta1 = join(dir, 'v1beta1.sh');
    writeFileSync(v1beta1, `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"alicetoken"}}'\n`, { mode: 0o755 });
    const wrong = await t.kubectl(['get', 'ns', `--kubeconfig=${execKubeconfig('wrong', `      apiVersion: client.authentication.k8s.io/v1\n      command: ${v1beta1}\n      interactiveMode: Never\n`)}`]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1');
    const noMode = await t.kubectl(['get', 'ns', `--kubeconfig=${execKubeconfig('nomode', `      apiVersion: client.authentication.k8s.io/v1\n      command: ${v1beta1}\n`)}`]);
    expect(noMode.code).not.toBe(0);
    expect(noMode.stderr).toContain('interactiveMode must be specified');
    const missing = await t.kubectl(['get', 'ns', `--kubeconfig=${execKubeconfig('missing', `      apiVersion: client.authentication.k8s.io/v1\n      command: nonexistent-kubesim-plugin\n      interactiveMode: Never\n      installHint: install X\n`)}`]);
    expect(missing.stderr).toContain('install X');
  });
});

describe('service account keys from files', () => {
  it('[AC-AUTHN-036] [AC-AUTHN-037] an ECDSA signing key signs ES256 tokens; the public keys of --service-account-key-file verify', async () => {
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const extra = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(join(dir, 'sa-signing.key'), signing.privateKey.export({ format: 'pem', type: 'pkcs8' }));
    writeFileSync(join(dir, 'sa.pub'), `${signing.publicKey.export({ format: 'pem', type: 'spki' })}${extra.publicKey.export({ format: 'pem', type: 'spki' })}`);
    const h = await startTestHost({ tls: true, authn: { serviceAccountSigningKeyFile: join(dir, 'sa-signing.key'), serviceAccountKeyFiles: [join(dir, 'sa.pub')], serviceAccountIssuers: ['https://issuer.example'] } });
    try {
      await h.kubectl(['create', 'serviceaccount', 'sa2']);
      const token = (await h.kubectl(['create', 'token', 'sa2'])).stdout.trim();
      expect(decodeProtectedHeader(token).alg).toBe('ES256');
      expect(decodeJwt(token)).toMatchObject({ iss: 'https://issuer.example', aud: ['https://issuer.example'] });
      await expect(compactVerify(token, signing.publicKey)).resolves.toBeTruthy();
      // A token signed by the other listed key is accepted too.
      const claims = decodeJwt(token);
      const other = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(extra.privateKey);
      expect(JSON.parse((await h.kubectl(['auth', 'whoami', `--token=${other}`, '-o', 'json'])).stdout).status.userInfo.username).toBe('system:serviceaccount:default:sa2');
      const jwks = JSON.parse((await h.kubectl(['get', '--raw', '/openid/v1/jwks'])).stdout);
      expect(jwks.keys.map((k: { alg: string }) => k.alg)).toEqual(['ES256', 'ES256']);
    } finally {
      await h.stop();
    }
  });
});

describe('--tls-private-key-file', () => {
  it('[AC-AUTHN-038] without --service-account-key-file the serving key verifies service account tokens', async () => {
    const serving = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048, algorithm: 'sha256',
      extensions: [{ name: 'basicConstraints', cA: false }, { name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    writeFileSync(join(dir, 'serving.crt'), serving.cert);
    writeFileSync(join(dir, 'serving.key'), serving.private);
    const h = await startTestHost({ tls: true, flags: { tlsCertFile: join(dir, 'serving.crt'), tlsPrivateKeyFile: join(dir, 'serving.key') } });
    try {
      // kubectl trusts exactly the given certificate: the host serves it.
      expect((await h.kubectl(['create', 'serviceaccount', 'robot'])).stderr).toBe('');
      const claims = decodeJwt((await h.kubectl(['create', 'token', 'robot'])).stdout.trim());
      const byServingKey = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(createPrivateKey(serving.private));
      const w = await h.kubectl(['auth', 'whoami', `--token=${byServingKey}`, '-o', 'json']);
      expect(w.stderr).toBe('');
      expect(JSON.parse(w.stdout).status.userInfo.username).toBe('system:serviceaccount:default:robot');
      // Another key does not verify.
      const stranger = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
      expect((await h.kubectl(['auth', 'whoami', `--token=${stranger}`])).stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    } finally {
      await h.stop();
    }
  });
});

describe('bootstrap tokens on the Node host', () => {
  it('[AC-BOOT-009] [AC-BOOT-014] [AC-BOOT-015] [AC-BOOT-022] [AC-BOOT-025] [AC-BOOT-026] [AC-BOOT-027] [AC-BOOT-028] a bootstrap token (Bearer <id>.<secret>) authenticates kubectl as system:bootstrap:<id> in system:bootstrappers and its extra groups; cluster-info is published, signed and readable without credentials', async () => {
    const h = await startTestHost({ tls: true, authn: { enableBootstrapTokenAuth: true, controllers: ['*', 'bootstrapsigner', 'tokencleaner'] } });
    try {
      const secret = 'apiVersion: v1\nkind: Secret\nmetadata: {name: bootstrap-token-abcdef, namespace: kube-system}\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: abcdef\n  token-secret: 0123456789abcdef\n  usage-bootstrap-authentication: "true"\n  usage-bootstrap-signing: "true"\n  auth-extra-groups: system:bootstrappers:worker\n';
      expect((await h.kubectl(['apply', '-f', '-'], secret)).stderr).toBe('');
      const w = await h.kubectl(['auth', 'whoami', '--token=abcdef.0123456789abcdef', '-o', 'json']);
      expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'] });
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(readFileSync(h.host.kubeconfigPath, 'utf8'))![1]!, 'base64').toString();
      const anonymousGet = () => new Promise<{ status: number; body: any }>((resolve, reject) => {
        httpsGet(`${h.host.secureUrl}/api/v1/namespaces/kube-public/configmaps/cluster-info`, { ca }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        }).on('error', reject);
      });
      let cm = await anonymousGet();
      for (let i = 0; i < 40 && !cm.body.data?.['jws-kubeconfig-abcdef']; i++) {
        await new Promise((r) => setTimeout(r, 100));
        cm = await anonymousGet();
      }
      expect(cm.status).toBe(200);
      expect(cm.body.data.kubeconfig).toContain(`server: ${h.host.secureUrl}`);
      expect(cm.body.data['jws-kubeconfig-abcdef']).toMatch(/^[\w-]+\.\.[\w-]+$/);
    } finally {
      await h.stop();
    }
  });

  it('[AC-BOOT-023] without --enable-bootstrap-token-auth the same token is 401', async () => {
    const secret = 'apiVersion: v1\nkind: Secret\nmetadata: {name: bootstrap-token-ghijkl, namespace: kube-system}\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: ghijkl\n  token-secret: 0123456789abcdef\n  usage-bootstrap-authentication: "true"\n';
    expect((await t.kubectl(['apply', '-f', '-'], secret)).stderr).toBe('');
    const w = await t.kubectl(['auth', 'whoami', '--token=ghijkl.0123456789abcdef']);
    expect(w.code).not.toBe(0);
    expect(w.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  it('[AC-BOOT-024] the tokencleaner controller deletes an expired bootstrap token Secret', async () => {
    const h = await startTestHost({ authn: { enableBootstrapTokenAuth: true, controllers: ['*', 'tokencleaner'] } });
    try {
      const secret = (id: string, expiration: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: bootstrap-token-${id}, namespace: kube-system}\ntype: bootstrap.kubernetes.io/token\nstringData:\n  token-id: ${id}\n  token-secret: 0123456789abcdef\n  usage-bootstrap-authentication: "true"\n  expiration: "${expiration}"\n`;
      expect((await h.kubectl(['apply', '-f', '-'], secret('expird', '2001-01-01T00:00:00Z') + '---\n' + secret('future', '2199-01-01T00:00:00Z'))).stderr).toBe('');
      let names = '';
      for (let i = 0; i < 100; i++) {
        names = (await h.kubectl(['get', 'secrets', '-n', 'kube-system', '-o', 'name'])).stdout;
        if (!names.includes('bootstrap-token-expird')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(names).not.toContain('secret/bootstrap-token-expird');
      expect(names).toContain('secret/bootstrap-token-future');
    } finally {
      await h.stop();
    }
  });
});


/** The host's cluster signing CA: flags, files in any PEM key form Node reads, the generated CA reused. */
import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from './flags';
import { hostClusterSigning } from './clusterSigning';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-cluster-signing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cluster signing flags', () => {
  it('parses kube-controller-manager\'s common flags', () => {
    expect(parseFlags(['--cluster-signing-cert-file=/pki/ca.crt', '--cluster-signing-key-file', '/pki/ca.key', '--cluster-signing-duration=720h']).clusterSigning).toEqual({
      certFile: '/pki/ca.crt', keyFile: '/pki/ca.key', durationMs: 720 * 3600_000,
    });
    expect(() => parseFlags(['--cluster-signing-duration=soon'])).toThrow('invalid argument "soon" for "--cluster-signing-duration" flag: time: invalid duration "soon"');
  });

  it('without files: none over plain HTTP; with --tls the generated CA, reused, and the default client CA', async () => {
    expect(await hostClusterSigning(join(dir, 'plain'), false)).toBeUndefined();
    const first = await hostClusterSigning(join(dir, 'tls'), true, { durationMs: 60_000 });
    expect(first?.generatedCertFile).toBe(join(dir, 'tls', 'pki', 'ca.crt'));
    expect(first?.durationMs).toBe(60_000);
    expect(new X509Certificate(first!.ca!.certificate).ca).toBe(true);
    expect(readFileSync(join(dir, 'tls', 'pki', 'ca.key'), 'utf8')).toBe(first!.ca!.privateKey);
    expect((await hostClusterSigning(join(dir, 'tls'), true))?.ca).toEqual(first!.ca);
  });

  it('files: both or neither; the key may be PKCS#1 and must match the certificate', async () => {
    await expect(hostClusterSigning(dir, true, { certFile: '/x' })).rejects.toThrow('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
    const ca = (await hostClusterSigning(join(dir, 'files'), true))!.ca!;
    writeFileSync(join(dir, 'ca.crt'), ca.certificate);
    // The key as `openssl genrsa` writes it (PKCS#1) comes back as the PKCS#8 the core imports.
    writeFileSync(join(dir, 'ca.key'), createPrivateKey(ca.privateKey).export({ type: 'pkcs1', format: 'pem' }));
    const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' });
    writeFileSync(join(dir, 'other.key'), pkcs1);
    const fromFiles = await hostClusterSigning(join(dir, 'unused'), false, { certFile: join(dir, 'ca.crt'), keyFile: join(dir, 'ca.key') });
    expect(fromFiles).toEqual({ ca, durationMs: undefined });
    await expect(hostClusterSigning(dir, false, { certFile: join(dir, 'ca.crt'), keyFile: join(dir, 'other.key') })).rejects.toThrow(
      `error reading CA cert file "${join(dir, 'ca.crt')}": tls: private key does not match public key`,
    );
    writeFileSync(join(dir, 'two.crt'), ca.certificate + ca.certificate);
    await expect(hostClusterSigning(dir, false, { certFile: join(dir, 'two.crt'), keyFile: join(dir, 'ca.key') })).rejects.toThrow('expected 1 certificate, found 2');
  });

  it('per signer: one CA each, not with the common pair, each with its key', async () => {
    const flags = parseFlags(['--cluster-signing-kube-apiserver-client-cert-file=/a.crt', '--cluster-signing-kube-apiserver-client-key-file=/a.key', '--cluster-signing-kubelet-serving-cert-file=/s.crt']).clusterSigning;
    expect(flags).toEqual({ signers: { 'kubernetes.io/kube-apiserver-client': { certFile: '/a.crt', keyFile: '/a.key' }, 'kubernetes.io/kubelet-serving': { certFile: '/s.crt' } } });
    await expect(hostClusterSigning(dir, true, flags)).rejects.toThrow('"cluster-signing-kubelet-serving": cannot specify key without cert or cert without key');
    await expect(hostClusterSigning(dir, true, { ...flags, certFile: '/c.crt', keyFile: '/c.key' })).rejects.toThrow(
      'cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time',
    );
    const client = await hostClusterSigning(dir, true, { signers: { 'kubernetes.io/kube-apiserver-client': { certFile: join(dir, 'ca.crt'), keyFile: join(dir, 'ca.key') } } });
    expect(Object.keys(client!.signerCAs!)).toEqual(['kubernetes.io/kube-apiserver-client']);
    expect(client!.ca).toBeUndefined();
  });
});

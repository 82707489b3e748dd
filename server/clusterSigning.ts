/**
 * The cluster signing CA of the csrsigning controller, with
 * kube-controller-manager's flags: --cluster-signing-cert-file and
 * --cluster-signing-key-file name a CA (its key in any PEM form Node reads),
 * or --cluster-signing-<signer>-cert-file and -key-file one per signer;
 * --cluster-signing-duration caps issued certificates (default 8760h0m0s).
 * Without the files and with --tls the host does what kubeadm does: one
 * cluster CA, generated once into --data-dir/pki (ca.crt, ca.key) and reused,
 * signs the serving certificate and the approved requests, and is the
 * default --client-ca-file, so an issued certificate authenticates.
 */
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateClusterCA, type ClusterSigningCA } from '../src/core';

export interface ClusterSigningFlags {
  certFile?: string;
  keyFile?: string;
  /** --cluster-signing-<signer>-cert-file / -key-file, by signer name. */
  signers?: Record<string, { certFile?: string; keyFile?: string }>;
  /** --cluster-signing-duration in ms. */
  durationMs?: number;
}

/** The per-signer flags' infixes (--cluster-signing-<infix>-cert-file) and the signers they configure. */
const signerFlags: Record<string, string> = {
  'kubelet-serving': 'kubernetes.io/kubelet-serving',
  'kubelet-client': 'kubernetes.io/kube-apiserver-client-kubelet',
  'kube-apiserver-client': 'kubernetes.io/kube-apiserver-client',
  'legacy-unknown': 'kubernetes.io/legacy-unknown',
};

export const clusterSigningFlagNames = new Set([
  'cluster-signing-cert-file', 'cluster-signing-key-file', 'cluster-signing-duration',
  ...Object.keys(signerFlags).flatMap((infix) => [`cluster-signing-${infix}-cert-file`, `cluster-signing-${infix}-key-file`]),
]);

export const clusterSigningFlagHelp = `      --cluster-signing-cert-file string  CA certificate (PEM) the csrsigning controller issues approved kubernetes.io requests with;
                                       without it (and with --tls) a cluster CA is generated into --data-dir/pki and is the default --client-ca-file
      --cluster-signing-key-file string   its private key (PEM)
      --cluster-signing-{kubelet-serving,kubelet-client,kube-apiserver-client,legacy-unknown}-{cert,key}-file string
                                       one signer's CA instead (not with --cluster-signing-cert-file); signers without one are not run
      --cluster-signing-duration duration  longest lifetime of an issued certificate (default 8760h0m0s)
`;

/** One --cluster-signing-* flag into flags; false when the name is not one of them. */
export function parseClusterSigningFlag(flags: ClusterSigningFlags, name: string, value: string, duration: (value: string, flag: string) => number): boolean {
  if (name === 'cluster-signing-cert-file') flags.certFile = value;
  else if (name === 'cluster-signing-key-file') flags.keyFile = value;
  else if (name === 'cluster-signing-duration') flags.durationMs = duration(value, name);
  else {
    const m = /^cluster-signing-(.+)-(cert|key)-file$/.exec(name);
    const signer = m && signerFlags[m[1]!];
    if (!signer) return false;
    const files = ((flags.signers ??= {})[signer] ??= {});
    if (m![2] === 'cert') files.certFile = value;
    else files.keyFile = value;
  }
  return true;
}

/** kubeadm's ca.crt/ca.key under --data-dir/pki, generated when either is missing. */
export async function ensureClusterCA(dataDir: string): Promise<ClusterSigningCA & { certFile: string }> {
  const dir = join(dataDir, 'pki');
  const certFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'ca.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { certificate: await readFile(certFile, 'utf8'), privateKey: await readFile(keyFile, 'utf8'), certFile };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await generateClusterCA(new Date());
  await writeFile(keyFile, ca.privateKey, { mode: 0o600 });
  await writeFile(certFile, ca.certificate, { mode: 0o600 });
  return { ...ca, certFile };
}

/** The CA files as the core takes them (a PKCS#8 key), refused with kube-controller-manager's messages when they do not fit. */
async function caFromFiles(certFile: string, keyFile: string): Promise<ClusterSigningCA> {
  const certificate = await readFile(certFile, 'utf8').catch((e: Error) => {
    throw new Error(`error reading CA cert file "${certFile}": ${e.message}`);
  });
  const blocks = certificate.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length !== 1) throw new Error(`error reading CA cert file "${certFile}": expected 1 certificate, found ${blocks.length}`);
  let key;
  try {
    key = createPrivateKey(await readFile(keyFile, 'utf8'));
  } catch (e) {
    throw new Error(`error reading CA key file "${keyFile}": ${(e as Error).message}`);
  }
  const cert = new X509Certificate(blocks[0]!);
  const spki = (k: ReturnType<typeof createPublicKey>) => k.export({ type: 'spki', format: 'der' });
  if (!spki(cert.publicKey).equals(spki(createPublicKey(key)))) throw new Error(`error reading CA cert file "${certFile}": tls: private key does not match public key`);
  return { certificate: blocks[0]! + '\n', privateKey: key.export({ type: 'pkcs8', format: 'pem' }) as string };
}

export interface HostClusterSigning {
  ca?: ClusterSigningCA;
  signerCAs?: Record<string, ClusterSigningCA>;
  durationMs?: number;
  /** The generated CA's file, the default --client-ca-file; absent for a CA given by flags. */
  generatedCertFile?: string;
}

/** The CA the host signs with: the flags' files, else with --tls the generated cluster CA, else none. */
export async function hostClusterSigning(dataDir: string, tls: boolean, flags: ClusterSigningFlags = {}): Promise<HostClusterSigning | undefined> {
  const perSigner = Object.entries(flags.signers ?? {});
  if (perSigner.length) {
    if (flags.certFile || flags.keyFile) throw new Error('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
    for (const [signer, files] of perSigner) {
      const infix = Object.keys(signerFlags).find((k) => signerFlags[k] === signer)!;
      if (!files.certFile || !files.keyFile) throw new Error(`"cluster-signing-${infix}": cannot specify key without cert or cert without key`);
    }
    const signerCAs: Record<string, ClusterSigningCA> = {};
    for (const [signer, files] of perSigner) signerCAs[signer] = await caFromFiles(files.certFile!, files.keyFile!);
    return { signerCAs, durationMs: flags.durationMs };
  }
  if (!flags.certFile !== !flags.keyFile) throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
  if (flags.certFile && flags.keyFile) return { ca: await caFromFiles(flags.certFile, flags.keyFile), durationMs: flags.durationMs };
  if (!tls) return undefined;
  const { certificate, privateKey, certFile } = await ensureClusterCA(dataDir);
  return { ca: { certificate, privateKey }, durationMs: flags.durationMs, generatedCertFile: certFile };
}

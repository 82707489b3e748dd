/**
 * The serving certificate for --tls: a serving certificate for
 * localhost/127.0.0.1 signed by the cluster CA (clusterSigning.ts), both
 * generated once into the data directory and reused (so a kubeconfig stays
 * valid across restarts); a serving certificate of another CA is replaced.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { ensureClusterCA } from './clusterSigning';

export interface ServingCert {
  caCert: string;
  cert: string;
  key: string;
}

/** --tls-cert-file and --tls-private-key-file: clients are given the certificate file as the authority to trust. */
export async function servingCertFromFiles(certFile: string, keyFile: string): Promise<ServingCert> {
  const cert = await readFile(certFile, 'utf8');
  return { caCert: cert, cert, key: await readFile(keyFile, 'utf8') };
}

function issuedBy(certPem: string, caPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caPem);
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

export async function ensureServingCert(dataDir: string, hosts: string[]): Promise<ServingCert> {
  const ca = await ensureClusterCA(dataDir);
  const dir = join(dataDir, 'pki');
  const files = { cert: join(dir, 'apiserver.crt'), key: join(dir, 'apiserver.key') };
  if (existsSync(files.cert) && existsSync(files.key)) {
    const cert = await readFile(files.cert, 'utf8');
    // A data directory from before the CA kept its key has a serving certificate of another CA: it is made again.
    if (issuedBy(cert, ca.certificate)) return { caCert: ca.certificate, cert, key: await readFile(files.key, 'utf8') };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const notAfterDate = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
  const altNames = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h }));
  const serving = await generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    keySize: 2048,
    notAfterDate,
    algorithm: 'sha256',
    ca: { key: ca.privateKey, cert: ca.certificate },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  await writeFile(files.cert, serving.cert, { mode: 0o600 });
  await writeFile(files.key, serving.private, { mode: 0o600 });
  return { caCert: ca.certificate, cert: serving.cert, key: serving.private };
}

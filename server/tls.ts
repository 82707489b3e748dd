/**
 * The serving certificate for --tls: a self-signed CA and a serving
 * certificate for localhost/127.0.0.1 it signs, generated once into the data
 * directory and reused (so a kubeconfig stays valid across restarts).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

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

export async function ensureServingCert(dataDir: string, hosts: string[]): Promise<ServingCert> {
  const dir = join(dataDir, 'pki');
  const files = { caCert: join(dir, 'ca.crt'), cert: join(dir, 'apiserver.crt'), key: join(dir, 'apiserver.key') };
  if (existsSync(files.caCert) && existsSync(files.cert) && existsSync(files.key)) {
    return { caCert: await readFile(files.caCert, 'utf8'), cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8') };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const notAfterDate = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
  const ca = await generate([{ name: 'commonName', value: 'kubesim-ca' }], {
    keySize: 2048,
    notAfterDate,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const altNames = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h }));
  const serving = await generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    keySize: 2048,
    notAfterDate,
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  await writeFile(files.caCert, ca.cert, { mode: 0o600 });
  await writeFile(files.cert, serving.cert, { mode: 0o600 });
  await writeFile(files.key, serving.private, { mode: 0o600 });
  return { caCert: ca.cert, cert: serving.cert, key: serving.private };
}

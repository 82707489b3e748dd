/**
 * A throwaway etcd for tests and benchmarks: Debian's `etcd` binary started
 * on 127.0.0.1 with free ports and a temporary data dir, removed on stop.
 * `etcdAvailable()` tells callers whether the binary is there, so suites
 * that need etcd can skip with a visible reason when it is not.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestEtcd {
  /** http(s)://127.0.0.1:port, for --etcd-servers. */
  endpoint: string;
  /** With `tls`: the CA and a client certificate it signed (--etcd-cafile, --etcd-certfile, --etcd-keyfile). */
  tls?: { caFile: string; certFile: string; keyFile: string };
  /** The process id, for tests that kill it. */
  pid: number;
  /** Stops etcd and starts it again on the same ports and data (an etcd restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The etcd binary on PATH, or undefined when it is not installed. */
export function etcdBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

export function etcdAvailable(): boolean {
  return etcdBinary() !== undefined;
}

/** Why etcd suites skip, printed by describe.skipIf's title. */
export const etcdMissing = 'etcd is not installed (scripts/test.sh installs Debian etcd-server): skipped';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function healthy(endpoint: string, tls: TestEtcd['tls']): Promise<boolean> {
  try {
    if (!tls) {
      const res = await fetch(`${endpoint}/health`);
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    }
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsGet(`${endpoint}/health`, { ca: readFileSync(tls.caFile), cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
    });
    return (JSON.parse(body) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/** A CA, a serving certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makeCertificates(dir: string): { ca: string; serverCert: string; serverKey: string; client: NonNullable<TestEtcd['tls']> } {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=etcd-ca');
  for (const [name, usage] of [['server', 'serverAuth,clientAuth'], ['client', 'clientAuth']] as const) {
    writeFileSync(file(`${name}.ext`), `subjectAltName=IP:127.0.0.1\nextendedKeyUsage=${usage}\n`);
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${name === 'server' ? 'etcd' : 'kube-apiserver'}`);
    openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file(`${name}.crt`), '-days', '1', '-extfile', file(`${name}.ext`));
  }
  return { ca: file('ca.crt'), serverCert: file('server.crt'), serverKey: file('server.key'), client: { caFile: file('ca.crt'), certFile: file('client.crt'), keyFile: file('client.key') } };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Starts a single-member etcd; resolves once /health answers. With `tls`,
 * clients must present a certificate the generated CA signed.
 */
export async function startTestEtcd(options: { tls?: boolean } = {}): Promise<TestEtcd> {
  const binary = etcdBinary();
  if (!binary) throw new Error(etcdMissing);
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-etcd-'));
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const tlsArgs = certs ? [`--cert-file=${certs.serverCert}`, `--key-file=${certs.serverKey}`, `--trusted-ca-file=${certs.ca}`, '--client-cert-auth'] : [];
  const launch = async (clientPort: number, peerPort: number, dataDir: string) => {
    const endpoint = `${certs ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const child = spawn(
      binary,
      [
        '--name=kubesim-test',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=kubesim-test=${peer}`,
        '--logger=zap',
        '--log-level=error',
        // kube-apiserver's bookmarks ride on progress notifications; keep them frequent in tests.
        '--experimental-watch-progress-notify-interval=1s',
        ...tlsArgs,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const gone = exited(child);
    for (let i = 0; i < 200 && child.exitCode === null; i++) {
      if (await healthy(endpoint, certs?.client)) return { child, gone, endpoint };
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await gone;
    throw new Error(`etcd did not start: ${stderr.slice(-2000)}`);
  };

  for (let attempt = 0; ; attempt++) {
    const ports = [await freePort(), await freePort()] as const;
    const dataDir = join(dir, `data-${attempt}`);
    let running: Awaited<ReturnType<typeof launch>>;
    try {
      running = await launch(ports[0], ports[1], dataDir);
    } catch (e) {
      // A port taken between the probe and the bind: try other ports.
      if (attempt < 3) continue;
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    const etcd: TestEtcd = {
      endpoint: running.endpoint,
      tls: certs?.client,
      pid: running.child.pid!,
      async restart() {
        running.child.kill('SIGTERM');
        await running.gone;
        running = await launch(ports[0], ports[1], dataDir);
        etcd.pid = running.child.pid!;
      },
      async stop() {
        running.child.kill('SIGTERM');
        await running.gone;
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return etcd;
  }
}

/**
 * A throwaway etcd for tests and benchmarks: Debian's `etcd` binary started
 * on 127.0.0.1 with free ports and a temporary data dir, removed on stop.
 * `etcdAvailable()` tells callers whether the binary is there, so suites
 * that need etcd can skip with a visible reason when it is not.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestEtcd {
  /** http://127.0.0.1:port, for --etcd-servers. */
  endpoint: string;
  /** The process id, for tests that kill it. */
  pid: number;
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

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`);
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts a single-member etcd; resolves once /health answers. */
export async function startTestEtcd(): Promise<TestEtcd> {
  const binary = etcdBinary();
  if (!binary) throw new Error(etcdMissing);
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-etcd-'));
  for (let attempt = 0; ; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const endpoint = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const child = spawn(
      binary,
      [
        '--name=kubesim-test',
        `--data-dir=${join(dir, `data-${attempt}`)}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=kubesim-test=${peer}`,
        '--logger=zap',
        '--log-level=error',
        // kube-apiserver's bookmarks ride on progress notifications; keep them frequent in tests.
        '--experimental-watch-progress-notify-interval=1s',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const gone = exited(child);
    let up = false;
    for (let i = 0; i < 200 && child.exitCode === null; i++) {
      if (await healthy(endpoint)) {
        up = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!up) {
      child.kill('SIGKILL');
      await gone;
      // A port taken between the probe and the bind: try other ports.
      if (attempt < 3) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`etcd did not start: ${stderr.slice(-2000)}`);
    }
    return {
      endpoint,
      pid: child.pid!,
      async stop() {
        child.kill('SIGTERM');
        await gone;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

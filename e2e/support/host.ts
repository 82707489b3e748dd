/** Starts the Node host in-process on a free loopback port, and runs real kubectl against it. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthnFlags } from '../../server/authFlags';
import { startHost, type RunningHost } from '../../server/host';

export interface TestHost {
  host: RunningHost;
  home: string;
  kubectl(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

export async function startTestHost(options: { store?: 'memory' | 'sqlite'; tls?: boolean; authn?: AuthnFlags } = {}): Promise<TestHost> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-e2e-'));
  const home = join(dir, 'home');
  const host = await startHost({
    port: 0,
    bindAddress: '127.0.0.1',
    dataDir: join(dir, 'data'),
    store: options.store ?? 'memory',
    tls: options.tls ?? false,
    securePort: 0,
    help: false,
    authn: options.authn,
  });
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('kubectl', args, {
        env: { ...process.env, HOME: home, KUBECONFIG: host.kubeconfigPath },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  return {
    host,
    home,
    kubectl,
    async stop() {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts the Node host in-process on a free loopback port, and runs real kubectl against it. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthnFlags } from '../../server/authFlags';
import type { HostFlags } from '../../server/flags';
import { startHost, type RunningHost } from '../../server/host';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A klog line client-go writes to stderr (`E1129 13:56:06.907895     808 websocket.go:296] ...`). */
const clientLogLine = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\] .*\n/gm;

/**
 * kubectl's result without client-go's own log lines on stderr. One comes
 * by chance: the kubelet's first (empty) exec frame can reach client-go's
 * WebSocket reader before it has made its streams ("Unknown stream id 1,
 * discarding message"), as it can against a real kubelet.
 */
export function withoutClientLogs(r: RunResult): RunResult {
  return { ...r, stderr: r.stderr.replace(clientLogLine, '') };
}

/** Runs a program to completion with `input` on stdin, collecting its output. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

export interface TestHost {
  host: RunningHost;
  home: string;
  kubectl(args: string[], input?: string): Promise<RunResult>;
  /** kubectl that must succeed: its stdout (an error naming the command and its stderr otherwise). */
  kubectlOk(args: string[], input?: string): Promise<string>;
  /** Moves a `--fake-clock` host's clock, as an operator would (POST /debug/kubesim/clock?advance=). */
  advanceClock(duration: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestHost(options: { store?: 'memory' | 'sqlite'; tls?: boolean; authn?: AuthnFlags; flags?: Partial<HostFlags> } = {}): Promise<TestHost> {
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
    ...options.flags,
  });
  const kubectl = (args: string[], input?: string) => run('kubectl', args, { HOME: home, KUBECONFIG: host.kubeconfigPath }, input);
  const kubectlOk = async (args: string[], input?: string) => {
    const r = await kubectl(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  return {
    host,
    home,
    kubectl,
    kubectlOk,
    async advanceClock(duration) {
      await kubectlOk(['create', '--raw', `/debug/kubesim/clock?advance=${duration}`, '-f', '-'], '{}');
    },
    async stop() {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `npm run serve` as a user runs it: a separate process with flags, a
 * kubeconfig it writes, SQLite persistence across a clean stop and a kill -9,
 * and HTTPS with its self-signed certificate that kubectl verifies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-serve-'));
const home = join(dir, 'home');
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  child: ChildProcess;
  url: string;
  secureUrl?: string;
  kubeconfig: string;
  exited: Promise<number | null>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--port=0', `--data-dir=${dataDir}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60_000);
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /serving on (http:\/\/[^\s]+)(?: and (https:\/\/[^\s]+))?/.exec(out);
      const k = /kubeconfig written to (\S+)/.exec(out);
      if (m && k) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, secureUrl: m[2], kubeconfig: k[1]!, exited });
      }
    });
  });
}

function kubectl(kubeconfig: string, args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn('kubectl', args, { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig } });
    c.stdin.end(input);
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const configMap = (name: string, k: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${k}: "${v}"\n`;

describe('npm run serve', () => {
  it('writes a kubeconfig, keeps data in SQLite across Ctrl-C and kill -9', async () => {
    const first = await serve([]);
    expect(readFileSync(first.kubeconfig, 'utf8')).toContain(`server: ${first.url}`);
    expect((await kubectl(first.kubeconfig, ['create', '-f', '-'], configMap('kept', 'a', '1'))).stdout).toContain('configmap/kept created');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = await serve([]);
    const g = await kubectl(second.kubeconfig, ['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}']);
    expect(g.stdout).toBe('1');
    const created = await kubectl(second.kubeconfig, ['create', '-f', '-'], configMap('acked', 'b', '2'));
    expect(created.code).toBe(0);
    second.child.kill('SIGKILL');
    await second.exited;

    const third = await serve([]);
    const after = await kubectl(third.kubeconfig, ['get', 'configmaps', '-o', 'name']);
    expect(after.stdout.split('\n')).toEqual(expect.arrayContaining(['configmap/kept', 'configmap/acked']));
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });

  it('--tls serves HTTPS with a certificate kubectl verifies through the kubeconfig', async () => {
    const s = await serve(['--tls', '--secure-port=0', '--store=memory']);
    expect(s.secureUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = readFileSync(s.kubeconfig, 'utf8');
    expect(kc).toContain(`server: ${s.secureUrl}`);
    expect(kc).toContain('certificate-authority-data:');
    const r = await kubectl(s.kubeconfig, ['get', 'namespaces', '-o', 'name']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('namespace/kube-system');
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  });

  it('an unknown flag exits 1 with the usage', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--bogus'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toContain('Error: unknown flag: --bogus');
    expect(err).toContain('--bind-address');
  });
});

/**
 * Real kubectl against the Node host: `get -w` (Table events and
 * --output-watch-events), `--chunk-size` paging over many objects, and
 * label and field selectors.
 */
import { spawn, execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';

const KUBECTL = '/usr/bin/kubectl';
const run = promisify(execFile);

let host: RunningHost;
let dataDir: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kubesim-watch-'));
  home = await mkdtemp(join(tmpdir(), 'kubesim-home-'));
  host = await startHost({ port: 0, bindAddress: '127.0.0.1', dataDir, store: 'memory', tls: false, securePort: 0, help: false });
  env = { ...process.env, HOME: home, KUBECONFIG: host.kubeconfigPath };
});

afterAll(async () => {
  await host?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(KUBECTL, args, { env, timeout: 60_000 });
  return stdout;
}

async function api(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<any> {
  const res = await fetch(`${host.url}${path}`, { method, headers: body ? { 'content-type': contentType } : {}, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const pod = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

/** A long-running kubectl whose stdout is read line by line. */
class Streaming {
  readonly lines: string[] = [];
  private partial = '';
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts.filter((l) => l.trim() !== ''));
      for (const w of this.waiters.splice(0)) w();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
  }

  /** Waits (real time: kubectl is a real process) until some line matches. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find((l) => pattern.test(l));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no line matching ${pattern}; got:\n${this.lines.join('\n')}\nstderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}

function watchKubectl(...args: string[]): Streaming {
  return new Streaming(spawn(KUBECTL, args, { env }));
}

describe('kubectl against the watch, list and selector endpoints', () => {
  it('[API-WATCH-001] kubectl get pods -w prints the existing pods, then additions, changes and deletions as Table rows', async () => {
    await api('POST', '/api/v1/namespaces/default/pods', pod('w-before'));
    const w = watchKubectl('get', 'pods', '-w');
    try {
      await w.waitFor(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
      await w.waitFor(/^w-before\s/);
      await api('POST', '/api/v1/namespaces/default/pods', pod('w-added'));
      await w.waitFor(/^w-added\s+0\/1\s+Pending/);
      await api('PATCH', '/api/v1/namespaces/default/pods/w-added', { metadata: { labels: { changed: 'yes' } } }, 'application/merge-patch+json');
      await api('DELETE', '/api/v1/namespaces/default/pods/w-added');
      await w.waitFor(/^w-added\s/);
      // Added, modified and deleted each print a row for w-added.
      const deadline = Date.now() + 20_000;
      while (w.lines.filter((l) => /^w-added\s/.test(l)).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(w.lines.filter((l) => /^w-added\s/.test(l)).length).toBeGreaterThanOrEqual(3);
    } finally {
      w.stop();
    }
  });

  it('kubectl get pods -w --output-watch-events names each event type', async () => {
    const w = watchKubectl('get', 'pods', '-w', '--output-watch-events');
    try {
      await w.waitFor(/^EVENT\s+NAME\s+READY/);
      await api('POST', '/api/v1/namespaces/default/pods', pod('ev-1'));
      await w.waitFor(/^ADDED\s+ev-1\s/);
      await api('PATCH', '/api/v1/namespaces/default/pods/ev-1', { metadata: { labels: { x: '1' } } }, 'application/merge-patch+json');
      await w.waitFor(/^MODIFIED\s+ev-1\s/);
      await api('DELETE', '/api/v1/namespaces/default/pods/ev-1');
      await w.waitFor(/^DELETED\s+ev-1\s/);
    } finally {
      w.stop();
    }
  });

  it('[API-LIST-023] kubectl get --chunk-size=2 pages through many objects and prints each once', async () => {
    await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'chunks' } });
    for (let i = 0; i < 11; i++) await api('POST', '/api/v1/namespaces/chunks/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(2, '0')}` } });
    const out = await kubectl('get', 'configmaps', '-n', 'chunks', '--chunk-size=2', '-o', 'name');
    const names = out.trim().split('\n').filter((l) => l.startsWith('configmap/cm-'));
    expect(names).toEqual(Array.from({ length: 11 }, (_, i) => `configmap/cm-${String(i).padStart(2, '0')}`));
    const table = await kubectl('get', 'configmaps', '-n', 'chunks', '--chunk-size=3');
    expect(table.split('\n').filter((l) => l.startsWith('cm-'))).toHaveLength(11);
    expect(table.split('\n').filter((l) => l.startsWith('NAME'))).toHaveLength(1);
  });

  it('[API-LIST-018] [API-LIST-019] kubectl get -l and --field-selector filter on the server', async () => {
    await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sel' } });
    for (const [name, app] of [['p-a1', 'a'], ['p-a2', 'a'], ['p-b1', 'b']] as const) {
      await api('POST', '/api/v1/namespaces/sel/pods', pod(name, { app }));
    }
    const byLabel = await kubectl('get', 'pods', '-n', 'sel', '-l', 'app=a', '-o', 'name');
    expect(byLabel.trim().split('\n')).toEqual(['pod/p-a1', 'pod/p-a2']);
    const notIn = await kubectl('get', 'pods', '-n', 'sel', '-l', 'app notin (a)', '-o', 'name');
    expect(notIn.trim().split('\n')).toEqual(['pod/p-b1']);
    const byField = await kubectl('get', 'pods', '-n', 'sel', '--field-selector', 'metadata.name=p-a2,status.phase!=Running', '-o', 'name');
    expect(byField.trim()).toBe('pod/p-a2');
    const both = await kubectl('get', 'pods', '-n', 'sel', '-l', 'app=a', '--field-selector', 'metadata.name!=p-a1', '-o', 'name');
    expect(both.trim()).toBe('pod/p-a2');
    await expect(kubectl('get', 'pods', '-n', 'sel', '--field-selector', 'spec.bogus=x')).rejects.toMatchObject({ stderr: expect.stringContaining('field label not supported: spec.bogus') });
  });
});

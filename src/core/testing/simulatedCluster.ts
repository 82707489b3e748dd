/**
 * The fixture of the simulated-node tests: a server running every
 * controller with one simulated node, `node-1`, registered and the default
 * namespace's ServiceAccount made (pods are refused until it exists), closed
 * after each test.
 */
import { afterEach } from 'vitest';
import { newTestServer, type TestServer } from './client';
import { eventually } from './eventually';
import { upgradeSessionOf, type StreamResult } from '../http/upgrade';
import { runStreamSession } from './streamSession';

/** Registers the closing hook and returns what starts a cluster in a test. */
export function simulatedClusters(options: Parameters<typeof newTestServer>[0] = {}): () => Promise<TestServer> {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });
  return async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1, ...options }));
    await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1')).status, (c) => c === 200, 'the node');
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
    return s;
  };
}

/** `kubectl exec` in a default-namespace pod as kubectl does it (no stdin, no terminal): the command's streams and exit. */
export async function execIn(s: TestServer, pod: string, command: string[], container?: string): Promise<StreamResult> {
  const q = new URLSearchParams();
  for (const c of command) q.append('command', c);
  if (container) q.set('container', container);
  const request = new Request(`http://127.0.0.1:8080/api/v1/namespaces/default/pods/${pod}/exec?${q}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
  const response = await s.server.handle(request);
  const session = upgradeSessionOf(request);
  if (!session) throw new Error(`exec answered ${response.status}: ${await response.text()}`);
  return runStreamSession(session, '');
}

/** Moves the fake clock in steps (a second by default), letting the kubelets act at each. */
export async function passTime(s: TestServer, ms: number, step = 1_000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    s.clock.advance(Math.min(step, ms - done));
    await new Promise((r) => setTimeout(r, 5));
  }
}

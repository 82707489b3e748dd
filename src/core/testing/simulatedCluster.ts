/**
 * The fixture of the simulated-node tests: a server running every
 * controller with one simulated node, `node-1`, registered and the default
 * namespace's ServiceAccount made (pods are refused until it exists), closed
 * after each test.
 */
import { afterEach } from 'vitest';
import { newTestServer, type TestServer } from './client';
import { eventually } from './eventually';

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

/** Real kubectl 1.32 against the Node host: the Events the controllers record, as kubectl describe and kubectl get events show them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('controller Events', () => {
  it('kubectl describe deployment and replicaset list what the controllers did; a refused pod create is a FailedCreate warning', async () => {
    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'])).code).toBe(0);
    await eventually('two pods', async () => (await t.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'name'])).stdout.trim().split('\n').filter(Boolean).length === 2);
    const rs = (await t.kubectl(['get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await eventually('the events', async () => (await t.kubectl(['get', 'events', '-o', 'name'])).stdout.trim().split('\n').length >= 3);
    const deployment = (await t.kubectl(['describe', 'deployment', 'web'])).stdout;
    expect(deployment).toMatch(new RegExp(`Events:\\n  Type    Reason             Age   From                   Message\\n  ----    ------             ----  ----                   -------\\n  Normal  ScalingReplicaSet  \\S+\\s+deployment-controller  Scaled up replica set ${rs} from 0 to 2\\n`));
    const replicaSet = (await t.kubectl(['describe', 'rs', rs])).stdout;
    expect(replicaSet.match(/Normal  SuccessfulCreate  \S+\s+replicaset-controller  Created pod: web-\S+/g)).toHaveLength(2);

    // A quota of one pod: the ReplicaSet's next pod is refused, and kubectl describe says why.
    expect((await t.kubectl(['create', 'quota', 'one', '--hard=pods=2'])).code).toBe(0);
    await eventually('the quota counted', async () => (await t.kubectl(['get', 'quota', 'one', '-o', 'jsonpath={.status.used.pods}'])).stdout === '2');
    expect((await t.kubectl(['scale', 'deployment', 'web', '--replicas=3'])).code).toBe(0);
    await eventually('a FailedCreate event', async () => (await t.kubectl(['get', 'events', '--field-selector=reason=FailedCreate', '-o', 'name'])).stdout.trim() !== '');
    const refused = (await t.kubectl(['describe', 'rs', rs])).stdout;
    expect(refused).toMatch(/Warning  FailedCreate +\S+\s+replicaset-controller  Error creating: pods "web-\S+" is forbidden: exceeded quota: one, requested: pods=1, used: pods=2, limited: pods=2/);
    const listed = await t.kubectl(['get', 'events', '--field-selector=involvedObject.kind=Deployment']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(listed.stdout).toMatch(/Normal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up replica set \S+ from 2 to 3/);
  });
});

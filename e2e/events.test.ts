/** Real kubectl 1.32 against the Node host: the Events the controllers record, as kubectl describe and kubectl get events show them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

describe('controller Events', () => {
  it('kubectl describe deployment and replicaset list what the controllers did; a refused pod create is a FailedCreate warning', async () => {
    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'])).code).toBe(0);
    const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();
    await eventually(() => stdout(['get', 'pods', '-l', 'app=web', '-o', 'name']), (out) => out.split('\n').filter(Boolean).length === 2, 'two pods');
    const rs = (await t.kubectl(['get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    await eventually(() => stdout(['get', 'events', '-o', 'name']), (out) => out.split('\n').length >= 3, 'the events');
    const deployment = (await t.kubectl(['describe', 'deployment', 'web'])).stdout;
    expect(deployment).toMatch(new RegExp(`Events:\\n  Type    Reason             Age   From                   Message\\n  ----    ------             ----  ----                   -------\\n  Normal  ScalingReplicaSet  \\S+\\s+deployment-controller  Scaled up replica set ${rs} from 0 to 2\\n`));
    const replicaSet = (await t.kubectl(['describe', 'rs', rs])).stdout;
    expect(replicaSet.match(/Normal  SuccessfulCreate  \S+\s+replicaset-controller  Created pod: web-\S+/g)).toHaveLength(2);

    // A quota of one pod: the ReplicaSet's next pod is refused, and kubectl describe says why.
    expect((await t.kubectl(['create', 'quota', 'one', '--hard=pods=2'])).code).toBe(0);
    await eventually(() => stdout(['get', 'quota', 'one', '-o', 'jsonpath={.status.used.pods}']), (out) => out === '2', 'the quota counted');
    expect((await t.kubectl(['scale', 'deployment', 'web', '--replicas=3'])).code).toBe(0);
    await eventually(() => stdout(['get', 'events', '--field-selector=reason=FailedCreate', '-o', 'name']), (out) => out !== '', 'a FailedCreate event');
    const refused = (await t.kubectl(['describe', 'rs', rs])).stdout;
    expect(refused).toMatch(/Warning  FailedCreate +\S+\s+replicaset-controller  Error creating: pods "web-\S+" is forbidden: exceeded quota: one, requested: pods=1, used: pods=2, limited: pods=2/);
    const listed = await t.kubectl(['get', 'events', '--field-selector=involvedObject.kind=Deployment']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(listed.stdout).toMatch(/Normal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up replica set \S+ from 2 to 3/);
  });
});

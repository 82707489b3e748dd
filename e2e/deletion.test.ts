/**
 * Real kubectl 1.32 against the Node host: deletion (cascade, grace period,
 * wait), namespaces held by finalizers, Deployments scaled and rolled out
 * without a kubelet, and DELETED events in `get -w`. The host runs on a fake
 * clock that the test advances through /debug/kubesim/clock.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually as poll } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { fakeClock: new Date('2026-01-01T00:00:00Z') } });
});
afterAll(async () => {
  await t?.stop();
});

const ok = (args: string[], input?: string) => t.kubectlOk(args, input);
/** Polls kubectl until its stdout satisfies done. */
const eventually = (args: string[], done: (stdout: string) => boolean, what: string) => poll(async () => (await t.kubectl(args)).stdout, done, what);
const advance = (duration: string) => t.advanceClock(duration);

/** Starts `kubectl get -w`; waitFor resolves with its output once a pattern shows up in it. */
function watchOutput(args: string[]): { waitFor(pattern: RegExp): Promise<string>; stop(): void } {
  const child = spawn('kubectl', args, { env: { ...process.env, HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let waiters: (() => void)[] = [];
  child.stdout.on('data', (d) => {
    out += d;
    for (const w of waiters) w();
  });
  return {
    waitFor: (pattern) => new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubectl ${args.join(' ')} never printed ${pattern}: ${out}`)), 20_000);
      const check = () => {
        if (!pattern.test(out)) return;
        clearTimeout(timer);
        waiters = waiters.filter((w) => w !== check);
        resolve(out);
      };
      waiters.push(check);
      check();
    }),
    stop: () => child.kill(),
  };
}

const boundPod = (name: string, grace?: number) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: node-1
${grace === undefined ? '' : `  terminationGracePeriodSeconds: ${grace}\n`}  containers: [{name: c, image: nginx}]
`;

describe('kubectl create deployment, scale, get rs,pods and rollout status', () => {
  it('the Deployment gets a ReplicaSet and Pending pods; scale changes both; rollout waits for available pods', async () => {
    expect((await ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2'])).trim()).toBe('deployment.apps/web created');
    await eventually(['get', 'pods', '-l', 'app=web', '-o', 'name'], (s) => s.trim().split('\n').filter(Boolean).length === 2, 'two pods');
    expect((await ok(['scale', 'deployment', 'web', '--replicas=3'])).trim()).toBe('deployment.apps/web scaled');
    const table = await eventually(['get', 'rs,pods', '-l', 'app=web'], (s) => (s.match(/Pending/g) ?? []).length === 3 && /\s3\s+3\s+0\s/.test(s), 'three pods');
    const rs = table.match(/^replicaset\.apps\/(web-[a-z0-9]+)\s+3\s+3\s+0\s+/m);
    expect(rs, table).not.toBeNull();
    expect(table).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/m);
    expect(table).toMatch(new RegExp(`^pod/${rs![1]}-[a-z0-9]{5}\\s+0/1\\s+Pending\\s+0\\s+`, 'm'));

    // No kubelet: the pods never start, so the rollout waits as on a cluster without nodes.
    const waiting = await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=1s']);
    expect(waiting.code).toBe(1);
    expect(waiting.stdout).toContain('Waiting for deployment "web" rollout to finish: 0 of 3 updated replicas are available...');
    expect(waiting.stderr.trim()).toBe('error: timed out waiting for the condition');

    // Writing the Ready condition a kubelet would report makes each pod available.
    for (const name of (await ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n')) {
      await ok(['patch', name, '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}']);
    }
    const done = await ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    expect(done.trim().split('\n').at(-1)).toBe('deployment "web" successfully rolled out');
    expect(await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}/{.status.availableReplicas}/{.status.updatedReplicas}'])).toBe('3/3/3');
  });
});

describe('kubectl set image, rollout history and undo', () => {
  it('a new template is revision 2 in a second ReplicaSet; undo brings the first back as revision 3, remembering 1; an annotated change-cause shows in the history', async () => {
    await ok(['create', 'deployment', 'hist', '--image=nginx:1.26']);
    await eventually(['get', 'rs', '-l', 'app=hist', '-o', 'name'], (s) => s.trim() !== '', 'the first ReplicaSet');
    expect((await ok(['set', 'image', 'deployment/hist', 'nginx=nginx:1.27'])).trim()).toBe('deployment.apps/hist image updated');
    await eventually(['get', 'rs', '-l', 'app=hist', '-o', 'name'], (s) => s.trim().split('\n').length === 2, 'the second ReplicaSet');
    const history = await eventually(['rollout', 'history', 'deployment/hist'], (s) => /^2\s+<none>$/m.test(s), 'revision 2');
    expect(history).toMatch(/^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>$/m);
    expect((await ok(['rollout', 'undo', 'deployment/hist'])).trim()).toBe('deployment.apps/hist rolled back');
    await eventually(['get', 'deployment', 'hist', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}'], (s) => s === '3', 'revision 3');
    expect(await ok(['get', 'deployment', 'hist', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).toBe('nginx:1.26');
    // The docs' way to record why: annotate the Deployment; the controller copies it to the current ReplicaSet.
    await ok(['annotate', 'deployment/hist', 'kubernetes.io/change-cause=image back to 1.26']);
    const annotated = await eventually(['rollout', 'history', 'deployment/hist'], (s) => /^3\s+image back to 1\.26$/m.test(s), 'the change cause');
    expect(annotated).toMatch(/^REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+image back to 1\.26$/m);
    expect(await ok(['get', 'rs', '-l', 'app=hist', '-o', 'jsonpath={.items[?(@.spec.template.spec.containers[0].image=="nginx:1.26")].metadata.annotations.deployment\\.kubernetes\\.io/revision-history}'])).toBe('1');
    await ok(['delete', 'deployment', 'hist']);
  });
});

describe('kubectl delete --cascade', () => {
  it('[API-DEL-009] foreground: --wait returns once the Deployment, its ReplicaSet and pods are gone', async () => {
    await ok(['create', 'deployment', 'fg', '--image=nginx', '--replicas=2']);
    await eventually(['get', 'pods', '-l', 'app=fg', '-o', 'name'], (s) => s.trim().split('\n').filter(Boolean).length === 2, 'fg pods');
    expect((await ok(['delete', 'deployment', 'fg', '--cascade=foreground'])).trim()).toBe('deployment.apps "fg" deleted');
    expect((await t.kubectl(['get', 'deployment', 'fg'])).stderr.trim()).toBe('Error from server (NotFound): deployments.apps "fg" not found');
    expect((await ok(['get', 'rs,pods', '-l', 'app=fg', '-o', 'name'])).trim()).toBe('');
  });

  it('[API-DEL-009] background: the Deployment goes at once and the garbage collector removes the rest', async () => {
    await ok(['create', 'deployment', 'bg', '--image=nginx']);
    await eventually(['get', 'pods', '-l', 'app=bg', '-o', 'name'], (s) => s.trim() !== '', 'a bg pod');
    expect((await ok(['delete', 'deployment', 'bg', '--cascade=background'])).trim()).toBe('deployment.apps "bg" deleted');
    await eventually(['get', 'rs,pods', '-l', 'app=bg', '-o', 'name'], (s) => s.trim() === '', 'the dependents to be collected');
  });

  it('[API-DEL-007] orphan: the ReplicaSet and pods stay, without their owner reference', async () => {
    await ok(['create', 'deployment', 'orph', '--image=nginx']);
    await eventually(['get', 'pods', '-l', 'app=orph', '-o', 'name'], (s) => s.trim() !== '', 'an orph pod');
    expect((await ok(['delete', 'deployment', 'orph', '--cascade=orphan'])).trim()).toBe('deployment.apps "orph" deleted');
    const owners = await eventually(['get', 'rs', '-l', 'app=orph', '-o', 'jsonpath={.items[*].metadata.ownerReferences}'], (s) => s === '', 'the owner reference to go');
    expect(owners).toBe('');
    expect((await ok(['get', 'rs', '-l', 'app=orph', '-o', 'name'])).trim()).toMatch(/^replicaset\.apps\/orph-/);
    await ok(['delete', 'rs', '-l', 'app=orph']);
  });
});

describe('kubectl delete --grace-period on a bound pod', () => {
  it('[API-DEL-006] --wait=false leaves it Terminating until the grace period ends on the server clock', async () => {
    await ok(['apply', '-f', '-'], boundPod('graceful'));
    expect((await ok(['delete', 'pod', 'graceful', '--grace-period=45', '--wait=false'])).trim()).toBe('pod "graceful" deleted');
    expect(await ok(['get', 'pod', 'graceful', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'])).toBe('45');
    expect(await ok(['get', 'pod', 'graceful'])).toMatch(/^graceful\s+0\/1\s+Terminating\s+/m);
    await advance('44s');
    expect((await t.kubectl(['get', 'pod', 'graceful'])).code).toBe(0);
    await advance('2s');
    await eventually(['get', 'pods', '-o', 'name'], (s) => !s.includes('pod/graceful'), 'the pod to go');
  });

  it('[API-DEL-006] --wait blocks until the grace period ends; --grace-period=1 on an unbound pod removes it at once', async () => {
    await ok(['apply', '-f', '-'], boundPod('waited', 20));
    const deleting = t.kubectl(['delete', 'pod', 'waited', '--timeout=20s']);
    await eventually(['get', 'pod', 'waited', '-o', 'jsonpath={.metadata.deletionTimestamp}'], (s) => s !== '', 'the pod to be Terminating');
    await advance('21s');
    const r = await deleting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('pod "waited" deleted');
    await ok(['run', 'unbound', '--image=nginx']);
    expect((await ok(['delete', 'pod', 'unbound', '--grace-period=1'])).trim()).toBe('pod "unbound" deleted');
  });
});

describe('a namespace whose content holds finalizers', () => {
  it('[API-DEL-001] [API-DEL-002] [API-DEL-004] [API-DEL-017] delete namespace: Terminating with conditions; patching the finalizers away lets it disappear; get -w shows DELETED', async () => {
    await ok(['create', 'namespace', 'team']);
    for (const name of ['a', 'b']) {
      await ok(['apply', '-n', 'team', '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, finalizers: [example.com/hold]}\ndata: {k: v}\n`);
    }
    const watch = watchOutput(['get', 'configmaps', '-n', 'team', '-w', '--output-watch-events', '--field-selector=metadata.name=a']);
    await watch.waitFor(/^ADDED\s+a\s/m);
    expect((await ok(['delete', 'namespace', 'team', '--wait=false'])).trim()).toBe('namespace "team" deleted');
    expect(await ok(['get', 'namespace', 'team', '-o', 'jsonpath={.status.phase}'])).toBe('Terminating');
    const remaining = await eventually(['get', 'namespace', 'team', '-o', 'jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].message}'], (s) => s !== '', 'the conditions');
    expect(remaining).toBe('Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances');
    const refused = await t.kubectl(['create', 'configmap', 'late', '-n', 'team']);
    expect(refused.stderr.trim()).toBe('error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');

    for (const name of ['a', 'b']) await ok(['patch', 'configmap', name, '-n', 'team', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const events = await watch.waitFor(/^DELETED\s+a\s/m);
    watch.stop();
    expect(events).toMatch(/^ADDED\s+a\s/m);
    expect(events).toMatch(/^MODIFIED\s+a\s/m);
    expect(events).toMatch(/^DELETED\s+a\s/m);
    const wait = await t.kubectl(['wait', '--for=delete', 'namespace/team', '--timeout=20s']);
    expect(wait.code, wait.stderr).toBe(0);
    expect((await t.kubectl(['get', 'namespace', 'team'])).stderr.trim()).toBe('Error from server (NotFound): namespaces "team" not found');
  });

  it('[API-DEL-001] delete namespace waits (--wait is the default) until a namespace full of workloads is gone', async () => {
    await ok(['create', 'namespace', 'quick']);
    await ok(['create', 'deployment', 'app', '--image=nginx', '--replicas=3', '-n', 'quick']);
    await ok(['create', 'configmap', 'settings', '-n', 'quick', '--from-literal=k=v']);
    await eventually(['get', 'pods', '-n', 'quick', '-o', 'name'], (s) => s.trim().split('\n').filter(Boolean).length === 3, 'the pods');
    const r = await t.kubectl(['delete', 'namespace', 'quick', '--timeout=20s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('namespace "quick" deleted');
    expect((await t.kubectl(['get', 'namespace', 'quick'])).stderr.trim()).toBe('Error from server (NotFound): namespaces "quick" not found');
    expect((await ok(['get', 'all', '-n', 'quick', '-o', 'name'])).trim()).toBe('');
  });

  it('kube-system may not be deleted', async () => {
    const r = await t.kubectl(['delete', 'namespace', 'kube-system']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});

/**
 * Real kubectl 1.32 against the Node host: Jobs run by the job controller,
 * as `kubectl create job`, `kubectl get jobs`, `kubectl wait` and
 * `kubectl describe job` show them. There is no kubelet: the test reports the
 * pods' phases itself, as a learner would with `kubectl patch --subresource=status`.
 */
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

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();
const podsOf = (job: string) => stdout(['get', 'pods', '-l', `job-name=${job}`, '-o', 'name']);
const setPhase = async (pod: string, phase: string) => {
  const r = await t.kubectl(['patch', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase } })]);
  expect(r.code, r.stderr).toBe(0);
};

describe('kubectl and Jobs', () => {
  it('kubectl create job runs a pod; a Succeeded pod completes the Job for kubectl wait, get and describe; delete takes the pods', async () => {
    const created = await t.kubectl(['create', 'job', 'pi', '--image=busybox:1.36', '--', 'echo', 'hi']);
    expect(created.stdout.trim(), created.stderr).toBe('job.batch/pi created');
    const pod = await eventually(() => podsOf('pi'), (out) => out !== '', 'the pod');
    expect(pod).toMatch(/^pod\/pi-[a-z0-9]{5}$/);
    expect(await stdout(['get', pod, '-o', 'jsonpath={.metadata.finalizers}'])).toBe('["batch.kubernetes.io/job-tracking"]');
    await eventually(() => stdout(['get', 'job', 'pi', '-o', 'jsonpath={.status.active}']), (out) => out === '1', 'active 1');
    const running = (await t.kubectl(['get', 'jobs'])).stdout.split('\n');
    expect(running[0]).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
    expect(running[1]).toMatch(/^pi\s+Running\s+0\/1\s+\S+\s+\S+$/);

    await setPhase(pod, 'Succeeded');
    const waited = await t.kubectl(['wait', '--for=condition=complete', 'job/pi', '--timeout=20s']);
    expect(waited.stdout.trim(), waited.stderr).toBe('job.batch/pi condition met');
    expect((await t.kubectl(['get', 'jobs'])).stdout.split('\n')[1]).toMatch(/^pi\s+Complete\s+1\/1\s+\S+\s+\S+$/);
    expect(await stdout(['get', pod, '-o', 'jsonpath={.metadata.finalizers}'])).toBe('');

    await eventually(() => stdout(['get', 'events', '--field-selector=involvedObject.name=pi', '-o', 'name']), (out) => out.split('\n').length === 2, 'the events');
    const described = (await t.kubectl(['describe', 'job', 'pi'])).stdout;
    expect(described).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed/);
    expect(described).toMatch(new RegExp(`Normal  SuccessfulCreate  \\S+\\s+job-controller  Created pod: ${pod.slice(4)}\\n`));
    expect(described).toMatch(/Normal  Completed\s+\S+\s+job-controller  Job completed\n/);

    expect((await t.kubectl(['delete', 'job', 'pi'])).stdout.trim()).toBe('job.batch "pi" deleted');
    await eventually(() => podsOf('pi'), (out) => out === '', 'the pods deleted');
  });

  it('a Job with backoffLimit 0 fails with its first failed pod: kubectl wait --for=condition=failed and the BackoffLimitExceeded warning', async () => {
    const manifest = 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox:1.36, command: ["false"]}]\n';
    expect((await t.kubectl(['create', '-f', '-'], manifest)).stdout.trim()).toBe('job.batch/once created');
    const pod = await eventually(() => podsOf('once'), (out) => out !== '', 'the pod');
    await setPhase(pod, 'Failed');
    const waited = await t.kubectl(['wait', '--for=condition=failed', 'job/once', '--timeout=20s']);
    expect(waited.stdout.trim(), waited.stderr).toBe('job.batch/once condition met');
    expect((await t.kubectl(['get', 'job', 'once'])).stdout.split('\n')[1]).toMatch(/^once\s+Failed\s+0\/1\s+\S+\s+\S+$/);
    await eventually(() => stdout(['get', 'events', '--field-selector=involvedObject.name=once,reason=BackoffLimitExceeded', '-o', 'name']), (out) => out !== '', 'the warning');
    const described = (await t.kubectl(['describe', 'job', 'once'])).stdout;
    expect(described).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 0 Succeeded \/ 1 Failed/);
    expect(described).toMatch(/Warning  BackoffLimitExceeded  \S+\s+job-controller  Job has reached the specified backoff limit\n/);
  });
});

/**
 * The HPA walkthrough's php-apache under a load generator: each request
 * costs its container cpu, which kubectl top shows (held to the limit) and
 * the HorizontalPodAutoscaler scales on; the usage falls once the load stops.
 */
import { describe, expect, it } from 'vitest';
import { simulatedClusters, passTime } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';
import { loadWindowMs, recentWorkNano, recordWork } from './serverLoad';

const ns = '/api/v1/namespaces/default';
const cluster = simulatedClusters();

describe('server load', () => {
  it('averages the cpu of the requests within the window before now', () => {
    recordWork('uid-a', 'app', 1000, 40);
    recordWork('uid-a', 'app', 2000, 40);
    expect(recentWorkNano('uid-a', 'app', 2000)).toBe(BigInt(Math.round((80 / loadWindowMs) * 1e9)));
    expect(recentWorkNano('uid-a', 'app', 1000 + loadWindowMs)).toBe(BigInt(Math.round((40 / loadWindowMs) * 1e9)));
    expect(recentWorkNano('uid-a', 'other', 2000)).toBe(0n);
  });

  it("php-apache's requests show as its cpu, held to its 500m limit, and are gone a window after the load stops", async () => {
    const s = await cluster();
    const php = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'php-apache', labels: { run: 'php-apache' } }, spec: { containers: [{ name: 'php-apache', image: 'registry.k8s.io/hpa-example', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m' }, requests: { cpu: '200m' } } }] } };
    expect((await s.json('POST', `${ns}/pods`, { body: php })).status).toBe(201);
    const ip = (await eventually(async () => (await s.json('GET', `${ns}/pods/php-apache`)).body, (p) => p?.status?.phase === 'Running' && !!p.status.podIP, 'php-apache running')).status.podIP;
    const cpu = async () => (await s.json('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/php-apache`)).body.containers[0].usage.cpu;
    expect(await cpu()).toBe('20m');
    // One request at a time, a hundredth of a second apart: the wait for each answer is php's 40 ms of work.
    const load = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'load' }, spec: { restartPolicy: 'Never', containers: [{ name: 'load', image: 'busybox:1.28', command: ['sh', '-c', `i=0; while [ $i -lt 400 ]; do sleep 0.01; wget -q -O- http://${ip}; i=$((i+1)); done`] }] } };
    expect((await s.json('POST', `${ns}/pods`, { body: load })).status).toBe(201);
    await eventually(async () => (await s.json('GET', `${ns}/pods/load`)).body?.status?.phase, (p) => p === 'Running', 'the load running');
    await passTime(s, loadWindowMs);
    // 20 requests a second of 40 ms each want 800m: CFS holds it to the limit.
    expect(await cpu()).toBe('500m');
    // 400 requests take 20 s; a window after the last only the idle share is left.
    await passTime(s, 5_000 + loadWindowMs);
    expect(await cpu()).toBe('20m');
  });
});

/** HorizontalPodAutoscaler defaults as kube-apiserver applies them (SetDefaults_HorizontalPodAutoscaler, v1 and v2), through HTTP. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
afterEach(async () => {
  await t?.server.close();
});

const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const scaleUpDefaults = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };

describe('HorizontalPodAutoscaler defaults', () => {
  it('v2: minReplicas 1, the 80% cpu target when no metric is given, and a given behavior filled rule by rule', async () => {
    t = await newTestServer();
    const r = await t.json('POST', V2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: target, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } } });
    expect(r.status).toBe(201);
    expect(r.body.spec.minReplicas).toBe(1);
    expect(r.body.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    expect(r.body.spec.behavior).toEqual({
      scaleUp: scaleUpDefaults,
      // The scale-down window stays unset: the controller's 5m downscale stabilization applies.
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    // No behavior given: none is made up.
    const plain = await t.json('POST', V2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'plain' }, spec: { scaleTargetRef: target, minReplicas: 2, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }] } } });
    expect(plain.body.spec).toEqual({ scaleTargetRef: target, minReplicas: 2, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }] });
  });

  it('v1 without a CPU target: stored without one, read as the 80% target in both versions, as the storage version\'s defaults on decode make it', async () => {
    t = await newTestServer();
    const r = await t.json('POST', V1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: target, maxReplicas: 5 } } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 });
    expect((await t.json('GET', `${V2}/h`)).body.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] });
    const list = await t.json('GET', V1);
    expect(list.body.items[0].spec.targetCPUUtilizationPercentage).toBe(80);
  });
});

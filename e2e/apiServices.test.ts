/**
 * Real kubectl 1.32 against the Node host: `kubectl get apiservices` lists the
 * APIServices kube-apiserver autoregisters (Local, Available) and, once a CRD
 * is applied, its group version's.
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

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

/** The table's rows as [NAME, SERVICE, AVAILABLE] (AGE varies). */
const rows = (out: string): string[][] => out.trim().split('\n').map((l) => l.trim().split(/\s+/).slice(0, 3));

describe('kubectl get apiservices', () => {
  it('lists the built-in group versions as Local and available', async () => {
    const out = await t.kubectlOk(['get', 'apiservices']);
    const table = rows(out);
    expect(table[0]).toEqual(['NAME', 'SERVICE', 'AVAILABLE']);
    expect(out.split('\n')[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(table).toContainEqual(['v1.', 'Local', 'True']);
    expect(table).toContainEqual(['v1.apps', 'Local', 'True']);
    expect(table).toContainEqual(['v2.autoscaling', 'Local', 'True']);
    const labels = await t.kubectlOk(['get', 'apiservice', 'v1.apps', '-o', 'jsonpath={.metadata.labels}']);
    expect(JSON.parse(labels)).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
  });

  it('a CRD applied gets its v1.<group>, gone with the CRD', async () => {
    await t.kubectlOk(['apply', '-f', '-'], crd);
    const listed = await eventually(() => t.kubectlOk(['get', 'apiservices']), (out) => /^v1\.example\.com\s+Local\s+True\s/m.test(out), 'v1.example.com listed');
    expect(rows(listed)).toContainEqual(['v1.example.com', 'Local', 'True']);
    expect(await t.kubectlOk(['get', 'apiservice', 'v1.example.com', '-o', 'jsonpath={.spec.groupPriorityMinimum} {.spec.versionPriority} {.metadata.labels}'])).toBe('1000 100 {"kube-aggregator.kubernetes.io/automanaged":"true"}');
    await t.kubectlOk(['delete', 'crd', 'gadgets.example.com']);
    await eventually(() => t.kubectl(['get', 'apiservice', 'v1.example.com']), (r) => r.code !== 0 && r.stderr.includes('NotFound'), 'v1.example.com removed');
  });
});

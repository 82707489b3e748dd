/**
 * Real kubectl 1.32 against the Node host: server-side apply of manifests
 * that do not fit the schema, and the server's error as kubectl prints it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const deployment = (name: string, extraSpec = '', image = 'nginx:1.27') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: ${image}
${extraSpec}`;

describe('kubectl apply --server-side of a manifest the schema rejects', () => {
  it('an unknown field: the server error (500, field not declared in schema), at every --validate level', async () => {
    for (const validate of ['--validate=strict', '--validate=warn', '--validate=ignore']) {
      const r = await t.kubectl(['apply', '--server-side', validate, '-f', '-'], deployment('broken', '  foo: bar\n'));
      expect(r.code, validate).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toBe(
        'Error from server: failed to create typed patch object (default/broken; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema',
      );
    }
    const g = await t.kubectl(['get', 'deployment', 'broken']);
    expect(g.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "broken" not found');
  });

  it('a scalar of the wrong type is named with its path and Go value', async () => {
    const r = await t.kubectl(['apply', '--server-side', '-f', '-'], deployment('typed', '', '5'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server: failed to create typed patch object (default/typed; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:5}',
    );
  });

  it('the same manifest without the unknown field applies', async () => {
    const r = await t.kubectl(['apply', '--server-side', '-f', '-'], deployment('broken'));
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('deployment.apps/broken serverside-applied');
  });
});

/** The Upgrade check panel's request and its reading of the answer, against the core's handle(). */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../../../core/testing/client';
import { createApiClient, type KubeObject } from '../../api';
import { buildCheck, convertedYaml, EXAMPLE_MANIFEST, REMOVED_API_CHECKS_PATH, verdict, type RemovedApiCheck } from './check';

describe('upgrade check', () => {
  it('posts the example manifests and joins the converted objects into one YAML stream', async () => {
    const t = await newTestServer();
    // The request the panel sends, through the workbench's client.
    const client = createApiClient((request) => t.server.handle(request), 'http://kubesim.test');
    const { object } = await client.write<KubeObject & RemovedApiCheck>('create', REMOVED_API_CHECKS_PATH, buildCheck(EXAMPLE_MANIFEST, ' 1.25 ') as unknown as KubeObject);
    const status = object.status!;
    expect(status.targetVersion).toBe('1.25');
    expect(status.objects.map(verdict)).toEqual(['removed in 1.22', 'removed in 1.25']);
    const yaml = convertedYaml(status.objects);
    expect(yaml.split('---\n').map((doc) => doc.split('\n')[0])).toEqual(['apiVersion: networking.k8s.io/v1', 'apiVersion: batch/v1']);
    expect(yaml).toContain('defaultBackend:\n    service:\n      name: web\n      port:\n        number: 80\n');
  });

  it('an empty target release means the server\'s; deprecated-but-served versions say so', async () => {
    expect(buildCheck('x', '').spec).toEqual({ manifests: 'x' });
    expect(verdict({ index: 0, apiVersion: 'v1', kind: 'Endpoints', removed: false, deprecatedIn: '1.33' })).toBe('deprecated since 1.33');
    expect(verdict({ index: 0, apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kind: 'FlowSchema', removed: false, removedIn: '1.32' })).toBe('will be removed in 1.32');
    expect(verdict({ index: 0, apiVersion: 'v1', kind: 'ConfigMap', removed: false })).toBe('served');
  });
});

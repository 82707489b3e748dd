import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceKind } from '../../api';
import { proxyPathOf } from './proxyLink';

const kind = (k: string, group = ''): ResourceKind => ({ group, version: 'v1', kind: k, resource: `${k.toLowerCase()}s`, namespaced: true, verbs: [] });
const obj = (spec: Record<string, unknown>, name = 'web'): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name, namespace: 'dev' }, spec }) as KubeObject;

describe('the proxy path a tab opens', () => {
  it("is the Service's first port, by name when it has one", () => {
    expect(proxyPathOf(kind('Service'), obj({ ports: [{ name: 'http', port: 80 }, { port: 443 }] }))).toBe('/api/v1/namespaces/dev/services/web:http/proxy/');
    expect(proxyPathOf(kind('Service'), obj({ ports: [{ port: 8080 }] }))).toBe('/api/v1/namespaces/dev/services/web:8080/proxy/');
    expect(proxyPathOf(kind('Service'), obj({ type: 'ExternalName', externalName: 'example.com', ports: [{ port: 80 }] }))).toBeUndefined();
    expect(proxyPathOf(kind('Service'), obj({}))).toBeUndefined();
  });

  it("is a Pod's first declared container port; none without one; nothing for other kinds", () => {
    expect(proxyPathOf(kind('Pod'), obj({ containers: [{ name: 'a' }, { name: 'b', ports: [{ containerPort: 8080 }] }] }))).toBe('/api/v1/namespaces/dev/pods/web:8080/proxy/');
    expect(proxyPathOf(kind('Pod'), obj({ containers: [{ name: 'a' }] }))).toBeUndefined();
    expect(proxyPathOf(kind('Deployment', 'apps'), obj({}))).toBeUndefined();
    expect(proxyPathOf(kind('ConfigMap'), obj({}))).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const created = '2025-05-31T12:00:00Z';

function cells(group: string, resource: string, obj: KubeObject) {
  return toTable([obj], { group, version: 'v1', resource, kind: obj.kind, now }).rows[0].cells;
}
const obj = (kind: string, apiVersion: string, name: string, body: Record<string, unknown>): KubeObject => ({
  apiVersion, kind, metadata: { name, namespace: 'default', creationTimestamp: created }, ...body,
});

describe('networking printers', () => {
  it.each([
    ['networking.k8s.io', 'ingresses', ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']],
    ['networking.k8s.io', 'ingressclasses', ['Name', 'Controller', 'Parameters', 'Age']],
    ['networking.k8s.io', 'networkpolicies', ['Name', 'Pod-Selector', 'Age']],
    ['discovery.k8s.io', 'endpointslices', ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']],
    ['networking.k8s.io', 'servicecidrs', ['Name', 'CIDRs', 'Age']],
  ])('%s/%s columns', (group, resource, names) => {
    expect(tableColumnsFor(group, resource).map((c) => c.name)).toEqual(names);
  });

  it.each<[string, string, string, KubeObject, unknown[]]>([
    [
      'ingress with TLS and a load balancer address', 'networking.k8s.io', 'ingresses',
      obj('Ingress', 'networking.k8s.io/v1', 'web', {
        spec: { ingressClassName: 'nginx', tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }], rules: [{ host: 'shop.example.com' }, { host: 'api.example.com' }] },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }, { ip: '192.0.2.10' }] } },
      }),
      ['web', 'nginx', 'shop.example.com,api.example.com', '192.0.2.10,192.0.2.20', '80, 443', '24h'],
    ],
    [
      'ingress without class, hosts or address', 'networking.k8s.io', 'ingresses',
      obj('Ingress', 'networking.k8s.io/v1', 'catch-all', { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, rules: [{ http: { paths: [] } }] }, status: { loadBalancer: {} } }),
      ['catch-all', '<none>', '*', '', '80', '24h'],
    ],
    [
      'ingress with more than three hosts', 'networking.k8s.io', 'ingresses',
      obj('Ingress', 'networking.k8s.io/v1', 'many', { spec: { rules: [{ host: 'a.io' }, { host: 'b.io' }, { host: 'c.io' }, { host: 'd.io' }, { host: 'e.io' }] } }),
      ['many', '<none>', 'a.io,b.io,c.io + 2 more...', '', '80', '24h'],
    ],
    [
      'ingress class with parameters', 'networking.k8s.io', 'ingressclasses',
      obj('IngressClass', 'networking.k8s.io/v1', 'nginx', { spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } } }),
      ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb', '24h'],
    ],
    [
      'network policy selecting every pod', 'networking.k8s.io', 'networkpolicies',
      obj('NetworkPolicy', 'networking.k8s.io/v1', 'default-deny', { spec: { podSelector: {}, policyTypes: ['Ingress'] } }),
      ['default-deny', '<none>', '24h'],
    ],
    [
      'network policy with a selector', 'networking.k8s.io', 'networkpolicies',
      obj('NetworkPolicy', 'networking.k8s.io/v1', 'db', { spec: { podSelector: { matchLabels: { role: 'db' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] } } }),
      ['db', 'env notin (dev),role=db', '24h'],
    ],
    [
      'endpoint slice', 'discovery.k8s.io', 'endpointslices',
      obj('EndpointSlice', 'discovery.k8s.io/v1', 'web-abc12', {
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'named' }, {}, { port: 9090 }],
        endpoints: [{ addresses: ['10.244.1.5'] }, { addresses: ['10.244.2.6', '10.244.2.7'] }, { addresses: ['10.244.3.8'] }],
      }),
      ['web-abc12', 'IPv4', '8080,named,* + 1 more...', '10.244.1.5,10.244.2.6,10.244.2.7 + 1 more...', '24h'],
    ],
    [
      'empty endpoint slice', 'discovery.k8s.io', 'endpointslices',
      obj('EndpointSlice', 'discovery.k8s.io/v1', 'web-empty', { addressType: 'IPv6', endpoints: [] }),
      ['web-empty', 'IPv6', '<unset>', '<unset>', '24h'],
    ],
    [
      'service CIDR', 'networking.k8s.io', 'servicecidrs',
      obj('ServiceCIDR', 'networking.k8s.io/v1', 'kubernetes', { spec: { cidrs: ['10.96.0.0/28', 'fd00:10:96::/112'] } }),
      ['kubernetes', '10.96.0.0/28,fd00:10:96::/112', '24h'],
    ],
    [
      'IP address owned by a service', 'networking.k8s.io', 'ipaddresses',
      obj('IPAddress', 'networking.k8s.io/v1', '10.96.0.1', { spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } } }),
      ['10.96.0.1', 'services/default/kubernetes', '24h'],
    ],
  ])('%s', (_name, group, resource, object, expected) => {
    expect(cells(group, resource, object)).toEqual(expected);
  });
});

/** Validation of networking.k8s.io kinds as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'networking.k8s.io';
const backend = { service: { name: 'web', port: { number: 80 } } };
const rule = (path: Record<string, unknown>) => ({ spec: { rules: [{ host: 'example.com', http: { paths: [{ backend, ...path }] } }] } });

describe('Ingress', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid Prefix path', rule({ path: '/', pathType: 'Prefix' }), []],
    ['API-VER-151: pathType required', rule({ path: '/' }), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']],
    ['API-VER-151: pathType Sometimes', rule({ path: '/', pathType: 'Sometimes' }), [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]],
    ['relative and dotted paths', rule({ path: 'a/./b/..', pathType: 'Exact' }), [
      'spec.rules[0].http.paths[0].path: Invalid value: "a/./b/..": must be an absolute path',
      'spec.rules[0].http.paths[0].path: Invalid value: "a/./b/..": must not contain \'/./\'',
      'spec.rules[0].http.paths[0].path: Invalid value: "a/./b/..": cannot end with \'/..\'',
    ]],
    ['neither rules nor default backend', { spec: {} }, ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']],
    ['IP host, bad wildcard', { spec: { rules: [{ host: '10.0.0.1' }, { host: 'a.*.com' }] } }, [
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      `spec.rules[1].host: Invalid value: "a.*.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]],
    ['backend without port, both port kinds', { spec: { defaultBackend: { service: { name: 'web' } }, rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http', number: 80 } } } }] } }] } }, [
      'spec.defaultBackend: Required value: port name or number is required',
      'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number',
    ]],
    ['no backend', { spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix' }] } }] } }, ['spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required']],
    ['class annotation disagreeing with ingressClassName', { metadata: { name: 'x', annotations: { 'kubernetes.io/ingress.class': 'a' } }, spec: { ingressClassName: 'b', defaultBackend: backend } }, [
      'annotations.kubernetes.io/ingress.class: Invalid value: "a": must match `ingressClassName` when both are specified',
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'ingresses', obj)).toEqual(want));
});

describe('IngressClass', () => {
  it('controller is a domain-prefixed path and fixed after creation', () => {
    expect(errorsOf(g, 'ingressclasses', { spec: { controller: 'example.com/ingress' } })).toEqual([]);
    expect(errorsOf(g, 'ingressclasses', { spec: {} })).toEqual(['spec.controller: Required value']);
    expect(errorsOf(g, 'ingressclasses', { spec: { controller: 'nginx' } })).toEqual(['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
    expect(errorsOf(g, 'ingressclasses', { spec: { controller: 'example.com/b' } }, { spec: { controller: 'example.com/a' } })).toEqual([
      'spec.controller: Invalid value: "example.com/b": field is immutable',
    ]);
    expect(errorsOf(g, 'ingressclasses', { spec: { controller: 'example.com/a', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } } })).toEqual([
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
  });
});

describe('NetworkPolicy', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', { spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80, endPort: 90 }] }] } }, []],
    ['peer with nothing, ipBlock with another peer', { spec: { podSelector: {}, ingress: [{ from: [{}, { podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }] } }, [
      'spec.ingress[0].from[0]: Required value: must specify a peer',
      'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
    ]],
    ['bad CIDRs', { spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16', 'x'] } }] }] } }, [
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
      'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]],
    ['ports', { spec: { podSelector: {}, ingress: [{ ports: [{ protocol: 'ICMP', port: 70000 }, { port: 'http', endPort: 90 }, { port: 90, endPort: 80 }] }] } }, [
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
      'spec.ingress[0].ports[2].endPort: Invalid value: 80: must be greater than or equal to `port`',
    ]],
    ['policy types', { spec: { podSelector: {}, policyTypes: ['Ingress', 'Sideways'] } }, ['spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'networkpolicies', obj)).toEqual(want));
});

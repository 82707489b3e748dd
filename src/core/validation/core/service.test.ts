/** ValidateService cases (object -> expected causes), as kube's validation_test.go tables, plus the examples over HTTP. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/types';
import { fieldErrorString } from '../../errors';
import { newTestServer } from '../../testing/client';
import { validateService, serviceValidation } from './service';

/** A defaulted, allocated ClusterIP Service as validation sees it. */
function svc(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' },
    spec: {
      type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', selector: { app: 'a' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      ...spec,
    },
  };
}

const cases: [string, Record<string, unknown>, string[]][] = [
  ['valid', {}, []],
  ['no ports', { ports: [] }, ['spec.ports: Required value']],
  ['port 70000', { ports: [{ port: 70000, protocol: 'TCP', targetPort: 80 }] }, ['spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive']],
  ['port 0 and bad targetPort', { ports: [{ port: 0, protocol: 'TCP', targetPort: 0 }] }, [
    'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
  ]],
  ['unsupported protocol', { ports: [{ port: 80, protocol: 'HTTP', targetPort: 80 }] }, ['spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']],
  ['two ports need names, names unique and DNS labels', {
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { name: 'Web', port: 81, protocol: 'TCP', targetPort: 81 }, { name: 'Web', port: 82, protocol: 'TCP', targetPort: 'http_x' }],
  }, [
    'spec.ports[0].name: Required value',
    "spec.ports[1].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "spec.ports[2].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    'spec.ports[2].name: Duplicate value: "Web"',
    'spec.ports[2].targetPort: Invalid value: "http_x": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
  ]],
  ['duplicate port', { ports: [{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80 }, { name: 'b', port: 80, protocol: 'TCP', targetPort: 81 }] }, [
    'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  ]],
  ['unsupported type', { type: 'Internal' }, ['spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']],
  ['nodePort on ClusterIP', { ports: [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30001 }] }, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]],
  ['unsupported session affinity', { sessionAffinity: 'Sticky' }, ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']],
  ['ClientIP timeout out of range', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 90000 } } }, [
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 and less than 86400',
  ]],
  ['bad selector value', { selector: { app: 'a b' } }, [
    "spec.selector: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]],
  ['clusterIPs out of step', { clusterIPs: ['10.96.0.11'] }, ['spec.clusterIPs: Invalid value: []string{"10.96.0.11"}: first value must match `clusterIP`']],
  ['invalid clusterIP', { clusterIP: '10.96.0.300', clusterIPs: ['10.96.0.300'] }, ['spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
  ['unsupported ipFamilyPolicy', { ipFamilyPolicy: 'Both' }, ['spec.ipFamilyPolicy: Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"']],
  ['ExternalName needs a name', { type: 'ExternalName', clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined, internalTrafficPolicy: undefined }, ['spec.externalName: Required value']],
  ['ExternalName with clusterIPs', { type: 'ExternalName', externalName: 'example.com', ipFamilies: undefined, ipFamilyPolicy: undefined }, ['spec.clusterIPs: Forbidden: may not be set for ExternalName services']],
  ['NodePort headless', { type: 'NodePort', clusterIP: 'None', clusterIPs: ['None'], externalTrafficPolicy: 'Cluster' }, ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"]],
  ['externalTrafficPolicy on ClusterIP', { externalTrafficPolicy: 'Local' }, ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services']],
  ['loadBalancerSourceRanges on ClusterIP', { loadBalancerSourceRanges: ['10.0.0.0/8', 'nope'] }, [
    "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
    'spec.LoadBalancerSourceRanges[1]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]],
  ['duplicate nodePort', { type: 'NodePort', externalTrafficPolicy: 'Cluster', ports: [{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30001 }, { name: 'b', port: 81, protocol: 'TCP', targetPort: 81, nodePort: 30001 }] }, [
    'spec.ports[1].nodePort: Duplicate value: 30001',
  ]],
  ['headless without ports is fine', { clusterIP: 'None', clusterIPs: ['None'], ports: [] }, []],
];

describe('ValidateService', () => {
  it.each(cases)('%s', (_name, spec, want) => {
    const s = svc(spec);
    for (const [k, v] of Object.entries(s['spec'] as Record<string, unknown>)) if (v === undefined) delete (s['spec'] as Record<string, unknown>)[k];
    expect(validateService(s).map(fieldErrorString)).toEqual(want);
  });

  it('update: clusterIP may not change; ipFamilies may not change', () => {
    const ctx = { now: new Date(), subresource: '', random: { fill: (b: Uint8Array) => b } };
    const changed = svc({ clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] });
    expect(serviceValidation.validateUpdate!(changed, svc(), ctx).map(fieldErrorString)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
  });
});

describe('Service validation over HTTP (issue examples)', () => {
  it('a Service port of 70000, or no ports at all, is 422 with every cause', async () => {
    const t = await newTestServer();
    const SVC = '/api/v1/namespaces/default/services';
    const port = await t.json('POST', SVC, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'big' }, spec: { ports: [{ port: 70000 }] } } });
    expect(port.status).toBe(422);
    expect(port.body.message).toBe('Service "big" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]');
    const none = await t.json('POST', SVC, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'none' }, spec: { selector: { app: 'x' } } } });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ reason: 'Invalid', message: 'Service "none" is invalid: spec.ports: Required value', details: { name: 'none', kind: 'Service', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports' }] } });
  });
});

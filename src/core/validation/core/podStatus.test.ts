/** Pod status writes as kube validates them (ValidatePodStatusUpdate): a table of (status, expected errors), and once over HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { errorsOf } from '../testing';

const spec = { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] };
const old = { spec, status: { phase: 'Running', qosClass: 'BestEffort', podIPs: [{ ip: '10.244.0.5' }], containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0 } } }] } };
const write = (status: Record<string, unknown>, s: Record<string, unknown> = spec) => ({ spec: s, status: { ...old.status, ...status } });
const statusErrors = (next: Record<string, unknown>, prev: Record<string, unknown> = old) => errorsOf('', 'pods', next, prev, 'status');

describe('ValidatePodStatusUpdate', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['unchanged', write({}), []],
    ['system and qualified condition types', write({ conditions: [{ type: 'Ready', status: 'True' }, { type: 'example.com/warm', status: 'True' }] }), []],
    ['dual-stack pod IPs', write({ podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }], hostIPs: [{ ip: '192.168.1.10' }] }), []],
    ['condition type not a qualified name', write({ conditions: [{ type: 'bad type', status: 'True' }] }), [
      "metadata.conditions[0].Type: Invalid value: \"bad type\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]],
    ['pod IPs', write({ podIPs: [{ ip: '10.244.0.6' }, { ip: '10.244.0.6' }, { ip: 'x' }] }), [
      'status.podIPs[2]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.244.0.6"}, core.PodIP{IP:"10.244.0.6"}, core.PodIP{IP:"x"}}: may specify no more than one IP for each IP family',
      'status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.244.0.6"}',
    ]],
    ['strict new addresses', write({ podIPs: [{ ip: '10.244.0.05' }], hostIPs: [{ ip: '::ffff:192.168.1.10' }] }), [
      'status.podIPs[0]: Invalid value: "10.244.0.05": must not have leading 0s',
      'status.hostIPs[0]: Invalid value: "::ffff:192.168.1.10": must not be an IPv4-mapped IPv6 address',
    ]],
    ['terminated container restarted under restartPolicy Never', write({ containerStatuses: [{ name: 'c', state: { running: {} } }] }), [
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]],
    ['qos class, nominated node, observed generation', write({ qosClass: 'Guaranteed', nominatedNodeName: 'Node_1', observedGeneration: -1 }), [
      "status.nominatedNodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'status.observedGeneration: Invalid value: -1: must be a non-negative integer',
      'status.qosClass: Invalid value: "Guaranteed": field is immutable',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, next, want) => expect(statusErrors(next)).toEqual(want));

  it('a restarting pod may bring a terminated container back; a failed one may under OnFailure', () => {
    const running = { containerStatuses: [{ name: 'c', state: { running: {} } }] };
    expect(statusErrors(write(running, { ...spec, restartPolicy: 'Always' }), { ...old, spec: { ...spec, restartPolicy: 'Always' } })).toEqual([]);
    const failed = { ...old, spec: { ...spec, restartPolicy: 'OnFailure' }, status: { ...old.status, containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 1 } } }] } };
    expect(statusErrors(write(running, failed.spec), failed)).toEqual([]);
  });
});

describe('over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await newTestServer();
  });
  it('API-ERR-022: a pods/status write with duplicate pod IPs and a bad condition type is 422 with every cause', async () => {
    const PODS = '/api/v1/namespaces/default/pods';
    const c = await t.json('POST', PODS, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    expect(c.status).toBe(201);
    const status = { ...c.body.status, podIPs: [{ ip: '10.244.0.7' }, { ip: '10.244.0.7' }], conditions: [{ type: 'bad type', status: 'True' }] };
    const r = await t.json('PUT', `${PODS}/web/status`, { body: { ...c.body, status } });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((x: { field: string; reason: string }) => `${x.field} ${x.reason}`)).toEqual([
      'metadata.conditions[0].Type FieldValueInvalid',
      'status.podIPs FieldValueInvalid',
      'status.podIPs[1] FieldValueDuplicate',
    ]);
    const ok = await t.json('PUT', `${PODS}/web/status`, { body: { ...c.body, status: { ...c.body.status, podIPs: [{ ip: '10.244.0.7' }], phase: 'Running' } } });
    expect(ok.status).toBe(200);
    expect(ok.body.status.podIPs).toEqual([{ ip: '10.244.0.7' }]);
  });
});

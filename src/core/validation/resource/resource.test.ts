/** resource.k8s.io (DRA) kinds as kube validates them: tables of (object, expected errors), and once over HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { errorsOf } from '../testing';

const g = 'resource.k8s.io';
const claim = (devices: Record<string, unknown>) => ({ spec: { devices } });
const gpu = { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } };
const dns1123LabelMsg = (v: string) =>
  `Invalid value: "${v}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
const refMsg = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

describe('ResourceClaim', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['no requests', claim({}), []],
    ['exact request with selectors, constraint and config', claim({
      requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 2, selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } }],
      constraints: [{ requests: ['gpu'], matchAttribute: 'gpu.example.com/model' }],
      config: [{ requests: ['gpu'], opaque: { driver: 'gpu.example.com', parameters: { mode: 'fast' } } }],
    }), []],
    ['first available alternatives referenced as request/subrequest', claim({
      requests: [{ name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com' }, { name: 'small', deviceClassName: 'small.example.com', allocationMode: 'All' }] }],
      constraints: [{ requests: ['gpu/big'], matchAttribute: 'example.com/numa' }],
    }), []],
    ['request needs exactly one of exactly and firstAvailable', claim({ requests: [{ name: 'a' }, { ...gpu, firstAvailable: [{ name: 'x', deviceClassName: 'c' }] }] }), [
      'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required',
      'spec.devices.requests[1]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set',
    ]],
    ['names, classes, modes, selectors', claim({
      requests: [
        { name: 'GPU', exactly: { allocationMode: 'Some', selectors: [{}, { cel: { expression: '' } }] } },
        { name: 'gpu', exactly: { deviceClassName: 'c', allocationMode: 'All', count: 2 } },
        { name: 'gpu', exactly: { deviceClassName: 'c', count: -1 } },
      ],
    }), [
      `spec.devices.requests[0].name: ${dns1123LabelMsg('GPU')}`,
      'spec.devices.requests[0].exactly.deviceClassName: Required value',
      'spec.devices.requests[0].exactly.selectors[0].cel: Required value',
      'spec.devices.requests[0].exactly.selectors[1].cel.expression: Required value',
      'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"',
      "spec.devices.requests[1].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'",
      'spec.devices.requests[2].exactly.count: Invalid value: -1: must be greater than zero',
      'spec.devices.requests[2].name: Duplicate value: "gpu"',
    ]],
    ['constraints and config name existing requests', claim({
      requests: [gpu],
      constraints: [{ requests: ['tpu', 'gpu/x/y'] }, { requests: ['gpu', 'gpu'], matchAttribute: 'model' }],
      config: [{ requests: ['gpu'] }, { opaque: { driver: 'Bad_Driver', parameters: ['x'] } }],
    }), [
      `spec.devices.constraints[0].requests[0]: Invalid value: "tpu": ${refMsg}`,
      `spec.devices.constraints[0].requests[1]: Invalid value: "gpu/x/y": ${refMsg}`,
      'spec.devices.constraints[0].matchAttribute: Required value',
      'spec.devices.constraints[1].requests[1]: Duplicate value: "gpu"',
      'spec.devices.constraints[1].matchAttribute: Invalid value: "model": must include a domain',
      'spec.devices.config[0].opaque: Required value',
      "spec.devices.config[1].opaque.driver: Invalid value: \"Bad_Driver\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.devices.config[1].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object',
    ]],
    ['tolerations', claim({ requests: [{ name: 'gpu', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }, { operator: 'Like', effect: 'Evict' }] } }] }), [
      'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": must be empty for operator `Exists`',
      'spec.devices.requests[0].exactly.tolerations[1].operator: Unsupported value: "Like": supported values: "Equal", "Exists"',
      'spec.devices.requests[0].exactly.tolerations[1].effect: Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule"',
    ]],
    ['list limits', claim({ requests: Array.from({ length: 33 }, (_, i) => ({ name: `r${i}`, exactly: { deviceClassName: 'c' } })) }), [
      'spec.devices.requests: Too many: 33: must have at most 32 items',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, obj, want) => expect(errorsOf(g, 'resourceclaims', obj)).toEqual(want));

  it('the spec is immutable; status writes are not held to it', () => {
    const old = claim({ requests: [gpu] });
    expect(errorsOf(g, 'resourceclaims', old, old)).toEqual([]);
    expect(errorsOf(g, 'resourceclaims', claim({ requests: [{ ...gpu, name: 'tpu' }] }), old)).toEqual(['spec: Invalid value: resource.ResourceClaimSpec{...}: field is immutable']);
    expect(errorsOf(g, 'resourceclaims', claim({}), old, 'status')).toEqual([]);
  });

  it('status: reservedFor names each consumer once, only on an allocated claim, and the allocation stays', () => {
    const allocation = { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }] } };
    const consumer = { resource: 'pods', name: 'web', uid: 'u-1' };
    const base = claim({ requests: [gpu] });
    expect(errorsOf(g, 'resourceclaims', { ...base, status: { allocation, reservedFor: [consumer] } }, base, 'status')).toEqual([]);
    expect(errorsOf(g, 'resourceclaims', { ...base, status: { reservedFor: [consumer, { uid: 'u-1' }] } }, base, 'status')).toEqual([
      'status.reservedFor[1].resource: Required value',
      'status.reservedFor[1].name: Required value',
      'status.reservedFor[1].uid: Duplicate value: "u-1"',
      'status.reservedFor: Forbidden: may not be specified when `allocated` is not set',
    ]);
    const moved = { devices: { results: [{ ...allocation.devices.results[0], device: 'gpu-1' }] } };
    expect(errorsOf(g, 'resourceclaims', { ...base, status: { allocation: moved } }, { ...base, status: { allocation } }, 'status')).toEqual([
      'status.allocation: Invalid value: resource.AllocationResult{...}: field is immutable',
    ]);
  });
});

describe('ResourceClaimTemplate', () => {
  it('API-ERR-007: template metadata labels and the claim spec inside', () => {
    expect(errorsOf(g, 'resourceclaimtemplates', { spec: { metadata: { labels: { app: 'web' } }, spec: { devices: { requests: [gpu] } } } })).toEqual([]);
    expect(errorsOf(g, 'resourceclaimtemplates', { spec: { metadata: { labels: { 'bad key!': 'x' } }, spec: { devices: { requests: [{ name: 'gpu' }] } } } })).toEqual([
      "spec.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required',
    ]);
  });
  it('the spec is immutable', () => {
    const old = { spec: { spec: { devices: { requests: [gpu] } } } };
    expect(errorsOf(g, 'resourceclaimtemplates', { spec: { spec: { devices: {} } } }, old)).toEqual(['spec: Invalid value: resource.ResourceClaimTemplateSpec{...}: field is immutable']);
  });
});

describe('DeviceClass', () => {
  it('API-ERR-007: selectors and config', () => {
    expect(errorsOf(g, 'deviceclasses', { spec: { selectors: [{ cel: { expression: 'true' } }], config: [{ opaque: { driver: 'gpu.example.com', parameters: {} } }] } })).toEqual([]);
    expect(errorsOf(g, 'deviceclasses', { spec: { selectors: [{ cel: {} }], config: [{ opaque: { parameters: {} } }, { opaque: { driver: 'gpu.example.com' } }] } })).toEqual([
      'spec.selectors[0].cel.expression: Required value',
      'spec.config[0].opaque.driver: Required value',
      'spec.config[1].opaque.parameters: Required value',
    ]);
  });
});

describe('ResourceSlice', () => {
  const slice = (s: Record<string, unknown>) => ({ spec: { driver: 'gpu.example.com', pool: { name: 'node-1', resourceSliceCount: 1 }, nodeName: 'node-1', ...s } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', slice({ devices: [{ name: 'gpu-0', attributes: { model: { string: 'a100' }, 'gpu.example.com/driverVersion': { version: '1.2.3' } }, capacity: { memory: { value: '40Gi' } } }] }), []],
    ['empty spec', { spec: {} }, [
      'spec.driver: Required value',
      'spec.pool.name: Required value',
      'spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero',
      'spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
    ]],
    ['two node selections, bad pool', slice({ allNodes: true, pool: { name: 'a//b', resourceSliceCount: 1, generation: -1 } }), [
      "spec.pool.name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.pool.generation: Invalid value: -1: must be greater than or equal to zero',
      'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
    ]],
    ['node selector', slice({ nodeName: undefined, nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near' }] }, {}] } }), [
      'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'spec.nodeSelector.nodeSelectorTerms: Invalid value: []core.NodeSelectorTerm{...}: must have exactly one node selector term',
    ]],
    ['devices', slice({ devices: [{ name: 'gpu-0', attributes: { a: {}, b: { int: 1, bool: true }, c: { version: 'v1' } } }, { name: 'gpu-0' }] }), [
      'spec.devices[0].attributes[a]: Required value: exactly one value must be specified',
      'spec.devices[0].attributes[b]: Invalid value: resource.DeviceAttribute{...}: exactly one value must be specified',
      'spec.devices[0].attributes[c].version: Invalid value: "v1": must be a string compatible with semver.org spec 2.0.0',
      'spec.devices[1].name: Duplicate value: "gpu-0"',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, obj, want) => expect(errorsOf(g, 'resourceslices', obj)).toEqual(want));

  it('driver, pool name and node name are immutable', () => {
    expect(errorsOf(g, 'resourceslices', slice({ driver: 'tpu.example.com', nodeName: 'node-2' }), slice({}))).toEqual([
      'spec.driver: Invalid value: "tpu.example.com": field is immutable',
      'spec.nodeName: Invalid value: "node-2": field is immutable',
    ]);
  });
});

describe('over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await newTestServer();
  });
  it('API-ERR-022: an invalid ResourceClaim is 422 with every cause; a valid one is created and its spec cannot change', async () => {
    const path = '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims';
    const body = (devices: Record<string, unknown>) => ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'gpu' }, spec: { devices } });
    const r = await t.json('POST', path, { body: body({ requests: [{ name: 'gpu' }], constraints: [{ requests: ['tpu'], matchAttribute: 'example.com/numa' }] }) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      `ResourceClaim.resource.k8s.io "gpu" is invalid: [spec.devices.requests[0]: Required value: exactly one of \`exactly\` or \`firstAvailable\` is required, spec.devices.constraints[0].requests[0]: Invalid value: "tpu": ${refMsg}]`,
    );
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.devices.requests[0]', 'spec.devices.constraints[0].requests[0]']);
    const ok = await t.json('POST', path, { body: body({ requests: [gpu] }) });
    expect(ok.status).toBe(201);
    const u = await t.json('PUT', `${path}/gpu`, { body: { ...ok.body, spec: { devices: { requests: [{ ...gpu, name: 'tpu' }] } } } });
    expect(u.status).toBe(422);
    expect(u.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: resource.ResourceClaimSpec{...}: field is immutable', field: 'spec' }]);
  });
});

/** Validation of the core group's kinds other than pods and services, as tables of (object, expected errors) like kube's validation_test.go. */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const keyMsg = (k: string) =>
  `data[${k}]: Invalid value: "${k}": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`;
const b64 = (s: string) => btoa(s);

describe('ConfigMap', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid keys', { data: { 'a.b_c-D': 'x' }, binaryData: { bin: b64('y') } }, []],
    ['a key with a space and !', { data: { 'bad key!': 'x' } }, [keyMsg('bad key!')]],
    ['.. and ..x keys', { data: { '..': 'x', '..x': 'y' } }, ["data[..]: Invalid value: \"..\": must not be '..'", "data[..x]: Invalid value: \"..x\": must not start with '..'"]],
    ['a key in both data and binaryData', { data: { k: 'x' }, binaryData: { k: b64('y') } }, ['data[k]: Invalid value: "k": duplicate of key present in binaryData']],
    ['more than 1 MiB in all', { data: { a: 'x'.repeat(600 * 1024) }, binaryData: { b: b64('y'.repeat(600 * 1024)) } }, [': Too long: may not be more than 1048576 bytes']],
  ];
  it.each(cases)('create: %s', (_n, obj, want) => expect(errorsOf('', 'configmaps', obj)).toEqual(want));

  it('update: an immutable ConfigMap keeps its data, binaryData and immutable flag', () => {
    const old = { immutable: true, data: { a: '1' } };
    expect(errorsOf('', 'configmaps', { immutable: true, data: { a: '1' } }, old)).toEqual([]);
    expect(errorsOf('', 'configmaps', { immutable: false, data: { a: '2' }, binaryData: { b: b64('x') } }, old)).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
      'binaryData: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(errorsOf('', 'configmaps', { immutable: true, data: { a: '2' } }, { data: { a: '1' } })).toEqual([]);
  });
});

describe('Secret', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['Opaque with any keys', { type: 'Opaque', data: { a: b64('x') } }, []],
    ['no type', { stringData: { 'x.y': 'z' } }, []],
    ['bad key in stringData (merged into data)', { stringData: { 'a b': 'z' } }, [keyMsg('a b')]],
    ['tls without its keys', { type: 'kubernetes.io/tls', data: {} }, ['data[tls.crt]: Required value', 'data[tls.key]: Required value']],
    ['tls with both keys', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } }, []],
    ['basic-auth with neither key', { type: 'kubernetes.io/basic-auth' }, ['data[username]: Required value', 'data[password]: Required value']],
    ['basic-auth with an empty password only', { type: 'kubernetes.io/basic-auth', stringData: { password: '' } }, []],
    ['ssh-auth with an empty key', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }, ['data[ssh-privatekey]: Required value']],
    ['dockerconfigjson missing', { type: 'kubernetes.io/dockerconfigjson' }, ['data[.dockerconfigjson]: Required value']],
    [
      'dockerconfigjson not JSON',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('bad') } },
      ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'b\' looking for beginning of value'],
    ],
    ['dockercfg as JSON', { type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '{"r":{}}' } }, []],
    ['service-account-token without the account annotation', { type: 'kubernetes.io/service-account-token' }, ['metadata.annotations[kubernetes.io/service-account.name]: Required value']],
    ['more than 1 MiB', { stringData: { a: 'x'.repeat(1024 * 1024 + 1) } }, ['data: Too long: may not be more than 1048576 bytes']],
  ];
  it.each(cases)('create: %s', (_n, obj, want) => expect(errorsOf('', 'secrets', obj)).toEqual(want));

  it('update: type is immutable (absent is Opaque), and so is the data of an immutable Secret', () => {
    expect(errorsOf('', 'secrets', { type: 'Opaque' }, {})).toEqual([]);
    expect(errorsOf('', 'secrets', { type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }, {})).toEqual(['type: Invalid value: "kubernetes.io/basic-auth": field is immutable']);
    expect(errorsOf('', 'secrets', { immutable: true, data: { a: b64('2') } }, { immutable: true, data: { a: b64('1') } })).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(errorsOf('', 'secrets', { data: { a: b64('1') } }, { immutable: true, data: { a: b64('1') } })).toEqual(['immutable: Forbidden: field is immutable when `immutable` is set']);
  });
});

describe('Namespace', () => {
  it('spec.finalizers are standard names or domain-qualified', () => {
    expect(errorsOf('', 'namespaces', { spec: { finalizers: ['kubernetes', 'example.com/x'] } })).toEqual([]);
    expect(errorsOf('', 'namespaces', { spec: { finalizers: ['custom'] } })).toEqual(['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
  });

  it('status: the phase follows deletionTimestamp', () => {
    const old = { status: { phase: 'Active' } };
    expect(errorsOf('', 'namespaces', { status: { phase: 'Active' } }, old, 'status')).toEqual([]);
    expect(errorsOf('', 'namespaces', { status: { phase: 'Terminating' } }, old, 'status')).toEqual([
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
  });
});

describe('PersistentVolumeClaim', () => {
  const spec = (s: Record<string, unknown>) => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...s } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', spec({}), []],
    ['no access modes, no storage request', { spec: {} }, ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']],
    [
      'unknown mode, RWOP with others',
      spec({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'Sometimes'] }),
      [
        'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
      ],
    ],
    ['zero storage', spec({ resources: { requests: { storage: '0Gi' } } }), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']],
    ['bad volume mode and class', spec({ volumeMode: 'Raw', storageClassName: 'Fast' }), [
      `spec.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
    ]],
  ];
  it.each(cases)('create: %s', (_n, obj, want) => expect(errorsOf('', 'persistentvolumeclaims', obj)).toEqual(want));

  it('update: the spec of an unbound claim is fixed, except volumeName (once) and a first storageClassName', () => {
    const old = spec({});
    expect(errorsOf('', 'persistentvolumeclaims', spec({ volumeName: 'pv1', storageClassName: 'fast' }), old)).toEqual([]);
    expect(errorsOf('', 'persistentvolumeclaims', spec({ accessModes: ['ReadWriteMany'] }), old)).toEqual([
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    ]);
    const bound = { ...spec({}), status: { phase: 'Bound' } };
    expect(errorsOf('', 'persistentvolumeclaims', { ...spec({ resources: { requests: { storage: '2Gi' } } }), status: { phase: 'Bound' } }, bound)).toEqual([]);
  });
});

describe('PersistentVolume', () => {
  const pv = (s: Record<string, unknown>) => ({ spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' }, ...s } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid hostPath', pv({}), []],
    ['nothing', { spec: {} }, ['spec.accessModes: Required value', 'spec.capacity: Required value', 'spec.capacity: Unsupported value: core.ResourceList{}: supported values: "storage"', 'spec: Required value: must specify a volume type']],
    ['two sources', pv({ nfs: { server: 'nfs', path: '/x' } }), ['spec.nfs: Forbidden: may not specify more than 1 volume type']],
    ['local without node affinity', pv({ hostPath: undefined, local: { path: '/mnt' } }), ['spec.nodeAffinity: Required value: Local volume requires node affinity']],
    ['unknown reclaim policy', pv({ persistentVolumeReclaimPolicy: 'Keep' }), ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
  ];
  it.each(cases)('create: %s', (_n, obj, want) => expect(errorsOf('', 'persistentvolumes', obj)).toEqual(want));

  it('update: the volume source is fixed', () => {
    expect(errorsOf('', 'persistentvolumes', pv({ hostPath: { path: '/other' } }), pv({}))).toEqual(['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
  });
});

describe('ResourceQuota and LimitRange', () => {
  it('quota resources are standard or qualified, counts whole, nothing negative', () => {
    expect(errorsOf('', 'resourcequotas', { spec: { hard: { pods: '10', 'requests.cpu': '2', 'count/deployments.apps': '3' } } })).toEqual([]);
    expect(errorsOf('', 'resourcequotas', { spec: { hard: { pods: '1.5', 'limits.memory': '-1Gi', widgets: '1' } } })).toEqual([
      'spec.hard[pods]: Invalid value: "1500m": must be an integer', // kube prints Quantity.String(), the canonical form
      'spec.hard[limits.memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    ]);
    expect(errorsOf('', 'resourcequotas', { spec: { scopes: ['Terminating', 'NotTerminating'] } })).toEqual([
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes',
    ]);
  });

  it('limit ranges order min <= default request <= default <= max', () => {
    expect(errorsOf('', 'limitranges', { spec: { limits: [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' } }] } })).toEqual([]);
    expect(errorsOf('', 'limitranges', { spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }, { type: 'Container' }] } })).toEqual([
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
      'spec.limits[1].type: Duplicate value: "Container"',
    ]);
    expect(errorsOf('', 'limitranges', { spec: { limits: [{ type: 'Pod', default: { cpu: '1' } }, { type: 'PersistentVolumeClaim' }] } })).toEqual([
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[1].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
    ]);
  });
});

// ValidateQualifiedName of an empty controller adds both of these after Required, as upstream does.
const emptyQualified = (f: string) => [
  `${f}: Invalid value: "": name part must be non-empty`,
  `${f}: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
];

describe('Event', () => {
  const strict = {
    apiVersion: 'events.k8s.io/v1', eventTime: '2026-01-01T00:00:00.000000Z', type: 'Normal', reason: 'Started', action: 'Start',
    reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
  };
  const ev = (o: Record<string, unknown>) => errorsOf('events.k8s.io', 'events', { ...strict, ...o });
  it('events.k8s.io/v1: valid', () => expect(ev({})).toEqual([]));
  it('API-VER-112: type may only be Normal or Warning', () => expect(ev({ type: 'Other' })).toEqual(['type: Invalid value: "": has invalid value: Other']));
  it('API-VER-114, API-VER-115, API-VER-116, API-VER-117: action, reason, reportingController and reportingInstance are required', () => {
    expect(ev({ action: undefined, reason: undefined, reportingController: undefined, reportingInstance: undefined })).toEqual([
      'reportingController: Required value',
      ...emptyQualified('reportingController'),
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
  });
  it('API-VER-123: deprecated fields are not allowed on new objects', () => {
    expect(ev({ deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedCount: 3, deprecatedSource: { component: 'x' } })).toEqual([
      'firstTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
  });
  it('series needs count >= 2 and lastObservedTime; updates keep the identity fields', () => {
    expect(ev({ series: { count: 1 } })).toEqual(['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value']);
    expect(errorsOf('events.k8s.io', 'events', { ...strict, reason: 'Other' }, strict)).toEqual(['reason: Invalid value: "Other": field is immutable']);
  });
  it('core/v1 events are validated leniently', () => {
    expect(errorsOf('', 'events', { involvedObject: { kind: 'Pod', name: 'p' }, reason: 'x' })).toEqual([]);
    expect(errorsOf('', 'events', { involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } })).toEqual([
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
    expect(errorsOf('', 'events', { eventTime: '2026-01-01T00:00:00.000000Z', reason: 'x', action: 'y', reportingInstance: 'i' })).toEqual(['reportingComponent: Required value', ...emptyQualified('reportingComponent')]);
  });
});

describe('Node and RuntimeClass', () => {
  it('Node: taints (reported under metadata), pod CIDRs set once', () => {
    expect(errorsOf('', 'nodes', { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], podCIDRs: ['10.244.0.0/24'] } })).toEqual([]);
    expect(errorsOf('', 'nodes', { spec: { taints: [{ key: 'a', effect: 'Sometimes' }, { key: 'b', effect: 'NoExecute' }, { key: 'b', effect: 'NoExecute' }] } })).toEqual([
      'metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[2]: Duplicate value: core.Taint{Key:"b", Value:"", Effect:"NoExecute", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
    ]);
    expect(errorsOf('', 'nodes', { spec: { podCIDRs: ['10.244.1.0/24'] } }, { spec: { podCIDRs: ['10.244.0.0/24'] } })).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    ]);
  });

  it('RuntimeClass: the handler is a DNS label and fixed', () => {
    expect(errorsOf('node.k8s.io', 'runtimeclasses', { handler: 'runc' })).toEqual([]);
    expect(errorsOf('node.k8s.io', 'runtimeclasses', { handler: 'run_c' })).toEqual([
      `handler: Invalid value: "run_c": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    expect(errorsOf('node.k8s.io', 'runtimeclasses', { handler: 'kata' }, { handler: 'runc' })).toEqual(['handler: Invalid value: "kata": field is immutable']);
  });
});

import { Reader, Writer } from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import * as fx from './fixtures.test-data';
import {
  PROTOBUF_MAGIC,
  ProtobufDecodeError,
  ProtobufEncodeError,
  decodeProtobuf,
  encodeProtobuf,
  supportsProtobuf,
} from './index';

// ---------------------------------------------------------------------------
// Independent wire helpers: bytes built by hand from the .proto field numbers,
// the way Go's generated marshallers write them, without the codec under test.

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const fromHex = (h: string) => new Uint8Array(h.replace(/\s+/g, '').match(/../g)!.map((x) => parseInt(x, 16)));

/** A message body from tag/value writes. */
function msg(build: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  build(w);
  return w.finish();
}

/** `k8s\0` + runtime.Unknown{typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = msg((w) => {
    w.uint32(0x0a).bytes(msg((t) => t.uint32(0x0a).string(apiVersion).uint32(0x12).string(kind)));
    w.uint32(0x12).bytes(raw);
    w.uint32(0x1a).string('').uint32(0x22).string('');
  });
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown]);
}

const EMPTY = new Uint8Array(0);

/** ObjectMeta as Go writes it for a client-built object: every non-pointer field, zero or not. */
function goObjectMeta(name: string, labels: Record<string, string> = {}): Uint8Array {
  return msg((w) => {
    w.uint32(0x0a).string(name); // name = 1
    for (const id of [2, 3, 4, 5, 6]) w.uint32((id << 3) | 2).string(''); // generateName .. resourceVersion
    w.uint32(0x38).int64(0); // generation = 7
    w.uint32(0x42).bytes(EMPTY); // creationTimestamp = 8: zero time, empty message
    for (const [k, v] of Object.entries(labels)) {
      w.uint32(0x5a).bytes(msg((e) => e.uint32(0x0a).string(k).uint32(0x12).string(v))); // labels = 11
    }
  });
}

/** Reads the fields of one message: field number -> raw values (bytes for length-delimited). */
function readFields(bytes: Uint8Array): Map<number, Array<Uint8Array | number>> {
  const r = new Reader(bytes);
  const fields = new Map<number, Array<Uint8Array | number>>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    const value = (tag & 7) === 2 ? r.bytes() : r.uint32();
    const list = fields.get(tag >>> 3) ?? [];
    list.push(value);
    fields.set(tag >>> 3, list);
  }
  return fields;
}
const text = (v: Uint8Array | number | undefined) => new TextDecoder().decode(v as Uint8Array);

// ---------------------------------------------------------------------------

describe('protobuf envelope', () => {
  it('[API-ENC-001] an encoded body starts with the magic prefix 6b 38 73 00', () => {
    const bytes = encodeProtobuf(fx.pod);
    expect(hex(bytes.subarray(0, 4))).toBe('6b387300');
    expect(hex(PROTOBUF_MAGIC as Uint8Array)).toBe('6b387300');
  });

  it('[API-ENC-002] [API-ENC-003] [API-ENC-004] [API-ENC-005] [API-ENC-006] [API-ENC-007] [API-ENC-008] the rest is runtime.Unknown{typeMeta, raw, contentEncoding, contentType}', () => {
    const unknown = readFields(encodeProtobuf(fx.deployment).subarray(4));
    expect([...unknown.keys()]).toEqual([1, 2, 3, 4]);
    const typeMeta = readFields(unknown.get(1)![0] as Uint8Array);
    expect(text(typeMeta.get(1)![0])).toBe('apps/v1'); // TypeMeta.apiVersion = 1
    expect(text(typeMeta.get(2)![0])).toBe('Deployment'); // TypeMeta.kind = 2
    const raw = readFields(unknown.get(2)![0] as Uint8Array); // Deployment{metadata=1, spec=2, status=3}
    const metadata = readFields(raw.get(1)![0] as Uint8Array);
    expect(text(metadata.get(1)![0])).toBe('web');
    expect(text(unknown.get(3)![0])).toBe(''); // contentEncoding: none
    expect(text(unknown.get(4)![0])).toBe(''); // contentType: empty, i.e. protobuf
  });

  it('encodes fields in field-number order with the exact bytes Go would write for the same values', () => {
    const bytes = encodeProtobuf({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo' }, spec: {}, status: {} });
    expect(hex(bytes)).toBe(
      '6b387300' + '0a0f' + '0a027631' + '12094e616d657370616365' + // typeMeta{v1, Namespace}
        '120b' + '0a05' + '0a03666f6f' + '1200' + '1a00' + // raw: Namespace{metadata{name}, spec{}, status{}}
        '1a00' + '2200', // contentEncoding, contentType
    );
  });
});

describe('decoding what kubectl 1.32 sends', () => {
  it('[API-ENC-002] kubectl create namespace foo: Namespace{metadata{name:"foo"}, spec{}, status{}}', () => {
    // Hand-assembled from the .proto field numbers: Go writes every non-pointer field,
    // so ObjectMeta carries empty strings, generation 0 and an empty creationTimestamp,
    // and NamespaceStatus an empty phase.
    const golden = fromHex(`
      6b387300
      0a0f 0a027631 12094e616d657370616365
      121b
        0a13 0a03666f6f 1200 1a00 2200 2a00 3200 3800 4200
        1200
        1a02 0a00
      1a00 2200`);
    expect(hex(golden)).toBe(hex(envelope('v1', 'Namespace', msg((w) => {
      w.uint32(0x0a).bytes(goObjectMeta('foo'));
      w.uint32(0x12).bytes(EMPTY);
      w.uint32(0x1a).bytes(msg((s) => s.uint32(0x0a).string('')));
    }))));
    // What `kubectl create namespace foo -o json --dry-run=client` prints, i.e. what a JSON client sends.
    expect(decodeProtobuf(golden)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      object: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo', creationTimestamp: null }, spec: {}, status: {} },
    });
  });

  it('kubectl auth can-i create pods: zero strings are dropped, the non-omitempty allowed:false stays', () => {
    const bytes = envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', msg((w) => {
      w.uint32(0x0a).bytes(goObjectMeta(''));
      w.uint32(0x12).bytes(msg((spec) => spec.uint32(0x0a).bytes(msg((ra) => {
        // ResourceAttributes{namespace=1, verb=2, group=3, version=4, resource=5, subresource=6, name=7}
        ra.uint32(0x0a).string('default').uint32(0x12).string('create').uint32(0x1a).string('').uint32(0x22).string('');
        ra.uint32(0x2a).string('pods').uint32(0x32).string('').uint32(0x3a).string('');
      }))));
      // SubjectAccessReviewStatus{allowed=1, reason=2, evaluationError=3, denied=4}
      w.uint32(0x1a).bytes(msg((st) => st.uint32(0x08).bool(false).uint32(0x12).string('').uint32(0x1a).string('').uint32(0x20).bool(false)));
    }));
    expect(decodeProtobuf(bytes).object).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: { allowed: false },
    });
  });

  it('kubectl create deployment web --image=nginx --replicas=0: the pointer replicas:0 stays, plain zero fields go', () => {
    const container = msg((c) => {
      c.uint32(0x0a).string('nginx').uint32(0x12).string('nginx').uint32(0x2a).string(''); // name, image, workingDir
      c.uint32(0x42).bytes(EMPTY); // resources = 8
      c.uint32(0x6a).string('').uint32(0x72).string(''); // terminationMessagePath = 13, imagePullPolicy = 14
      c.uint32(0x80).bool(false).uint32(0x88).bool(false).uint32(0x90).bool(false); // stdin 16, stdinOnce 17, tty 18
      c.uint32(0xa2).string(''); // terminationMessagePolicy = 20
    });
    const podSpec = msg((s) => {
      s.uint32(0x12).bytes(container); // containers = 2
      s.uint32(0x1a).string('').uint32(0x32).string('').uint32(0x42).string(''); // restartPolicy, dnsPolicy, serviceAccountName
      s.uint32(0x4a).string('').uint32(0x52).string(''); // serviceAccount, nodeName
      s.uint32(0x58).bool(false).uint32(0x60).bool(false).uint32(0x68).bool(false); // hostNetwork, hostPID, hostIPC
      s.uint32(0x82).string('').uint32(0x8a).string('').uint32(0x9a).string(''); // hostname, subdomain, schedulerName
    });
    const labels = { app: 'web' };
    const bytes = envelope('apps/v1', 'Deployment', msg((w) => {
      w.uint32(0x0a).bytes(goObjectMeta('web', labels));
      w.uint32(0x12).bytes(msg((spec) => {
        spec.uint32(0x08).int32(0); // replicas = 1 (*int32)
        spec.uint32(0x12).bytes(msg((sel) => sel.uint32(0x0a).bytes(msg((e) => e.uint32(0x0a).string('app').uint32(0x12).string('web')))));
        spec.uint32(0x1a).bytes(msg((t) => t.uint32(0x0a).bytes(goObjectMeta('', labels)).uint32(0x12).bytes(podSpec)));
        spec.uint32(0x22).bytes(msg((st) => st.uint32(0x0a).string(''))); // strategy{type: ""}
        spec.uint32(0x28).int32(0).uint32(0x38).bool(false); // minReadySeconds = 5, paused = 7
      }));
      // DeploymentStatus: the plain int32 counters, all zero
      w.uint32(0x1a).bytes(msg((st) => {
        for (const id of [1, 2, 3, 4, 5, 7]) st.uint32(id << 3).int32(0);
      }));
    }));
    expect(decodeProtobuf(bytes).object).toEqual({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('fills an empty apiVersion or kind from the defaults the request path gives', () => {
    const bytes = envelope('', '', msg((w) => w.uint32(0x0a).bytes(msg((m) => m.uint32(0x0a).string('cm')))));
    expect(decodeProtobuf(bytes, { apiVersion: 'v1', kind: 'ConfigMap' }).object).toEqual({
      kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm' },
    });
  });

  it('skips fields it does not know, as Go does', () => {
    const bytes = envelope('v1', 'ConfigMap', msg((w) => {
      w.uint32(0x0a).bytes(msg((m) => m.uint32(0x0a).string('cm')));
      w.uint32((99 << 3) | 2).string('from the future');
      w.uint32(98 << 3).uint32(7);
    }));
    expect(decodeProtobuf(bytes).object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm' } });
  });

  it('accepts packed repeated scalars', () => {
    const bytes = envelope('v1', 'Pod', msg((w) => {
      w.uint32(0x12).bytes(msg((spec) => spec.uint32(0x72).bytes(msg((sc) => {
        sc.uint32(0x22).bytes(msg((p) => p.int64(1000).int64(2000))); // supplementalGroups = 4, packed
      }))));
    }));
    expect(decodeProtobuf(bytes).object).toEqual({
      kind: 'Pod', apiVersion: 'v1', spec: { securityContext: { supplementalGroups: [1000, 2000] } },
    });
  });
});

describe('round trips (JSON -> protobuf -> JSON)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['Namespace', fx.namespace],
    ['ConfigMap with data and binaryData', fx.configMap],
    ['Secret', fx.secret],
    ['Deployment with IntOrString, Quantity and timestamps', fx.deployment],
    ['Pod', fx.pod],
    ['SelfSubjectAccessReview', fx.selfSubjectAccessReview],
    ['SelfSubjectRulesReview', fx.selfSubjectRulesReview],
    ['SelfSubjectReview', fx.selfSubjectReview],
    ['Status', fx.notFoundStatus],
    ['PodList', fx.podList],
  ];
  it.each(cases)('[API-ENC-004] %s', (_name, obj) => {
    const decoded = decodeProtobuf(encodeProtobuf(obj));
    expect(decoded.apiVersion).toBe(obj.apiVersion);
    expect(decoded.kind).toBe(obj.kind);
    expect(decoded.object).toEqual(obj);
  });

  it('Status with causes and retryAfterSeconds', () => {
    const conflict = {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.color',
      reason: 'Conflict',
      details: {
        name: 'cm', kind: 'configmaps', retryAfterSeconds: 1,
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.color' }],
      },
      code: 409,
    };
    expect(decodeProtobuf(encodeProtobuf(conflict)).object).toEqual(conflict);
  });

  it('ConfigMap binaryData and Secret data travel as raw bytes', () => {
    const raw = readFields(readFields(encodeProtobuf(fx.secret).subarray(4)).get(2)![0] as Uint8Array);
    // Secret.data = 2: map<string, bytes>, entries sorted by key
    const entry = readFields(raw.get(2)![0] as Uint8Array);
    expect(text(entry.get(1)![0])).toBe('password');
    expect(text(entry.get(2)![0])).toBe('s3cr3t');
  });

  it('keeps pointer zeros (replicas: 0, automountServiceAccountToken: false) and null timestamps', () => {
    const obj = {
      ...fx.deployment,
      spec: { ...fx.deployment.spec, replicas: 0, template: { ...fx.deployment.spec.template, spec: {
        ...fx.deployment.spec.template.spec, automountServiceAccountToken: false, hostUsers: false,
      } } },
    };
    expect(decodeProtobuf(encodeProtobuf(obj)).object).toEqual(obj);
  });

  it('drops zero values of plain omitempty fields, as Go\'s JSON encoder does', () => {
    const noisy = {
      kind: 'Pod', apiVersion: 'v1',
      metadata: { name: 'p', generation: 0, generateName: '' },
      spec: { containers: [{ name: 'c', image: 'busybox', stdin: false, tty: false, workingDir: '' }], hostNetwork: false },
    };
    expect(decodeProtobuf(encodeProtobuf(noisy)).object).toEqual({
      kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
  });

  it('MicroTime keeps microseconds; Time keeps seconds', () => {
    const lease = {
      kind: 'Lease', apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'node-1', namespace: 'kube-node-lease', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2024-01-02T03:04:05.123456Z' },
    };
    expect(decodeProtobuf(encodeProtobuf(lease)).object).toEqual(lease);
    const offset = { ...lease, metadata: { ...lease.metadata, creationTimestamp: '2024-01-02T05:04:05.75+02:00' } };
    expect((decodeProtobuf(encodeProtobuf(offset)).object.metadata as Record<string, unknown>).creationTimestamp)
      .toBe('2024-01-02T03:04:05Z');
  });

  it('RawExtension holds embedded JSON (ControllerRevision.data)', () => {
    const revision = {
      kind: 'ControllerRevision', apiVersion: 'apps/v1',
      metadata: { name: 'web-1', namespace: 'default' },
      data: { spec: { template: { metadata: { labels: { app: 'web' } } } } },
      revision: 1,
    };
    expect(decodeProtobuf(encodeProtobuf(revision)).object).toEqual(revision);
  });

  it('embedded structs sit in the parent object (Volume.volumeSource, Probe.handler, ConfigMapKeySelector)', () => {
    const obj = {
      kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'cfg', configMap: { name: 'settings', optional: true } }],
        containers: [{
          name: 'c', image: 'busybox',
          env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'x' } } }],
          livenessProbe: { exec: { command: ['true'] }, periodSeconds: 5 },
        }],
      },
    };
    const decoded = decodeProtobuf(encodeProtobuf(obj)).object;
    expect(decoded).toEqual(obj);
  });

  it('proto names that differ from JSON names (MutatingWebhookConfiguration.Webhooks -> webhooks)', () => {
    const obj = {
      kind: 'MutatingWebhookConfiguration', apiVersion: 'admissionregistration.k8s.io/v1',
      metadata: { name: 'inject' },
      webhooks: [{
        name: 'inject.example.com',
        clientConfig: { service: { namespace: 'sys', name: 'hook', path: '/mutate', port: 443 } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
      }],
    };
    expect(decodeProtobuf(encodeProtobuf(obj)).object).toEqual(obj);
  });

  it('APIGroupDiscoveryList, the aggregated discovery document', () => {
    const obj = {
      kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {},
      items: [{
        metadata: { name: 'apps', creationTimestamp: null },
        versions: [{
          version: 'v1', freshness: 'Current',
          resources: [{
            resource: 'deployments', responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
            scope: 'Namespaced', singularResource: 'deployment', verbs: ['get', 'list'], shortNames: ['deploy'],
            categories: ['all'],
            subresources: [{ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get'] }],
          }],
        }],
      }],
    };
    expect(decodeProtobuf(encodeProtobuf(obj)).object).toEqual(obj);
  });
});

describe('errors', () => {
  const valid = encodeProtobuf(fx.configMap);

  function decodeError(bytes: Uint8Array): ProtobufDecodeError {
    try {
      decodeProtobuf(bytes);
    } catch (err) {
      expect(err).toBeInstanceOf(ProtobufDecodeError);
      return err as ProtobufDecodeError;
    }
    throw new Error('decodeProtobuf accepted the bytes');
  }

  it('[API-ENC-009] rejects a body whose prefix is not k8s\\0', () => {
    const wrong = new Uint8Array(valid);
    wrong.set([0, 0, 0, 0]);
    const err = decodeError(wrong);
    expect(err.reason).toBe('BadPrefix');
    expect(err.message).toBe('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    expect(decodeError(new TextEncoder().encode('{"kind":"ConfigMap"}')).reason).toBe('BadPrefix');
    expect(decodeError(new Uint8Array(0)).reason).toBe('BadPrefix');
  });

  it('rejects bytes truncated anywhere but between two fields of the envelope', () => {
    // Cut between Unknown's fields, the rest is still a valid (shorter) Unknown, for Go too:
    // after typeMeta (no raw: an empty object) and before contentEncoding or contentType.
    const rawTag = 4 + 2 + valid[5];
    const fieldBoundaries = new Set([rawTag, valid.length - 4, valid.length - 2]);
    let rejected = 0;
    for (let len = 4; len < valid.length; len++) {
      if (fieldBoundaries.has(len)) continue;
      const err = decodeError(valid.subarray(0, len));
      expect(['Malformed', 'MissingKind'], `cut at ${len}`).toContain(err.reason);
      rejected++;
    }
    expect(rejected).toBe(valid.length - 4 - fieldBoundaries.size);
  });

  it('rejects a wrong wire type', () => {
    const bytes = envelope('v1', 'ConfigMap', msg((w) => w.uint32(0x08).uint32(1))); // metadata as varint
    expect(decodeError(bytes).reason).toBe('Malformed');
  });

  it('rejects a kind without a protobuf message (custom resources)', () => {
    const err = decodeError(envelope('example.com/v1', 'Widget', EMPTY));
    expect(err.reason).toBe('UnknownKind');
    expect(err.message).toContain('no kind "Widget" is registered for version "example.com/v1"');
  });

  it('rejects an envelope without a kind', () => {
    expect(decodeError(envelope('v1', '', EMPTY)).reason).toBe('MissingKind');
  });

  it('refuses to encode kinds without a message and values of the wrong type', () => {
    expect(() => encodeProtobuf({ apiVersion: 'example.com/v1', kind: 'Widget' })).toThrow(ProtobufEncodeError);
    expect(() => encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 } }))
      .toThrow(/ConfigMap\.metadata\.name: expected a string/);
    expect(() => encodeProtobuf({ apiVersion: 'v1', kind: 'Secret', data: { x: 'not base64!' } }))
      .toThrow(/Secret\.data\[x\]: expected base64/);
    expect(() => encodeProtobuf({ apiVersion: 'v1', kind: 'Namespace', metadata: { creationTimestamp: 'yesterday' } }))
      .toThrow(/creationTimestamp/);
  });
});

describe('supportsProtobuf', () => {
  it.each([
    ['v1', 'Pod', true],
    ['v1', 'PodList', true],
    ['v1', 'Status', true],
    ['apps/v1', 'Deployment', true],
    ['apps/v1', 'DeleteOptions', true],
    ['apps/v1', 'ListOptions', true],
    ['authorization.k8s.io/v1', 'SelfSubjectRulesReview', true],
    ['apidiscovery.k8s.io/v2', 'APIGroupDiscoveryList', true],
    ['meta.k8s.io/v1', 'PartialObjectMetadataList', true],
    ['example.com/v1', 'Widget', false],
    ['example.com/v1', 'DeleteOptions', false],
    ['meta.k8s.io/v1', 'Table', false],
    ['apps/v1', 'Pod', false],
  ])('%s %s -> %s', (apiVersion, kind, expected) => {
    expect(supportsProtobuf(apiVersion, kind)).toBe(expected);
  });
});

/**
 * The comparison walks a subtree present on one side only (all of a created
 * object, entries added or removed by an update) without pairing the sides
 * (typed/compare.ts). These tests run the same writes with that shortcut on
 * and off and require identical results, byte for byte.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setCreateShortcut } from './fieldManager';
import { managedFieldsEntry, updateEntry } from './managedFields';
import { buildManagerIdentifier, formatTime, newFieldManager, type FieldManagerConfig } from './index';
import { CONFIGMAP, DEPLOYMENT, POD, SERVICE, definition, definitions } from './testing/schemas';
import { setOneSidedWalks } from './typed/compare';
import type { JsonObject } from './value';

const now = () => new Date(Date.UTC(2025, 0, 1, 12, 0, 0));

function fm(def: string, apiVersion: string, extra: Partial<FieldManagerConfig> = {}) {
  return newFieldManager({ apiVersion, schema: definition(def), definitions, now, ...extra });
}

const meta = (name: string, more: JsonObject = {}): JsonObject => ({
  name,
  namespace: 'default',
  uid: 'u-1',
  resourceVersion: '7',
  creationTimestamp: '2025-01-01T00:00:00Z',
  generation: 1,
  ...more,
});

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta('web', {
    labels: { app: 'web', tier: 'frontend' },
    annotations: {},
    finalizers: ['example.com/a', 'example.com/b', 'example.com/a'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs-1', controller: true }],
  }),
  spec: {
    containers: [
      {
        name: 'app',
        image: 'nginx:1.27',
        ports: [
          { name: 'http', containerPort: 8080, protocol: 'TCP' },
          { containerPort: 8080, protocol: 'UDP' },
        ],
        env: [
          { name: 'MODE', value: 'production' },
          { name: 'FROM', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        resources: { requests: { cpu: '100m' }, limits: {} },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        securityContext: {},
        terminationMessagePath: '/dev/termination-log',
        imagePullPolicy: 'IfNotPresent',
      },
      { name: 'sidecar', image: 'busybox', command: ['sh', '-c', 'sleep 1'], args: [], env: null },
    ],
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'a' }] } }],
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    nodeSelector: { disk: 'ssd' },
    securityContext: {},
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
  },
  status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
};

const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web', { labels: { app: 'web' } }),
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { 'x/y': 'z' } },
      spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }] },
    },
  },
  status: { replicas: 0 },
};

const service: JsonObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('svc'),
  spec: {
    selector: { app: 'web' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'dns', port: 53, targetPort: 'dns', protocol: 'UDP' },
    ],
    clusterIPs: ['10.0.0.1'],
    ipFamilies: ['IPv4'],
    type: 'ClusterIP',
  },
};

const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta('cfg', { labels: {} }),
  data: { a: '1', 'b.json': '{}' },
  binaryData: {},
  immutable: false,
};

interface Case {
  name: string;
  def: string;
  apiVersion: string;
  body: JsonObject;
  subresource?: string;
  /** The kind's Go zero value, as the registry bundle gives it (default: the field manager's own). */
  zero?: JsonObject;
}

/** Go zero values, as scripts/generate-registry.ts derives them. */
const POD_ZERO: JsonObject = { metadata: {}, spec: { containers: null }, status: {} };
const DEPLOYMENT_ZERO: JsonObject = { metadata: {}, spec: { selector: null, strategy: {}, template: { metadata: {}, spec: { containers: null } } }, status: {} };
const deploymentSpec = deployment.spec as JsonObject;

const CASES: Case[] = [
  { name: 'Pod', def: POD, apiVersion: 'v1', body: pod },
  { name: 'Pod via status', def: POD, apiVersion: 'v1', body: pod, subresource: 'status' },
  { name: 'Deployment', def: DEPLOYMENT, apiVersion: 'apps/v1', body: deployment },
  { name: 'Service', def: SERVICE, apiVersion: 'v1', body: service },
  { name: 'ConfigMap', def: CONFIGMAP, apiVersion: 'v1', body: configMap },
  { name: 'ConfigMap with managedFields reset', def: CONFIGMAP, apiVersion: 'v1', body: { ...configMap, metadata: { ...(configMap.metadata as JsonObject), managedFields: [{}] } } },
  {
    name: 'ConfigMap with managedFields given',
    def: CONFIGMAP,
    apiVersion: 'v1',
    body: {
      ...configMap,
      metadata: {
        ...(configMap.metadata as JsonObject),
        managedFields: [{ manager: 'other', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }],
      },
    },
  },
  // A keyed-list item without its key: ownership cannot be computed, nothing is recorded.
  { name: 'Pod with an unkeyed container', def: POD, apiVersion: 'v1', body: { ...pod, spec: { containers: [{ image: 'x' }] } } },
  { name: 'schemaless', def: '', apiVersion: 'example.com/v1', body: { apiVersion: 'example.com/v1', kind: 'W', metadata: meta('w'), spec: { a: [1, { b: {} }], c: null, d: {} } } },
];

function run(c: Case, live: JsonObject | undefined, next: JsonObject, fast: boolean): string {
  setOneSidedWalks(fast);
  const m = c.def ? fm(c.def, c.apiVersion, { subresource: c.subresource }) : newFieldManager({ apiVersion: c.apiVersion, now, subresource: c.subresource });
  return JSON.stringify(m.update(live, next, 'creator'));
}

/** An update of the created object that drops, adds and changes entries. */
function edited(o: JsonObject): JsonObject {
  const e = structuredClone(o);
  const md = e.metadata as JsonObject;
  md.labels = { app: 'web', added: 'yes' };
  delete md.annotations;
  const spec = e.spec as JsonObject | undefined;
  if (spec && Array.isArray(spec.containers)) spec.containers = [{ name: 'new', image: 'x' }, ...(spec.containers as JsonObject[]).slice(1)];
  if (spec && Array.isArray(spec.ports)) spec.ports = (spec.ports as JsonObject[]).slice(1);
  if (e.data) e.data = { a: '2', c: '3' };
  return e;
}

describe('one-sided comparison shortcut', () => {
  afterEach(() => setOneSidedWalks(true));

  for (const c of CASES) {
    it(`create: ${c.name} gets the same managedFields as the general walk`, () => {
      const fast = run(c, undefined, c.body, true);
      expect(fast).toBe(run(c, undefined, c.body, false));
    });

    it(`update: ${c.name} gets the same managedFields as the general walk`, () => {
      const live = JSON.parse(run(c, undefined, c.body, false)) as JsonObject;
      const next = edited(live);
      const fast = run(c, live, next, true);
      expect(fast).toBe(run(c, live, next, false));
      // And from an older entry of another manager.
      expect(run(c, next, live, true)).toBe(run(c, next, live, false));
    });
  }

  it('a created Pod is owned as the server records it', () => {
    const out = JSON.parse(run(CASES[0], undefined, pod, true)) as { metadata: { managedFields: JsonObject[] } };
    expect(out.metadata.managedFields).toHaveLength(1);
    const [entry] = out.metadata.managedFields;
    expect(entry).toMatchObject({ manager: 'creator', operation: 'Update', apiVersion: 'v1', time: '2025-01-01T12:00:00Z', fieldsType: 'FieldsV1' });
    const f = entry.fieldsV1 as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(f)).toEqual(['f:metadata', 'f:spec']); // status is reset on the main resource
    expect(f['f:metadata']['f:labels']).toEqual({ '.': {}, 'f:app': {}, 'f:tier': {} });
    expect(f['f:metadata']['f:finalizers']).toEqual({ '.': {}, 'v:"example.com/a"': {}, 'v:"example.com/b"': {} });
    expect(f['f:metadata']['f:annotations']).toEqual({});
    expect(Object.keys(f['f:spec']['f:containers'])).toEqual(expect.arrayContaining(['k:{"name":"app"}', 'k:{"name":"sidecar"}']));
    expect(f['f:spec']['f:tolerations']).toEqual({});
    expect(Object.keys(f['f:spec']['f:containers']['k:{"name":"app"}'] as object)).toContain('.');
  });
});

/** Creates the shortcut (typed/createdFields.ts) must settle, or hand back to the updater, exactly as the updater would. */
const CREATE_CASES: Case[] = [
  ...CASES,
  { name: 'Pod with only its name', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' } } },
  { name: 'Pod with empty spec and null status', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: {}, status: null } },
  { name: 'Pod with a null spec', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: null } },
  { name: 'Pod with a list for spec', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: [1] } },
  { name: 'Pod with a string for metadata', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: 'x', spec: { restartPolicy: 'Always' } } },
  { name: 'Pod without metadata', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', spec: { restartPolicy: 'Always' } } },
  {
    name: 'Pod with undeclared fields, nulls and repeated keys',
    def: POD,
    apiVersion: 'v1',
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      extra: { a: 1 },
      metadata: { name: 'a', labels: {}, annotations: null, unknown: { b: [1] }, finalizers: ['x', 'x', 'y'] },
      spec: {
        containers: [{ name: 'c', image: 'i', env: [{ name: 'A' }, { name: 'A', value: '2' }], bogus: { x: 1 } }, { name: 'c', image: 'dup' }],
        nodeSelector: null,
        volumes: [],
        tolerations: [{}, {}],
      },
    },
  },
  {
    name: 'Pod with an unkeyed condition in its status',
    def: POD,
    apiVersion: 'v1',
    body: { ...pod, status: { conditions: [{ status: 'True' }] } },
  },
  { name: 'Pod with an unkeyed condition in its status, via status', def: POD, apiVersion: 'v1', body: { ...pod, status: { conditions: [{ status: 'True' }] } }, subresource: 'status' },
  { name: 'Pod with an unkeyed container, via status', def: POD, apiVersion: 'v1', body: { ...pod, spec: { containers: [{ image: 'x' }] } }, subresource: 'status' },
  { name: 'Pod with empty managedFields', def: POD, apiVersion: 'v1', body: { ...pod, metadata: { ...(pod.metadata as JsonObject), managedFields: [] } } },
  { name: 'Pod with null managedFields', def: POD, apiVersion: 'v1', body: { ...pod, metadata: { ...(pod.metadata as JsonObject), managedFields: null } } },
  { name: 'Pod with malformed managedFields', def: POD, apiVersion: 'v1', body: { ...pod, metadata: { ...(pod.metadata as JsonObject), managedFields: 'x' } } },
  {
    name: 'ConfigMap with many keys out of order',
    def: CONFIGMAP,
    apiVersion: 'v1',
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' }, data: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${(i * 37) % 50}`, String(i)])) },
  },
  { name: 'ConfigMap with nothing but type and name', def: CONFIGMAP, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', uid: 'u', resourceVersion: '1' } } },
  {
    name: 'Service with keyed ports out of order',
    def: SERVICE,
    apiVersion: 'v1',
    body: { ...service, spec: { ports: [{ port: 90, protocol: 'UDP' }, { port: 80 }, { port: 80, protocol: 'UDP' }, { port: 10, protocol: 'TCP' }] } },
  },
  { name: 'Pod from its Go zero value', def: POD, apiVersion: 'v1', body: pod, zero: POD_ZERO },
  { name: 'Pod from its Go zero value, via status', def: POD, apiVersion: 'v1', body: pod, zero: POD_ZERO, subresource: 'status' },
  { name: 'Pod from its Go zero value, with no containers', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [] } }, zero: POD_ZERO },
  { name: 'Pod from its Go zero value, with null containers', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: null, restartPolicy: 'Never' } }, zero: POD_ZERO },
  { name: 'Pod from its Go zero value, with a map for containers', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: { name: 'c' } } }, zero: POD_ZERO },
  { name: 'Pod from its Go zero value, with an unkeyed container', def: POD, apiVersion: 'v1', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ image: 'x' }] } }, zero: POD_ZERO },
  { name: 'Deployment from its Go zero value', def: DEPLOYMENT, apiVersion: 'apps/v1', body: deployment, zero: DEPLOYMENT_ZERO },
  { name: 'Deployment from its Go zero value, via status', def: DEPLOYMENT, apiVersion: 'apps/v1', body: deployment, zero: DEPLOYMENT_ZERO, subresource: 'status' },
  {
    name: 'Deployment from its Go zero value, with an empty template and strategy',
    def: DEPLOYMENT,
    apiVersion: 'apps/v1',
    body: { ...deployment, spec: { ...deploymentSpec, template: {}, strategy: {} } },
    zero: DEPLOYMENT_ZERO,
  },
  { name: 'Deployment from its Go zero value, with a null template', def: DEPLOYMENT, apiVersion: 'apps/v1', body: { ...deployment, spec: { ...deploymentSpec, template: null } }, zero: DEPLOYMENT_ZERO },
  { name: 'Deployment from its Go zero value, with a string for strategy', def: DEPLOYMENT, apiVersion: 'apps/v1', body: { ...deployment, spec: { ...deploymentSpec, strategy: 'x' } }, zero: DEPLOYMENT_ZERO },
  { name: 'Deployment from its Go zero value, with a template of only metadata', def: DEPLOYMENT, apiVersion: 'apps/v1', body: { ...deployment, spec: { ...deploymentSpec, template: { metadata: { labels: { a: 'b' } } } } }, zero: DEPLOYMENT_ZERO },
  { name: 'schemaless with nulls and lists', def: '', apiVersion: 'example.com/v1', body: { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w', labels: { a: 'b' } }, spec: null, status: { x: [1, 2] }, other: [{ a: 1 }] } },
];

describe('create shortcut', () => {
  afterEach(() => setCreateShortcut(true));

  function create(c: Case, manager: string, shortcut: boolean): string {
    setCreateShortcut(shortcut);
    const zero = c.zero ? { zeroObject: c.zero } : {};
    const m = c.def ? fm(c.def, c.apiVersion, { subresource: c.subresource, ...zero }) : newFieldManager({ apiVersion: c.apiVersion, now, subresource: c.subresource, ...zero });
    return JSON.stringify(m.update(undefined, structuredClone(c.body), manager));
  }

  for (const c of CREATE_CASES) {
    it(`create: ${c.name} gets the same object and managedFields as the updater`, () => {
      expect(create(c, 'creator', true)).toBe(create(c, 'creator', false));
      expect(create(c, '', true)).toBe(create(c, '', false));
    });
  }

  it('an Update that creates from the Go zero value owns the maps the zero value holds without "." (as kube-apiserver records kubectl create) [API-SSA-004]', () => {
    setCreateShortcut(true);
    const created = fm(DEPLOYMENT, 'apps/v1', { zeroObject: DEPLOYMENT_ZERO }).update(undefined, structuredClone(deployment), 'kubectl-create');
    const [entry] = (created.metadata as JsonObject).managedFields as JsonObject[];
    const spec = (entry.fieldsV1 as Record<string, Record<string, Record<string, unknown>>>)['f:spec'];
    expect(Object.keys(spec).sort()).toEqual(['f:replicas', 'f:selector', 'f:strategy', 'f:template']);
    expect(spec['f:selector']).toEqual({}); // atomic, null in the zero value: one leaf
    expect(spec['f:strategy']).toEqual({ 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
    const template = spec['f:template'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(template)).toEqual(['f:metadata', 'f:spec']);
    expect(template['f:metadata']).toEqual({ 'f:annotations': { '.': {}, 'f:x/y': {} }, 'f:labels': { '.': {}, 'f:app': {} } });
    expect(Object.keys(template['f:spec']['f:containers'] as object)).toEqual(['k:{"name":"app"}']);
    // The same created object from the default zero value (top-level maps only) marks every map below them.
    const plain = fm(DEPLOYMENT, 'apps/v1').update(undefined, structuredClone(deployment), 'kubectl-create');
    const plainSpec = (((plain.metadata as JsonObject).managedFields as JsonObject[])[0].fieldsV1 as Record<string, Record<string, Record<string, unknown>>>)['f:spec'];
    expect(Object.keys(plainSpec['f:template'])).toContain('.');
  });

  it('a created object\'s FieldsV1 is frozen, as every encoding the field manager makes', () => {
    setCreateShortcut(true);
    const created = fm(POD, 'v1').update(undefined, structuredClone(pod), 'creator');
    const [entry] = (created.metadata as JsonObject).managedFields as JsonObject[];
    const f = entry.fieldsV1 as Record<string, Record<string, unknown>>;
    expect(Object.isFrozen(f) && Object.isFrozen(f['f:spec']) && Object.isFrozen(f['f:spec']['f:containers'])).toBe(true);
  });
});

describe('memoized identifiers and times', () => {
  it('identifiers stay distinct when names hold NUL or are not strings', () => {
    const a = buildManagerIdentifier({ manager: 'a\0Update', operation: '', apiVersion: 'v1' });
    const b = buildManagerIdentifier({ manager: 'a', operation: 'Update', apiVersion: 'v1' });
    expect(a).toBe(JSON.stringify({ manager: 'a\0Update', apiVersion: 'v1' }));
    expect(b).toBe('{"manager":"a","operation":"Update","apiVersion":"v1"}');
    expect(buildManagerIdentifier({ manager: 5 as unknown as string })).toBe('{"manager":5}');
    expect(buildManagerIdentifier({ manager: '5' })).toBe('{"manager":"5"}');
  });

  it('an Update entry built directly is the one built from its identifier', () => {
    const fields = { 'f:data': {} };
    for (const manager of ['kubectl', '', 'a\0Update', 'lone \ud800 surrogate', '{"manager":"x"}']) {
      for (const subresource of ['', 'status']) {
        const id = buildManagerIdentifier({ manager, operation: 'Update', apiVersion: 'apps/v1', subresource });
        const direct = updateEntry(manager, 'apps/v1', '2025-01-01T00:00:00Z', subresource, fields);
        expect(JSON.stringify(direct)).toBe(JSON.stringify(managedFieldsEntry(id, false, 'apps/v1', '2025-01-01T00:00:00Z', fields)));
      }
    }
  });

  it('times are formatted per second', () => {
    expect(formatTime(new Date(Date.UTC(2025, 0, 1, 0, 0, 1, 900)))).toBe('2025-01-01T00:00:01Z');
    expect(formatTime(new Date(Date.UTC(2025, 0, 1, 0, 0, 1, 100)))).toBe('2025-01-01T00:00:01Z');
    expect(formatTime(new Date(Date.UTC(2025, 0, 1, 0, 0, 2, 0)))).toBe('2025-01-01T00:00:02Z');
    expect(formatTime(new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 500)))).toBe('1969-12-31T23:59:59Z');
  });
});

import { describe, expect, it } from 'vitest';
import { registryBundle } from '../registry';
import { applyStrategicMergePatch, type JsonObject, type PatchError } from './index';

const definitions = registryBundle.definitions;
const schemaOf = (name: string) => ({ root: definitions[name], definitions });
const POD = schemaOf('io.k8s.api.core.v1.Pod');
const DEPLOYMENT = schemaOf('io.k8s.api.apps.v1.Deployment');
const CONFIGMAP = schemaOf('io.k8s.api.core.v1.ConfigMap');

interface Case {
  schema: { root: (typeof definitions)[string]; definitions: typeof definitions };
  original: JsonObject;
  patch: unknown;
  want?: JsonObject;
  error?: Partial<PatchError>;
}

const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

const cases: Record<string, Case> = {
  "[API-PATCH-005] kubectl's client-side apply patch: null deletes a key, others merge": {
    schema: CONFIGMAP,
    original: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'old' } },
      data: { color: 'blue', size: 'L', keep: 'x' },
    },
    patch: {
      data: { color: 'red', shape: 'round', size: null },
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'new' } },
    },
    want: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'new' } },
      data: { color: 'red', keep: 'x', shape: 'round' },
    },
  },
  '[API-PATCH-006] containers merge by name, new ones appended': {
    schema: POD,
    original: pod({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] }),
    patch: { spec: { containers: [{ name: 'b', image: 'b:2' }, { name: 'c', image: 'c:1' }] } },
    want: pod({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }, { name: 'c', image: 'c:1' }] }),
  },
  'ports merge by containerPort (new entries go before server-only ones); env merges by name': {
    schema: POD,
    original: pod({
      containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] }],
    }),
    patch: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 443 }], env: [{ name: 'Y', value: '3' }] }] } },
    want: pod({
      containers: [
        { name: 'a', image: 'i', ports: [{ containerPort: 443 }, { containerPort: 80 }], env: [{ name: 'X', value: '1' }, { name: 'Y', value: '3' }] },
      ],
    }),
  },
  'tolerations have no merge key: the list is replaced': {
    schema: POD,
    original: pod({ containers: [], tolerations: [{ key: 'a', operator: 'Exists' }] }),
    patch: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
    want: pod({ containers: [], tolerations: [{ key: 'b', operator: 'Exists' }] }),
  },
  'volumes merge by name; $retainKeys clears the other volume source': {
    schema: POD,
    original: pod({ containers: [], volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] }),
    patch: { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] } },
    want: pod({ containers: [], volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }] }),
  },
  '$retainKeys rejects keys it does not list': {
    schema: POD,
    original: pod({ containers: [], volumes: [{ name: 'v', emptyDir: {} }] }),
    patch: { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], configMap: { name: 'cm' } }] } },
    error: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
  },
  'deployment strategy $retainKeys drops rollingUpdate': {
    schema: DEPLOYMENT,
    original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    want: { spec: { strategy: { type: 'Recreate' } } },
  },
  '$patch: delete removes a list entry by merge key': {
    schema: POD,
    original: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
    patch: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } },
    want: pod({ containers: [{ name: 'b' }] }),
  },
  '$patch: replace in a list replaces the whole list': {
    schema: POD,
    original: pod({ containers: [{ name: 'a', image: 'x' }, { name: 'b' }] }),
    patch: { spec: { containers: [{ name: 'c' }, { $patch: 'replace' }] } },
    want: pod({ containers: [{ name: 'c' }] }),
  },
  '$patch: replace in a map replaces the map': {
    schema: POD,
    original: pod({ containers: [] }, { name: 'p', labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { c: '3', $patch: 'replace' } } },
    want: pod({ containers: [] }, { name: 'p', labels: { c: '3' } }),
  },
  '$patch: delete in a map empties it': {
    schema: POD,
    original: pod({ containers: [] }, { name: 'p', labels: { a: '1' } }),
    patch: { metadata: { labels: { $patch: 'delete' } } },
    want: pod({ containers: [] }, { name: 'p', labels: {} }),
  },
  'an unknown $patch in a map is an error': {
    schema: POD,
    original: pod({ containers: [] }),
    patch: { metadata: { labels: { $patch: 'bogus' } } },
    error: { code: 500, message: 'unknown patch type: bogus in map: map[$patch:bogus]' },
  },
  'a list entry without its merge key is an error': {
    schema: POD,
    original: pod({ containers: [{ name: 'a' }] }),
    patch: { spec: { containers: [{ image: 'x' }] } },
    error: { code: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
  },
  'finalizers merge as a set; $deleteFromPrimitiveList removes': {
    schema: POD,
    original: pod({ containers: [] }, { name: 'p', finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
    want: pod({ containers: [] }, { name: 'p', finalizers: ['c', 'a'] }),
  },
  '$setElementOrder orders the merged list; server-only entries sit by their live neighbours': {
    schema: POD,
    original: pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [{ name: 'c', image: 'x' }] } },
    want: pod({ containers: [{ name: 'b' }, { name: 'c', image: 'x' }, { name: 'a' }] }),
  },
  '$setElementOrder that contradicts the patch list is an error': {
    schema: POD,
    original: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b' }, { name: 'a' }] } },
    error: { code: 500 },
  },
  'new nested values lose nulls and directives': {
    schema: POD,
    original: pod({ containers: [] }),
    patch: { metadata: { labels: { a: '1', b: null } } },
    want: pod({ containers: [] }, { name: 'p', labels: { a: '1' } }),
  },
  'a scalar replaced by a map takes the patch value': {
    schema: CONFIGMAP,
    original: { data: 'x' },
    patch: { data: { k: 'v' } },
    want: { data: { k: 'v' } },
  },
  'a list patch body is a bad request': {
    schema: CONFIGMAP,
    original: {},
    patch: [{ op: 'add' }],
    error: { code: 400, reason: 'BadRequest' },
  },
};

describe('strategic merge patch', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => {
      const r = applyStrategicMergePatch(tc.original, tc.patch, tc.schema);
      if (tc.error) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toMatchObject(tc.error);
        return;
      }
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.object).toEqual(tc.want);
    });
  }

  it('does not modify its inputs', () => {
    const original = pod({ containers: [{ name: 'a' }] });
    const patch = { spec: { containers: [{ name: 'a', $patch: 'delete' }] } };
    const before = JSON.stringify([original, patch]);
    applyStrategicMergePatch(original, patch, POD);
    expect(JSON.stringify([original, patch])).toBe(before);
  });
});

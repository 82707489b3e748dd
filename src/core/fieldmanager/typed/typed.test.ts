import { describe, expect, it } from 'vitest';
import { pathToString, setToFieldsV1 } from '../fieldpath';
import { DEDUCED, Schema } from '../schema';
import { definition, definitions, DEPLOYMENT, SERVICE } from '../testing/schemas';
import type { JsonValue } from '../value';
import { compare, merge, mergeComparing, toFieldSet, TypedError } from './index';

const schema = new Schema(definitions);
const deploy = schema.rootNode(definition(DEPLOYMENT));

const d = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], args: ['a', 'b'], resources: { limits: { cpu: '1' } } }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    },
  },
};

describe('typed values with built-in schemas', () => {
  it('field set of a Deployment: keyed containers, defaulted port protocol, atomic lists and selector', () => {
    expect(setToFieldsV1(toFieldSet(schema, deploy, d))).toEqual({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:args': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                'f:resources': { 'f:limits': { 'f:cpu': {} } },
              },
            },
            'f:tolerations': {},
          },
        },
      },
    });
  });

  it('field set of a live object whose list repeats a key: the entries share one node; empty values own nothing below them', () => {
    const live = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'x', env: [] },
              { name: 'b', resources: {} },
              { name: 'a', args: ['1'], resources: { limits: {} } },
            ],
            volumes: [],
          },
        },
      },
    } as unknown as JsonValue;
    expect(setToFieldsV1(toFieldSet(schema, deploy, live))).toEqual({
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"a"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {}, 'f:resources': { 'f:limits': {} } },
              'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:resources': {} },
            },
          },
        },
      },
    });
  });

  it('compare reports changed leaves by path', () => {
    const changed = structuredClone(d);
    changed.spec.template.spec.containers[0].image = 'nginx:2';
    const c = compare(schema, deploy, d, changed);
    expect(c.modified.paths().map(pathToString)).toEqual(['.spec.template.spec.containers[name="nginx"].image']);
    expect(c.added.empty() && c.removed.empty()).toBe(true);
  });

  it('merge keeps live containers and adds applied ones', () => {
    const applied = { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'x' }] } } } };
    const m = merge(schema, deploy, d, applied) as typeof d;
    expect(m.spec.template.spec.containers.map((c) => c.name)).toEqual(['nginx', 'sidecar']);
  });

  it('service ports are keyed by port and protocol', () => {
    const svc = schema.rootNode(definition(SERVICE));
    const set = toFieldSet(schema, svc, { spec: { ports: [{ port: 80, protocol: 'UDP' }] } });
    expect(set.paths().map(pathToString)).toContain('.spec.ports[port=80,protocol="UDP"]');
  });

  it('duplicate keys in an applied list are an error', () => {
    const applied = { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } };
    expect(() => merge(schema, deploy, {}, applied)).toThrow(TypedError);
    expect(() => merge(schema, deploy, {}, applied)).toThrow('.spec.template.spec.containers: duplicate entries for key {"name":"a"}');
  });
});

describe('merge result ownership', () => {
  it('shares no object or list with either input, atomic leaves included', () => {
    const live = structuredClone(d);
    const applied = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'nginx', args: ['c'], env: [] }], tolerations: [{ key: 'x', operator: 'Exists' }] } } },
    };
    const liveBefore = JSON.stringify(live);
    const appliedBefore = JSON.stringify(applied);
    const merged = merge(schema, deploy, live, applied) as typeof d;
    const objects = new Set<unknown>();
    const collect = (v: unknown) => {
      if (v === null || typeof v !== 'object') return;
      objects.add(v);
      for (const x of Object.values(v)) collect(x);
    };
    collect(live);
    collect(applied);
    const shared: unknown[] = [];
    const check = (v: unknown) => {
      if (v === null || typeof v !== 'object') return;
      if (objects.has(v)) shared.push(v);
      for (const x of Object.values(v)) check(x);
    };
    check(merged);
    expect(shared).toEqual([]);
    // Changing the result in place leaves the inputs alone.
    const c = merged.spec.template.spec.containers[0] as { args: string[]; resources: { limits: { cpu: string } } };
    c.args.push('z');
    c.resources.limits.cpu = '9';
    expect(JSON.stringify(live)).toBe(liveBefore);
    expect(JSON.stringify(applied)).toBe(appliedBefore);
    expect(c.args).toEqual(['c', 'z']);
  });
});

describe('mergeComparing: the merge and what it changes, in one walk', () => {
  const sets = (c: { added: { paths(): unknown[] }; modified: { paths(): unknown[] }; removed: { paths(): unknown[] } }) =>
    [c.added, c.modified, c.removed].map((x) => (x.paths() as Parameters<typeof pathToString>[0][]).map(pathToString));
  const cases: [name: string, node: Parameters<typeof compare>[1], live: Parameters<typeof compare>[2], applied: Parameters<typeof compare>[3]][] = [
    ['changed, added and untouched leaves, a new container, a new map', deploy, d, {
      spec: { replicas: 3, paused: true, template: { metadata: { annotations: { a: 'b' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:2' }, { name: 'side', ports: [{ containerPort: 1 }] }] } } },
    }],
    ['null over a granular map keeps it; null over a scalar changes it', deploy, d, { metadata: { labels: null }, spec: { replicas: null } }],
    ['null where live has nothing', deploy, { spec: {} }, { spec: { strategy: null, template: null } }],
    ['an atomic list and an empty map replaced', deploy, d, { spec: { selector: { matchLabels: { x: 'y' } }, template: { spec: { containers: [{ name: 'nginx', args: [] }] } } } }],
    ['deduced: a map over a list, a list over a map, new nested values', DEDUCED, { a: [1, 2], b: { c: 1 }, e: 'x' }, { a: { x: 1 }, b: [3], d: { e: { f: [1] } }, e: 'x' }],
    ['a live list with a repeated key', deploy, { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }] } } } }, { spec: { template: { spec: { containers: [{ name: 'a', image: '3' }] } } } }],
    ['reordered and interleaved list entries', deploy, { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } } } }, { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }, { name: 'n' }, { name: 'a' }] } } } }],
  ];
  it.each(cases)('%s: the same object as merge, the same sets as compare(live, merged)', (_name, node, live, applied) => {
    const merged = merge(schema, node, live, applied);
    const r = mergeComparing(schema, node, live, applied);
    expect(r.merged).toEqual(merged);
    expect(sets(r.comparison)).toEqual(sets(compare(schema, node, live, merged)));
  });
});

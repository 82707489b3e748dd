import { describe, expect, it } from 'vitest';
import { pathToString, setToFieldsV1 } from '../fieldpath';
import { Schema } from '../schema';
import { definition, definitions, DEPLOYMENT, SERVICE } from '../testing/schemas';
import { compare, merge, toFieldSet, TypedError } from './index';

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

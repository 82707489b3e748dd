import { describe, expect, it } from 'vitest';
import { managedAsFields, runCase, type TestCase } from '../testing/state';
import type { SchemaObject } from '../../registry/types';

const str: SchemaObject = { type: 'string' };
const int: SchemaObject = { type: 'integer' };

/** A small typed schema covering every merge marker. */
const root: SchemaObject = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    data: { type: 'object', additionalProperties: str },
    atomicMap: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    struct: { type: 'object', properties: { a: str, b: str } },
    atomicStruct: { type: 'object', properties: { a: str, b: str }, 'x-kubernetes-map-type': 'atomic' },
    set: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
    atomicList: { type: 'array', items: { type: 'object', properties: { name: str, v: str } }, 'x-kubernetes-list-type': 'atomic' },
    listMap: {
      type: 'array',
      items: { type: 'object', properties: { name: str, image: str, port: int } },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    },
    mergeKeyed: {
      type: 'array',
      items: { type: 'object', properties: { name: str, v: str } },
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
    },
    plainList: { type: 'array', items: str },
    replicas: int,
  },
};

const cases: Record<string, TestCase> = {
  '[API-SSA-049] apply of a field another applier owns with a different value conflicts': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'b' } }, conflicts: ['m1 .data.k'] },
    ],
    object: { data: { k: 'a' } },
    managed: { m1: { 'f:data': { 'f:k': {} } } },
  },
  '[API-SSA-050][API-SSA-061][API-SSA-029] force takes the value and ownership': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a', j: 'x' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'b' } }, force: true },
    ],
    object: { data: { k: 'b', j: 'x' } },
    managed: { m1: { 'f:data': { 'f:j': {} } }, m2: { 'f:data': { 'f:k': {} } } },
  },
  '[API-SSA-051][API-SSA-052] update never conflicts and takes changed fields': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a', j: 'x' } } },
      { op: 'update', manager: 'u1', object: { data: { k: 'b', j: 'x' } } },
    ],
    object: { data: { k: 'b', j: 'x' } },
    managed: { m1: { 'f:data': { 'f:j': {} } }, u1: { 'f:data': { 'f:k': {} } } },
  },
  '[API-SSA-053][API-SSA-063] same value shares ownership': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'a' } } },
    ],
    object: { data: { k: 'a' } },
    managed: { m1: { 'f:data': { 'f:k': {} } }, m2: { 'f:data': { 'f:k': {} } } },
  },
  '[API-SSA-054] changing a shared value conflicts with the other sharer': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'a' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'b' } }, conflicts: ['m1 .data.k'] },
    ],
    object: { data: { k: 'a' } },
  },
  '[API-SSA-055][API-SSA-058][API-SSA-062] a sharer omitting the field keeps the value and drops ownership': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k: 'a' } } },
      { op: 'apply', manager: 'm2', object: { data: { k: 'a' }, replicas: 1 } },
      { op: 'apply', manager: 'm2', object: { replicas: 1 } },
    ],
    object: { data: { k: 'a' }, replicas: 1 },
    managed: { m1: { 'f:data': { 'f:k': {} } }, m2: { 'f:replicas': {} } },
  },
  '[API-SSA-056][API-SSA-060] a map entry the applier stops applying is removed': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k1: 'a', k2: 'b' } } },
      { op: 'apply', manager: 'm1', object: { data: { k1: 'a' } } },
    ],
    object: { data: { k1: 'a' } },
    managed: { m1: { 'f:data': { 'f:k1': {} } } },
  },
  'a field the applier stops applying is removed with its parent map': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k1: 'a' }, replicas: 3 } },
      { op: 'apply', manager: 'm1', object: { replicas: 3 } },
    ],
    object: { replicas: 3 },
    managed: { m1: { 'f:replicas': {} } },
  },
  'a field set by an updater survives the applier dropping it': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { k1: 'a' }, replicas: 3 } },
      { op: 'update', manager: 'u1', object: { data: { k1: 'z' }, replicas: 3 } },
      { op: 'apply', manager: 'm1', object: { replicas: 3 } },
    ],
    object: { data: { k1: 'z' }, replicas: 3 },
    managed: { m1: { 'f:replicas': {} }, u1: { 'f:data': { 'f:k1': {} } } },
  },
  '[API-SSA-059][API-SSA-014] list-map entries: per-entry owners, dropped entries removed': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { listMap: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } },
      { op: 'apply', manager: 'm2', object: { listMap: [{ name: 'c', image: 'z' }] } },
      { op: 'apply', manager: 'm1', object: { listMap: [{ name: 'a', image: 'x' }] } },
    ],
    object: { listMap: [{ name: 'a', image: 'x' }, { name: 'c', image: 'z' }] },
    managed: {
      m1: { 'f:listMap': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      m2: { 'f:listMap': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    },
  },
  '[API-SSA-014] set entries are owned one by one': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { set: ['a'] } },
      { op: 'apply', manager: 'm2', object: { set: ['b'] } },
    ],
    object: { set: ['a', 'b'] },
    managed: { m1: { 'f:set': { 'v:"a"': {} } }, m2: { 'f:set': { 'v:"b"': {} } } },
  },
  'a set entry the applier stops applying is removed': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { set: ['a', 'b'] } },
      { op: 'apply', manager: 'm1', object: { set: ['b'] } },
    ],
    object: { set: ['b'] },
  },
  '[API-SSA-013][API-SSA-019] an atomic list is replaced whole and owned as one leaf': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { atomicList: [{ name: 'a', v: '1' }] } },
      { op: 'apply', manager: 'm2', object: { atomicList: [{ name: 'b' }] }, conflicts: ['m1 .atomicList'] },
      { op: 'apply', manager: 'm2', object: { atomicList: [{ name: 'b' }] }, force: true },
    ],
    object: { atomicList: [{ name: 'b' }] },
    managed: { m2: { 'f:atomicList': {} } },
  },
  '[API-SSA-015] an atomic map conflicts as a whole': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { atomicMap: { x: '1' } } },
      { op: 'apply', manager: 'm2', object: { atomicMap: { y: '2' } }, conflicts: ['m1 .atomicMap'] },
      { op: 'apply', manager: 'm2', object: { atomicMap: { y: '2' } }, force: true },
    ],
    object: { atomicMap: { y: '2' } },
    managed: { m2: { 'f:atomicMap': {} } },
  },
  '[API-SSA-016] a granular map lets managers own their own keys': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { data: { x: '1' } } },
      { op: 'apply', manager: 'm2', object: { data: { y: '2' } } },
    ],
    object: { data: { x: '1', y: '2' } },
    managed: { m1: { 'f:data': { 'f:x': {} } }, m2: { 'f:data': { 'f:y': {} } } },
  },
  '[API-SSA-017] an atomic struct conflicts on a sibling subfield': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { atomicStruct: { a: '1' } } },
      { op: 'apply', manager: 'm2', object: { atomicStruct: { b: '2' } }, conflicts: ['m1 .atomicStruct'] },
    ],
    object: { atomicStruct: { a: '1' } },
    managed: { m1: { 'f:atomicStruct': {} } },
  },
  'a granular struct lets managers own sibling fields': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { struct: { a: '1' } } },
      { op: 'apply', manager: 'm2', object: { struct: { b: '2' } } },
    ],
    object: { struct: { a: '1', b: '2' } },
    managed: { m1: { 'f:struct': { 'f:a': {} } }, m2: { 'f:struct': { 'f:b': {} } } },
  },
  '[API-SSA-018] without listType, patchStrategy merge keys the list by patchMergeKey': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { mergeKeyed: [{ name: 'c1', v: '1' }] } },
      { op: 'apply', manager: 'm2', object: { mergeKeyed: [{ name: 'c2', v: '2' }] } },
    ],
    object: { mergeKeyed: [{ name: 'c1', v: '1' }, { name: 'c2', v: '2' }] },
    managed: {
      m1: { 'f:mergeKeyed': { 'k:{"name":"c1"}': { '.': {}, 'f:name': {}, 'f:v': {} } } },
      m2: { 'f:mergeKeyed': { 'k:{"name":"c2"}': { '.': {}, 'f:name': {}, 'f:v': {} } } },
    },
  },
  'a list without markers is atomic': {
    root,
    ops: [
      { op: 'apply', manager: 'm1', object: { plainList: ['a'] } },
      { op: 'apply', manager: 'm2', object: { plainList: ['b'] }, conflicts: ['m1 .plainList'] },
    ],
    object: { plainList: ['a'] },
  },
  '[API-SSA-020] unstructured objects: keys are granular fields': {
    ops: [
      { op: 'apply', manager: 'm1', object: { spec: { a: 1 } } },
      { op: 'apply', manager: 'm2', object: { spec: { b: 2 } } },
    ],
    object: { spec: { a: 1, b: 2 } },
    managed: { m1: { 'f:spec': { '.': {}, 'f:a': {} } }, m2: { 'f:spec': { '.': {}, 'f:b': {} } } },
  },
  '[API-SSA-021] unstructured objects: lists are atomic': {
    ops: [
      { op: 'apply', manager: 'm1', object: { spec: { l: ['x'] } } },
      { op: 'apply', manager: 'm2', object: { spec: { l: ['y'] } }, conflicts: ['m1 .spec.l'] },
      { op: 'apply', manager: 'm2', object: { spec: { l: ['y'] } }, force: true },
    ],
    object: { spec: { l: ['y'] } },
  },
  '[API-SSA-065] a manager left owning nothing is dropped': {
    root,
    ops: [
      { op: 'apply', manager: 'm0', object: { data: { j: 'x' } } },
      { op: 'update', manager: 'u1', object: { data: { j: 'x', k: 'a' } } },
      { op: 'apply', manager: 'm1', object: { data: { k: 'b' } }, force: true },
    ],
    object: { data: { j: 'x', k: 'b' } },
    managed: { m0: { 'f:data': { 'f:j': {} } }, m1: { 'f:data': { 'f:k': {} } } },
  },
  'an update that creates a map owns the map itself': {
    root,
    ops: [{ op: 'update', manager: 'u1', object: { data: { k: 'a' } } }],
    managed: { u1: { 'f:data': { '.': {}, 'f:k': {} } } },
  },
  '[API-SSA-022] granular to atomic: the prior owner owns the whole field': {
    root: { type: 'object', properties: { l: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' } } },
    ops: [
      { op: 'apply', manager: 'm1', object: { l: ['a'] } },
      { op: 'schema', root: { type: 'object', properties: { l: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' } } } },
      { op: 'apply', manager: 'm2', object: { l: ['a', 'b'] }, conflicts: ['m1 .l'] },
    ],
    object: { l: ['a'] },
  },
  '[API-SSA-023] atomic to granular: entries are unowned, others add without conflict': {
    root: { type: 'object', properties: { l: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' } } },
    ops: [
      { op: 'apply', manager: 'm1', object: { l: ['a'] } },
      { op: 'schema', root: { type: 'object', properties: { l: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' } } } },
      { op: 'apply', manager: 'm2', object: { l: ['b'] } },
    ],
    object: { l: ['a', 'b'] },
    managed: { m1: { 'f:l': {} }, m2: { 'f:l': { 'v:"b"': {} } } },
  },
  'granular map to atomic: entry owner takes the whole map': {
    root: { type: 'object', properties: { m: { type: 'object', additionalProperties: str } } },
    ops: [
      { op: 'apply', manager: 'm1', object: { m: { a: '1' } } },
      { op: 'schema', root: { type: 'object', properties: { m: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' } } } },
      { op: 'apply', manager: 'm2', object: { m: { b: '2' } }, conflicts: ['m1 .m'] },
    ],
  },
  'merged list order: shared entries in applied order, live-only entries before the next shared one': {
    root,
    ops: [
      { op: 'update', manager: 'u', object: { listMap: [{ name: 'a' }, { name: 'x' }, { name: 'b' }] } },
      { op: 'apply', manager: 'm', object: { listMap: [{ name: 'b' }, { name: 'a' }, { name: 'c' }] } },
    ],
    object: { listMap: [{ name: 'x' }, { name: 'b' }, { name: 'a' }, { name: 'c' }] },
  },
};

describe('updater operation tables', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => {
      const state = runCase(tc);
      if (tc.object) expect(state.live).toEqual(tc.object);
      if (tc.managed) expect(managedAsFields(state.managers)).toEqual(tc.managed);
    });
  }

  it('conflict messages follow the structured-merge-diff wording', async () => {
    const { Updater, Conflicts } = await import('./index');
    const { Schema } = await import('../schema');
    const schema = new Schema();
    const node = schema.rootNode(root);
    const u = new Updater({ schema, root: node });
    const m = u.updateOperation({}, { data: { x: '1' }, replicas: 1 }, 'v1', new Map(), 'u');
    const r = u.applyOperation({ data: { x: '1' }, replicas: 1 }, { data: { x: '2' }, replicas: 2 }, 'v1', m, 'a', false);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.conflicts).toBeInstanceOf(Conflicts);
    expect(r.conflicts.message()).toBe('conflicts with "u":\n- .data.x\n- .replicas');
  });
});

import { describe, expect, it } from 'vitest';
import {
  FieldManager,
  LAST_APPLIED_CONFIG_ANNOTATION,
  managerOrUserAgent,
  newFieldManager,
  type FieldManagerConfig,
  type ManagedFieldsEntry,
} from './index';
import { CONFIGMAP, definition, definitions, DEPLOYMENT } from './testing/schemas';
import type { JsonObject } from './value';

/** A clock the tests move by hand. */
function fakeClock(start = Date.UTC(2025, 0, 2, 3, 4, 5)) {
  let t = start;
  return { now: () => new Date(t), tick: (s: number) => (t += s * 1000) };
}

function cmManager(extra: Partial<FieldManagerConfig> = {}) {
  const clock = fakeClock();
  const fm = newFieldManager({ apiVersion: 'v1', schema: definition(CONFIGMAP), definitions, now: clock.now, ...extra });
  return { fm, clock };
}

const cm = (data: Record<string, string>, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm1', namespace: 'default', ...extra },
  data,
});

function entries(obj: JsonObject): ManagedFieldsEntry[] {
  return ((obj.metadata as JsonObject).managedFields ?? []) as unknown as ManagedFieldsEntry[];
}

function mustApply(fm: FieldManager, live: JsonObject | undefined, applied: JsonObject, manager: string, force = false): JsonObject {
  const r = fm.apply(live, applied, manager, force);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.object;
}

describe('field manager (apiserver layers)', () => {
  it('[API-SSA-002][API-SSA-003][API-SSA-005][API-SSA-006][API-SSA-007][API-SSA-008][API-SSA-009] apply records an Apply entry', () => {
    const { fm } = cmManager();
    const obj = mustApply(fm, undefined, cm({ k: 'v' }), 'm1');
    expect(entries(obj)).toEqual([
      {
        manager: 'm1',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2025-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:k': {} } },
      },
    ]);
    expect(obj.data).toEqual({ k: 'v' });
    expect(JSON.stringify(entries(obj)[0])).toBe(
      '{"manager":"m1","operation":"Apply","apiVersion":"v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}',
    );
  });

  it('[API-SSA-004][API-SSA-027] create and patch record Update entries; a new map carries "."', () => {
    const { fm, clock } = cmManager();
    const created = fm.update(undefined, cm({ a: '1' }, { labels: { app: 'x' } }), 'm2');
    clock.tick(5);
    const patched = fm.update(created, { ...created, data: { a: '1', b: '2' } }, 'm3');
    expect(entries(patched)).toEqual([
      {
        manager: 'm2',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2025-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
      {
        manager: 'm3',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2025-01-02T03:04:10Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:b': {} } },
      },
    ]);
  });

  it('an update changing nothing keeps the entries and their times', () => {
    const { fm, clock } = cmManager();
    const created = fm.update(undefined, cm({ a: '1' }), 'm2');
    clock.tick(60);
    const again = fm.update(created, created, 'm9');
    expect(entries(again)).toEqual(entries(created));
  });

  it('Apply entries are kept apart from Update entries of the same manager; sorted Apply first', () => {
    const { fm, clock } = cmManager();
    let obj = fm.update(undefined, cm({ a: '1' }), 'same');
    clock.tick(1);
    obj = mustApply(fm, obj, cm({ b: '2' }), 'same');
    expect(entries(obj).map((e) => [e.manager, e.operation])).toEqual([
      ['same', 'Apply'],
      ['same', 'Update'],
    ]);
  });

  it('[API-SSA-049] conflict error carries the kube message and causes', () => {
    const { fm } = cmManager();
    let obj = mustApply(fm, undefined, cm({ k: 'a', j: 'x' }), 'm1');
    obj = fm.update(obj, { ...obj, data: { k: 'a', j: 'y' } }, 'u1');
    const r = fm.apply(obj, cm({ k: 'b' }), 'm2');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const status = FieldManager.conflictStatus(r.error)!;
    expect(status.code).toBe(409);
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "m1": .data.k');
    expect(status.causes).toEqual([{ type: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.data.k' }]);

    const r2 = fm.apply(obj, cm({ k: 'b', j: 'z' }), 'm2');
    if (r2.ok) throw new Error('expected conflicts');
    expect(FieldManager.conflictStatus(r2.error)!.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.k\nconflicts with "u1" using v1:\n- .data.j',
    );
  });

  it('an updater through a subresource is printed with it', () => {
    const dep = newFieldManager({ apiVersion: 'apps/v1', schema: definition(DEPLOYMENT), definitions, subresource: 'scale', resetFields: [] });
    const main = newFieldManager({ apiVersion: 'apps/v1', schema: definition(DEPLOYMENT), definitions });
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } };
    const created = mustApply(main, undefined, d, 'owner');
    const scaled = dep.update(created, { ...created, spec: { replicas: 3 } }, 'kubectl-scale');
    const r = main.apply(scaled, { ...d, spec: { replicas: 5 } }, 'owner');
    if (r.ok) throw new Error('expected conflict');
    expect(FieldManager.conflictStatus(r.error)!.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-scale" with subresource "scale" using apps/v1: .spec.replicas',
    );
    const e = entries(scaled).find((x) => x.manager === 'kubectl-scale')!;
    expect(e.subresource).toBe('scale');
  });

  it('[API-SSA-011] managedFields in an apply body is a bad request', () => {
    const { fm } = cmManager();
    const r = fm.apply(undefined, cm({ k: 'v' }, { managedFields: [] }), 'm1');
    expect(r).toEqual({ ok: false, error: { reason: 'BadRequest', message: 'metadata.managedFields must be nil' } });
  });

  it('an apply body of another version is a bad request', () => {
    const { fm } = cmManager();
    const r = fm.apply(undefined, { ...cm({}), apiVersion: 'v2' }, 'm1');
    expect(r).toEqual({
      ok: false,
      error: { reason: 'BadRequest', message: 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1' },
    });
  });

  it('[API-SSA-035][API-SSA-038] managedFields [{}] resets; the request then owns what it changed', () => {
    const { fm } = cmManager();
    let obj = mustApply(fm, undefined, cm({ a: '1' }), 'm1');
    obj = fm.update(obj, { ...obj, data: { a: '1', b: '2' } }, 'u1');
    expect(entries(obj)).toHaveLength(2);
    const reset = fm.update(obj, { ...obj, metadata: { ...(obj.metadata as JsonObject), managedFields: [{}] } }, 'm9');
    expect((reset.metadata as JsonObject).managedFields).toBeUndefined();
    const resetAndChange = fm.update(
      obj,
      { ...obj, metadata: { ...(obj.metadata as JsonObject), managedFields: [{}] }, data: { a: '1', b: '2', k: 'v' } },
      'm9',
    );
    expect(entries(resetAndChange).map((e) => [e.manager, e.fieldsV1])).toEqual([['m9', { 'f:data': { 'f:k': {} } }]]);
  });

  it('an update that cannot be typed keeps the live entries as they were; an apply that cannot is an error', () => {
    const dep = newFieldManager({ apiVersion: 'apps/v1', schema: definition(DEPLOYMENT), definitions, now: fakeClock().now });
    const base = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } };
    const live = mustApply(dep, undefined, { ...base, spec: { replicas: 1 } }, 'm1');
    const keyless = { ...live, spec: { replicas: 1, template: { spec: { containers: [{ image: 'x' }] } } } };
    const updated = dep.update(live, keyless, 'u1');
    expect(updated.spec).toEqual(keyless.spec);
    expect(entries(updated)).toEqual(entries(live));
    expect(dep.update(undefined, keyless, 'u1').metadata).toEqual({ name: 'd', namespace: 'default' });
    const r = dep.apply(live, { ...base, spec: { replicas: 'one' } }, 'm1');
    expect(r).toEqual({ ok: false, error: { reason: 'InternalError', message: 'failed to create typed patch object: .spec.replicas: expected numeric (int or float), got string' } });
  });

  it('[API-SSA-037] managedFields [] does not reset', () => {
    const { fm } = cmManager();
    const obj = mustApply(fm, undefined, cm({ a: '1' }), 'm1');
    const r = fm.update(obj, { ...obj, metadata: { ...(obj.metadata as JsonObject), managedFields: [] } }, 'm9');
    expect(entries(r)).toEqual(entries(obj));
  });

  it('[API-SSA-012] an explicit managedFields write is honoured (client-side to server-side migration)', () => {
    const { fm } = cmManager();
    const obj = fm.update(undefined, cm({ a: '1' }), 'kubectl-client-side-apply');
    const written: ManagedFieldsEntry[] = [
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2025-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ];
    const migrated = fm.update(obj, { ...obj, metadata: { ...(obj.metadata as JsonObject), managedFields: written as unknown as JsonObject[] } }, 'kubectl');
    expect(entries(migrated)).toEqual(written);
    // kubectl now owns data.a as an applier: dropping it from its manifest removes it.
    const after = mustApply(fm, migrated, cm({ b: '2' }), 'kubectl');
    expect(after.data).toEqual({ b: '2' });
  });

  it('a subresource write cannot replace managedFields', () => {
    const { fm } = cmManager({ subresource: 'status', resetFields: [] });
    const main = cmManager().fm;
    const obj = mustApply(main, undefined, cm({ a: '1' }), 'm1');
    const r = fm.update(obj, { ...obj, metadata: { ...(obj.metadata as JsonObject), managedFields: [{}] } }, 'x');
    expect(entries(r)).toEqual(entries(obj));
  });

  it('[API-SSA-067] kubectl migrating from client-side apply does not conflict on last-applied fields', () => {
    const { fm } = cmManager();
    const lastApplied = JSON.stringify(cm({ color: 'red' }));
    const csa = fm.update(undefined, cm({ color: 'red' }, { annotations: { [LAST_APPLIED_CONFIG_ANNOTATION]: lastApplied } }), 'kubectl-client-side-apply');
    const r = fm.apply(csa, cm({ color: 'blue' }), 'kubectl');
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.object.data).toEqual({ color: 'blue' });
    // The annotation follows the server-side applied configuration.
    const ann = ((r.object.metadata as JsonObject).annotations as JsonObject)[LAST_APPLIED_CONFIG_ANNOTATION] as string;
    expect(JSON.parse(ann)).toEqual(cm({ color: 'blue' }));
    expect(ann.endsWith('\n')).toBe(true);
    // Another manager name gets the conflict.
    expect(fm.apply(csa, cm({ color: 'blue' }), 'other').ok).toBe(false);
  });

  it('kubectl keeps the annotation in step without its own value, and never changes the live object', () => {
    const { fm } = cmManager();
    const lastApplied = JSON.stringify(cm({ color: 'red' }));
    const csa = fm.update(undefined, cm({ color: 'red' }, { annotations: { [LAST_APPLIED_CONFIG_ANNOTATION]: lastApplied, team: 'a' } }), 'kubectl-client-side-apply');
    const before = JSON.stringify(csa);
    // Only the annotation itself in the applied annotations: the recorded configuration has none.
    const applied = cm({ color: 'red' }, { annotations: { [LAST_APPLIED_CONFIG_ANNOTATION]: 'stale' } });
    const r = fm.apply(csa, applied, 'kubectl', true);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const ann = (r.object.metadata as JsonObject).annotations as JsonObject;
    expect(ann[LAST_APPLIED_CONFIG_ANNOTATION]).toBe('{"apiVersion":"v1","data":{"color":"red"},"kind":"ConfigMap","metadata":{"name":"cm1","namespace":"default"}}\n');
    expect(ann.team).toBe('a');
    expect(JSON.stringify(csa)).toBe(before);
    expect((applied.metadata as JsonObject).annotations).toEqual({ [LAST_APPLIED_CONFIG_ANNOTATION]: 'stale' });
  });

  it('[API-SSA-068] kubectl migrating still conflicts on fields client-side apply did not set', () => {
    const { fm } = cmManager();
    const lastApplied = JSON.stringify(cm({ color: 'red' }));
    let obj = fm.update(undefined, cm({ color: 'red' }, { annotations: { [LAST_APPLIED_CONFIG_ANNOTATION]: lastApplied } }), 'kubectl-client-side-apply');
    obj = fm.update(obj, { ...obj, data: { color: 'red', size: 'L' } }, 'editor');
    const r = fm.apply(obj, cm({ color: 'blue', size: 'S' }), 'kubectl');
    if (r.ok) throw new Error('expected a conflict');
    expect(FieldManager.conflictStatus(r.error)!.causes.map((c) => c.field)).toEqual(['.data.size']);
  });

  it('caps Update entries at 10 by merging the oldest into ancient-changes', () => {
    const { fm, clock } = cmManager();
    let obj = fm.update(undefined, cm({}), 'creator');
    for (let i = 0; i < 11; i++) {
      clock.tick(1);
      obj = fm.update(obj, { ...obj, data: { ...(obj.data as JsonObject), [`k${i}`]: 'v' } }, `u${i}`);
    }
    const names = entries(obj).map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names[0]).toBe('ancient-changes');
    // The creator (oldest) and the next two updaters merged: creator owned the empty data map itself.
    expect(entries(obj)[0].fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } });
  });

  it('status is not tracked for main-resource writes, spec not for status writes', () => {
    const dep = (spec: JsonObject, status: JsonObject): JsonObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec, status });
    const main = newFieldManager({ apiVersion: 'apps/v1', schema: definition(DEPLOYMENT), definitions });
    const status = newFieldManager({ apiVersion: 'apps/v1', schema: definition(DEPLOYMENT), definitions, subresource: 'status' });
    const created = main.update(undefined, dep({ replicas: 1 }, { replicas: 0 }), 'c');
    expect(entries(created)[0].fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const st = status.update(created, dep({ replicas: 2 }, { replicas: 1 }), 'ctrl');
    expect(entries(st).find((e) => e.manager === 'ctrl')!.fieldsV1).toEqual({ 'f:status': { 'f:replicas': {} } });
  });

  it('[API-SSA-028][API-SSA-030] the default manager comes from the User-Agent', () => {
    expect(managerOrUserAgent('', 'kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07')).toBe('kubectl');
    expect(managerOrUserAgent(undefined, 'mytool/1.0 (linux)')).toBe('mytool');
    expect(managerOrUserAgent('explicit', 'kubectl/v1')).toBe('explicit');
    expect(managerOrUserAgent(undefined, 'x'.repeat(200))).toHaveLength(128);
    expect(managerOrUserAgent(undefined, 'a\tb/1')).toBe('ab');
    // Printable as Go's unicode.IsPrint says: U+00A0 is a space but not printable; é counts two bytes of the 128.
    expect(managerOrUserAgent(undefined, 'a\u00a0b/1')).toBe('ab');
    expect(managerOrUserAgent(undefined, 'é'.repeat(70))).toBe('é'.repeat(64));
    expect(managerOrUserAgent(undefined, '\t' + 'x'.repeat(130))).toBe('x'.repeat(128));
  });

  it('[API-SSA-039][API-SSA-040][API-SSA-034] apply creates, then patches leaving other fields alone', () => {
    const { fm } = cmManager();
    const created = mustApply(fm, undefined, cm({ k: 'v' }), 'm1');
    const withOther = fm.update(created, { ...created, data: { k: 'v', other: 'x' } }, 'u');
    const applied = mustApply(fm, withOther, cm({ k: 'w' }), 'm1');
    expect(applied.data).toEqual({ k: 'w', other: 'x' });
  });

  it('a no-op apply keeps the object and the entry time', () => {
    const { fm, clock } = cmManager();
    const created = mustApply(fm, undefined, cm({ k: 'v' }), 'm1');
    clock.tick(30);
    const again = mustApply(fm, created, cm({ k: 'v' }), 'm1');
    expect(again).toEqual(created);
  });

  it('nulls of the applied configuration are not stored (lists directly in lists keep theirs); the result shares nothing with it', () => {
    const fm = newFieldManager({ apiVersion: 'v1', now: fakeClock().now });
    const applied: JsonObject = {
      apiVersion: 'v1',
      kind: 'Blob',
      metadata: { name: 'b' },
      list: [[{ x: null }], { y: null, z: 1 }],
      map: { gone: null, inner: { gone: null } },
      top: null,
    };
    const before = JSON.stringify(applied);
    const obj = mustApply(fm, undefined, applied, 'm1');
    const { metadata, ...rest } = obj;
    expect(rest).toEqual({ apiVersion: 'v1', kind: 'Blob', list: [[{ x: null }], { z: 1 }], map: { inner: {} } });
    expect(entries({ metadata })[0].fieldsV1).toEqual({ 'f:list': {}, 'f:map': { '.': {}, 'f:gone': {}, 'f:inner': { '.': {}, 'f:gone': {} } }, 'f:top': {} });
    ((obj.list as JsonObject[][])[0][0] as JsonObject).x = 'changed';
    expect(JSON.stringify(applied)).toBe(before);
  });

  it('[API-SSA-034] apply changes neither the live object nor the configuration, and its result (a no-op apply included) shares no value with them', () => {
    const { fm } = cmManager();
    const deepFreeze = (v: unknown): void => {
      if (typeof v !== 'object' || v === null) return;
      for (const x of Object.values(v)) deepFreeze(x);
      Object.freeze(v);
    };
    /** Changes every object and list of the result, nested ones included: a value frozen with the inputs throws. */
    const touchAll = (v: unknown): void => {
      if (typeof v !== 'object' || v === null) return;
      for (const x of Object.values(v)) touchAll(x);
      if (Array.isArray(v)) v.push('touched');
      else (v as Record<string, unknown>).touched = true;
    };
    const live = mustApply(fm, undefined, cm({ k: 'v' }, { labels: { a: 'b' } }), 'm1');
    deepFreeze(live);
    for (const applied of [cm({ k: 'w' }, { labels: { a: 'c' } }), cm({ k: 'v' }, { labels: { a: 'b' } })]) {
      deepFreeze(applied);
      const r = mustApply(fm, live, applied, 'm1');
      // the entries' FieldsV1 are frozen and shared by every object carrying them
      delete (r.metadata as JsonObject).managedFields;
      expect(() => touchAll(r)).not.toThrow();
      expect(((r.metadata as JsonObject).labels as JsonObject).touched).toBe(true);
    }
  });

  it('an entry an apply leaves as it was keeps its FieldsV1 object when the live object is an earlier result; read from text, it is written again', () => {
    const { fm } = cmManager();
    const created = mustApply(fm, undefined, cm({ a: '1', b: '2' }), 'm1');
    const m1Fields = entries(created)[0].fieldsV1!;
    const r = mustApply(fm, created, cm({ c: '3' }), 'm2');
    expect(entries(r).map((e) => e.manager)).toEqual(['m1', 'm2']);
    expect(entries(r)[0].fieldsV1).toBe(m1Fields);
    // the same entry read from text with its keys out of order (decoded alike) is written back in order
    const shuffled = JSON.parse(JSON.stringify(created)) as JsonObject;
    expect(m1Fields).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    entries(shuffled)[0].fieldsV1 = { 'f:data': { 'f:b': {}, 'f:a': {} } };
    const again = mustApply(fm, shuffled, cm({ c: '3' }), 'm2');
    expect(entries(again)[0].fieldsV1).toEqual(m1Fields);
    expect(Object.keys(entries(again)[0].fieldsV1!['f:data']!)).toEqual(['f:a', 'f:b']);
  });

  it('entries read back from text for the same object (uid) are recognised when equal to the last encoding, decoded when not', () => {
    const { fm } = cmManager();
    const created = mustApply(fm, undefined, cm({ a: '1', b: '2' }, { uid: 'uid-1' }), 'm1');
    const m1Fields = entries(created)[0].fieldsV1!;
    // as from storage: a copy, keys out of order
    const copy = JSON.parse(JSON.stringify(created)) as JsonObject;
    entries(copy)[0].fieldsV1 = { 'f:data': { 'f:b': {}, 'f:a': {} } };
    const again = mustApply(fm, copy, cm({ c: '3' }), 'm2');
    expect(entries(again)[0].fieldsV1).toBe(m1Fields);
    // a copy that says something else is taken at its word
    const changed = JSON.parse(JSON.stringify(created)) as JsonObject;
    entries(changed)[0].fieldsV1 = { 'f:data': { 'f:a': {} } };
    const other = mustApply(fm, changed, cm({ c: '3' }), 'm2');
    expect(entries(other)[0].fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    // and so is one of another object: decoded, to the nodes the first apply built (sets are shared), so to its encoding
    const elsewhere = JSON.parse(JSON.stringify(created)) as JsonObject;
    (elsewhere.metadata as JsonObject).uid = 'uid-2';
    expect(entries(mustApply(fm, elsewhere, cm({ c: '3' }), 'm2'))[0].fieldsV1).toBe(m1Fields);
  });
});

import { describe, expect, it } from 'vitest';
import { applyJSONPatch, applyMergePatch, type JsonObject } from './index';

const cm = (): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '5' }, data: { k1: 'a' } });

describe('JSON patch (RFC 6902)', () => {
  it('[API-PATCH-003][API-PATCH-011] add sets a value and leaves the rest', () => {
    const r = applyJSONPatch(cm(), [{ op: 'add', path: '/data/k', value: 'v' }]);
    expect(r).toEqual({ ok: true, object: { ...cm(), data: { k1: 'a', k: 'v' } } });
  });

  it('[API-PATCH-004] a failing test rejects the whole patch with 422 and changes nothing', () => {
    const original = cm();
    const r = applyJSONPatch(original, [
      { op: 'replace', path: '/data/k1', value: 'changed' },
      { op: 'test', path: '/data/k1', value: 'wrong' },
    ]);
    expect(r).toEqual({
      ok: false,
      error: {
        code: 422,
        reason: 'Invalid',
        message: 'the server rejected our request due to an error in our request',
        detail: 'testing value /data/k1 failed: test failed',
      },
    });
    expect(original).toEqual(cm());
  });

  it('a passing test lets the patch through', () => {
    const r = applyJSONPatch(cm(), [
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'remove', path: '/data/k1' },
    ]);
    expect(r.ok && r.object.data).toEqual({});
  });

  it('replacing a missing path is 422', () => {
    const r = applyJSONPatch(cm(), [{ op: 'replace', path: '/data/nope', value: 'x' }]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('[API-PATCH-010] a body that is not a list is a bad request', () => {
    const r = applyJSONPatch(cm(), { data: { k: 'v' } });
    expect(r).toEqual({
      ok: false,
      error: { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' },
    });
  });

  it('managedFields can be replaced by a JSON patch (the reset form)', () => {
    const obj = { ...cm(), metadata: { name: 'c', managedFields: [{ manager: 'x' }] } };
    const r = applyJSONPatch(obj, [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]);
    expect(r.ok && (r.object.metadata as JsonObject).managedFields).toEqual([{}]);
  });

  it('too many operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    const r = applyJSONPatch(cm(), ops);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 413, message: 'The allowed maximum operations in a JSON patch is 10000, got 10001' });
  });
});

describe('JSON merge patch (RFC 7386)', () => {
  it('[API-PATCH-005][API-PATCH-013] merges maps, null deletes, lists replace', () => {
    const original: JsonObject = { data: { k1: 'a', k2: 'b' }, list: [1, 2], nested: { a: { b: 1 } } };
    const r = applyMergePatch(original, { data: { k2: null, k3: 'c' }, list: [3], nested: { a: { c: 2 } }, fresh: { x: null, y: 1 } });
    expect(r).toEqual({
      ok: true,
      object: { data: { k1: 'a', k3: 'c' }, list: [3], nested: { a: { b: 1, c: 2 } }, fresh: { y: 1 } },
    });
    expect(original.data).toEqual({ k1: 'a', k2: 'b' });
  });

  it('[API-PATCH-010] a JSON-patch list sent as a merge patch is a bad request', () => {
    const r = applyMergePatch({}, [{ op: 'add', path: '/a', value: 1 }]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe(400);
  });

  it('a null merge patch is a bad request', () => {
    expect(applyMergePatch({}, null)).toEqual({ ok: false, error: { code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' } });
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { boolParam, optionalBoolParam, queryBool } from './queryParams';

describe('boolean query parameters (Convert_Slice_string_To_bool)', () => {
  it.each([
    ['0', false], ['false', false], ['False', false], ['FALSE', false], ['fAlSe', false],
    ['1', true], ['true', true], ['True', true], ['TRUE', true], ['', true], ['yes', true], ['f', true], ['no', true],
  ])('queryBool(%j) is %s', (v, want) => {
    expect(queryBool(v)).toBe(want);
  });

  it('absent is false for bool and undefined for *bool; only the first value counts', () => {
    const q = new URLSearchParams('a=false&a=true&b');
    expect(boolParam(q, 'missing')).toBe(false);
    expect(optionalBoolParam(q, 'missing')).toBeUndefined();
    expect(boolParam(q, 'a')).toBe(false);
    expect(optionalBoolParam(q, 'b')).toBe(true);
  });
});

describe('boolean query parameters through HTTP', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await newTestServer();
  });
  const cms = '/api/v1/namespaces/default/configmaps';

  it('API-PATH-030: watch=True and watch=yes are watches; watch=FALSE and watch=0 are lists', async () => {
    for (const v of ['True', 'yes', '']) {
      const w = await t.watch(`${cms}?watch=${v}`);
      expect(w.response.headers.get('content-type')).toContain('application/json');
      expect(w.response.status).toBe(200);
      w.close();
    }
    for (const v of ['FALSE', '0', 'false']) {
      const r = await t.json('GET', `${cms}?watch=${v}`);
      expect(r.body.kind).toBe('ConfigMapList');
    }
  });

  it('API-SSA-029: force=True (as the Python client sends it) forces an apply conflict', async () => {
    const apply = (manager: string, value: string, force?: string) =>
      t.json('PATCH', `${cms}/c1?fieldManager=${manager}${force !== undefined ? `&force=${force}` : ''}`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: value } }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    expect((await apply('m1', 'a')).status).toBe(201);
    expect((await apply('m2', 'b')).status).toBe(409);
    expect((await apply('m2', 'b', 'False')).status).toBe(409);
    const forced = await apply('m2', 'b', 'True');
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ k: 'b' });
  });

  it('force=false on a non-apply patch is still "specified" (PatchOptions.Force is a *bool)', async () => {
    await t.json('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2' } } });
    const r = await t.json('PATCH', `${cms}/c2?force=false`, { body: '{}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('API-WATCH-004: allowWatchBookmarks=True asks for bookmarks (sendInitialEvents=TRUE ends the initial state with one)', async () => {
    const w = await t.watch(`${cms}?watch=1&sendInitialEvents=TRUE&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=True`);
    const ev = (await w.next())!;
    expect(ev.type).toBe('BOOKMARK');
    expect(ev.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    w.close();
  });

  it('orphanDependents=True orphans (it conflicts with a propagationPolicy like true does)', async () => {
    await t.json('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c3' } } });
    const r = await t.json('DELETE', `${cms}/c3?orphanDependents=True&propagationPolicy=Background`);
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].message).toBe('Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set');
  });
});

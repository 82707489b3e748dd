/**
 * Request field validation end to end (area field-validation, API-ERR-004/005/006):
 * POST, PUT and PATCH with ?fieldValidation=Strict|Warn|Ignore, checking status
 * codes, Status bodies, `Warning: 299 - "..."` headers and what gets stored.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

/** The Warning header's values, one per entry (`299 - "text"`). */
function warnings(headers: Headers): string[] {
  const raw = headers.get('warning');
  return raw ? raw.split(/, (?=\d{3} )/) : [];
}

const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ...spec,
  },
});

describe('field validation levels that need no wiring', () => {
  it('[API-FV-003] each level is accepted on POST with a valid body', async () => {
    for (const level of ['Ignore', 'Warn', 'Strict']) {
      const r = await t.json('POST', `${CMS}?fieldValidation=${level}`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `ok-${level.toLowerCase()}` }, data: { a: '1' } } });
      expect(r.status).toBe(201);
      expect(warnings(r.headers)).toEqual([]);
    }
  });
});

describe('field validation over HTTP', () => {
  const cmWithUnknown = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, bogus: 'x' };

  it('[API-FV-001] [API-ERR-004] POST Strict with an unknown field is 400 naming it', async () => {
    const r = await t.json('POST', `${CMS}?fieldValidation=Strict`, { body: cmWithUnknown });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
      reason: 'BadRequest',
      code: 400,
    });
    expect((await t.json('GET', `${CMS}/c`)).status).toBe(404);
  });

  it('[API-ERR-005] POST Strict with a duplicate key is 400', async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"},"data":{"b":"2"}}';
    const r = await t.json('POST', `${CMS}?fieldValidation=Strict`, { body: raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
  });

  it('[API-FV-006] Strict lists every unknown and duplicate field', async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","foo":1},"data":{"a":"1","a":"2"},"bar":2}';
    const r = await t.json('POST', `${CMS}?fieldValidation=Strict`, { body: raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.foo", duplicate field "data.a", unknown field "bar"',
    );
  });

  it('[API-FV-002] Strict applies to PUT and to merge PATCH', async () => {
    await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } });
    const cur = await t.json('GET', `${CMS}/c`);
    const put = await t.json('PUT', `${CMS}/c?fieldValidation=Strict`, { body: { ...cur.body, bogus: 1 } });
    expect(put.status).toBe(400);
    expect(put.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"');
    const patch = await t.json('PATCH', `${CMS}/c?fieldValidation=Strict`, { body: '{"bogus":1}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(400);
    expect(patch.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'strict decoding error: unknown field "bogus"', reason: 'BadRequest', code: 400 });
    // A patch whose result does not decode at all stays 422 on the field "patch".
    const bad = await t.json('PATCH', `${CMS}/c?fieldValidation=Strict`, { body: '{"data":{"a":1}}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes[0].field).toBe('patch');
  });

  it('[API-FV-004] [API-FV-008] [API-FV-010] no fieldValidation means Warn: 201, a Warning per field, field not stored', async () => {
    const r = await t.json('POST', CMS, { body: cmWithUnknown });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"bogus\\""']);
    const g = await t.json('GET', `${CMS}/c`);
    expect(g.body.bogus).toBeUndefined();
    expect(g.body.data).toEqual({ a: '1' });
  });

  it('[API-FV-005] [API-FV-007] Warn with two unknown fields gives two Warning entries', async () => {
    const r = await t.json('POST', `${DEPLOYS}?fieldValidation=Warn`, { body: { ...deployment('d', { foo: 1 }), bar: 2 } });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"spec.foo\\""', '299 - "unknown field \\"bar\\""']);
  });

  it('[API-FV-014] Warn with a duplicate key succeeds and names the duplicate', async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"},"data":{"a":"2"}}';
    const r = await t.json('POST', CMS, { body: raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "duplicate field \\"data\\""']);
    expect(r.body.data).toEqual({ a: '2' });
  });

  it('[API-FV-009] Ignore: success, no Warning, field absent on GET', async () => {
    const r = await t.json('POST', `${CMS}?fieldValidation=Ignore`, { body: cmWithUnknown });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBeNull();
    expect((await t.json('GET', `${CMS}/c`)).body.bogus).toBeUndefined();
  });

  it('[API-FV-012] a top-level field outside the schema is unknown (Warn on PUT too)', async () => {
    await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
    const cur = await t.json('GET', `${CMS}/c`);
    const r = await t.json('PUT', `${CMS}/c`, { body: { ...cur.body, bogus: 1 } });
    expect(r.status).toBe(200);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"bogus\\""']);
  });

  it('[API-ERR-006] [API-FV-011] a type error with an unknown field is 400 naming only the type error, at every level', async () => {
    for (const level of ['Strict', 'Warn', 'Ignore']) {
      const r = await t.json('POST', `${DEPLOYS}?fieldValidation=${level}`, { body: deployment(`d-${level.toLowerCase()}`, { replicas: 'x', bogus: 1 }) });
      expect(r.status).toBe(400);
      expect(r.body.reason).toBe('BadRequest');
      expect(r.body.message).toBe(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
    }
  });

  it('an unsupported level is 422 on the options kind', async () => {
    const r = await t.json('POST', `${CMS}?fieldValidation=strict`, { body: cmWithUnknown });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('YAML bodies report duplicate keys with their lines', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n  a: "2"\n';
    const r = await t.json('POST', `${CMS}?fieldValidation=Strict`, { body: yaml, headers: { 'content-type': 'application/yaml' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  });

  it('[API-FV-013] a custom resource keeps preserve-unknown-fields content under Strict', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { size: { type: 'integer' } } }, other: { type: 'string' } } } },
          },
        ],
      },
    };
    expect((await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const path = '/apis/example.com/v1/namespaces/default/widgets';
    const ok = await t.json('POST', `${path}?fieldValidation=Strict`, { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1, extra: { any: true } } } });
    expect(ok.status).toBe(201);
    expect((await t.json('GET', `${path}/w`)).body.spec.extra).toEqual({ any: true });
    const bad = await t.json('POST', `${path}?fieldValidation=Strict`, { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, bogus: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "bogus"');
  });
});

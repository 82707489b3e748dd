import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});
afterAll(async () => {
  await t.server.close();
});

describe('numeric query parameters past their Go types', () => {
  it('a resourceVersion beyond uint64 is 400 BadRequest, as strconv.ParseUint reports it', async () => {
    const big = '99999999999999999999';
    for (const path of [`/api/v1/namespaces/default/configmaps?resourceVersion=${big}`, `/api/v1/namespaces/default/configmaps/x?resourceVersion=${big}`, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${big}`]) {
      const r = await t.json('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: `invalid resource version: resourceVersion: Invalid value: "${big}": strconv.ParseUint: parsing "${big}": value out of range` });
    }
    // One past the largest uint64.
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=18446744073709551616')).status).toBe(400);
  });

  it('limit and timeoutSeconds beyond int64 are 400 BadRequest with ParseInt\'s words', async () => {
    for (const param of ['limit', 'timeoutSeconds']) {
      const r = await t.json('GET', `/api/v1/namespaces/default/configmaps?${param}=9223372036854775808`);
      expect(r.status, param).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range' });
    }
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps?limit=9223372036854775807')).status).toBe(200);
  });
});

/** /statusz, /flagz and /configz through handle(): text by default, the structured form only for g, v and as. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../testing/client';
import { redactFlag } from './zpages';

const statuszJson = 'application/json;v=v1beta1;g=config.k8s.io;as=Statusz';
const flagzJson = (v: string) => `application/json;v=${v};g=config.k8s.io;as=Flagz`;

describe('/statusz', () => {
  it('[AC-STATUSZ-015][AC-STATUSZ-014] answers plain text by default', async () => {
    const t = await newTestServer();
    t.clock.advance(3_725_000);
    const r = await t.request('GET', '/statusz');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const body = await r.text();
    expect(body.split('\n').slice(0, 5)).toEqual([
      'kube-apiserver statusz',
      'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.',
      '',
      'Started: Thu Jan  1 00:00:00 UTC 2026',
      'Up: 1 hr 02 min 05 sec',
    ]);
    expect(body).toContain('\nBinary version: 1.36.0\n');
    expect(body).toContain('\nreadyz:/readyz\n');
  });

  it('[AC-STATUSZ-001][AC-STATUSZ-002][AC-STATUSZ-003][AC-STATUSZ-004][AC-STATUSZ-005][AC-STATUSZ-006][AC-STATUSZ-007][AC-STATUSZ-008][AC-STATUSZ-009][AC-STATUSZ-016] the structured Statusz with g, v and as', async () => {
    const t = await newTestServer();
    t.clock.advance(10_000);
    const first = await t.json('GET', '/statusz', { headers: { accept: statuszJson } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json;g=config.k8s.io;v=v1beta1;as=Statusz');
    expect(first.body).toEqual({
      kind: 'Statusz', apiVersion: 'config.k8s.io/v1beta1', metadata: { name: 'kube-apiserver' },
      startTime: '2026-01-01T00:00:00Z', uptimeSeconds: 10, binaryVersion: '1.36.0', emulationVersion: '1.36', minimumCompatibilityVersion: '1.35',
      paths: ['/configz', '/flagz', '/healthz', '/livez', '/metrics', '/metrics/slis', '/readyz', '/version'],
    });
    // goVersion is optional: kubesim is not built with Go, so it is left out.
    expect(first.body).not.toHaveProperty('goVersion');
    t.clock.advance(5_000);
    expect((await t.json('GET', '/statusz', { headers: { accept: statuszJson } })).body.uptimeSeconds).toBe(15);
    for (const p of first.body.paths as string[]) expect((await t.request('GET', p)).status).toBe(200);
  });

  it('[AC-STATUSZ-020][AC-ERR-008] application/json without all of g, v and as is 406 Not Acceptable', async () => {
    const t = await newTestServer();
    for (const accept of ['application/json', 'application/json;g=config.k8s.io;v=v1beta1', 'application/json;v=v1beta1;as=Statusz', 'application/json;g=config.k8s.io;v=v9;as=Statusz']) {
      const r = await t.json('GET', '/statusz', { headers: { accept } });
      expect(r.status, accept).toBe(406);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    }
    // kubectl's "application/json, */*" falls through to the text.
    const kubectlAccept = await t.request('GET', '/statusz', { headers: { accept: 'application/json, */*' } });
    expect(kubectlAccept.status).toBe(200);
    expect(kubectlAccept.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('[AC-STATUSZ-014][AC-STATUSZ-017] each page is behind its gate: off means 404', async () => {
    const t = await newTestServer({ featureGates: { ComponentStatusz: false, ComponentFlagz: false } });
    expect((await t.request('GET', '/statusz')).status).toBe(404);
    expect((await t.request('GET', '/flagz')).status).toBe(404);
    const flagzOff = await newTestServer({ featureGates: { ComponentFlagz: false } });
    expect((await flagzOff.json('GET', '/statusz', { headers: { accept: statuszJson } })).body.paths).not.toContain('/flagz');
    const on = await newTestServer();
    expect((await on.request('GET', '/statusz')).status).toBe(200);
    expect((await on.request('GET', '/flagz')).status).toBe(200);
  });
});

describe('/flagz', () => {
  const flags = { 'secure-port': '6443', 'bind-address': '127.0.0.1', 'oidc-issuer-url': 'https://alice:s3cret@issuer.example', 'oidc-client-secret': 'hunter2' };

  it('[AC-STATUSZ-018] answers plain text by default', async () => {
    const t = await newTestServer({ flags });
    const r = await t.request('GET', '/flagz');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await r.text()).split('\n')).toEqual([
      'kube-apiserver flags',
      'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.',
      '',
      'bind-address=127.0.0.1',
      'oidc-client-secret=[REDACTED]',
      'oidc-issuer-url=https://alice:xxxxx@issuer.example',
      'secure-port=6443',
      '',
    ]);
  });

  it('[AC-STATUSZ-010][AC-STATUSZ-011][AC-STATUSZ-012][AC-STATUSZ-013][AC-STATUSZ-019] the structured Flagz, in v1alpha1 and v1beta1, with confidential values redacted', async () => {
    const t = await newTestServer({ flags });
    for (const v of ['v1alpha1', 'v1beta1']) {
      const r = await t.json('GET', '/flagz', { headers: { accept: flagzJson(v) } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        kind: 'Flagz', apiVersion: `config.k8s.io/${v}`, metadata: { name: 'kube-apiserver' },
        flags: { 'bind-address': '127.0.0.1', 'oidc-client-secret': '[REDACTED]', 'oidc-issuer-url': 'https://alice:xxxxx@issuer.example', 'secure-port': '6443' },
      });
      expect(JSON.stringify(r.body)).not.toContain('s3cret');
      expect(JSON.stringify(r.body)).not.toContain('hunter2');
    }
  });

  it('[AC-STATUSZ-021][AC-ERR-009] application/json without as is 406', async () => {
    const t = await newTestServer({ flags });
    expect((await t.request('GET', '/flagz', { headers: { accept: 'application/json;g=config.k8s.io;v=v1beta1' } })).status).toBe(406);
    expect((await t.request('GET', '/flagz', { headers: { accept: statuszJson } })).status).toBe(406);
  });

  it('a server started without a command line (the service worker) lists the options it runs with', async () => {
    const t = await newTestServer({ featureGates: { NativeHistograms: true }, runtimeConfig: 'batch/v1=false' });
    const r = await t.json('GET', '/flagz', { headers: { accept: flagzJson('v1beta1') } });
    expect(r.body.flags).toEqual({ 'anonymous-auth': 'true', 'feature-gates': 'NativeHistograms=true', 'runtime-config': 'batch/v1=false' });
  });

  it('redacts userinfo passwords in every URL of a list, keeps other values', () => {
    expect(redactFlag('etcd-servers', 'https://u:p@a:2379,https://b:2379')).toBe('https://u:xxxxx@a:2379,https://b:2379');
    expect(redactFlag('port', '8080')).toBe('8080');
  });
});

describe('/configz', () => {
  it('serves the merged configuration: feature gates and runtime config', async () => {
    const t = await newTestServer({ runtimeConfig: 'batch/v1=false', featureGates: { NativeHistograms: true } });
    const r = await t.json('GET', '/configz');
    expect(r.status).toBe(200);
    expect(r.body['kube-apiserver']).toMatchObject({ runtimeConfig: 'batch/v1=false', featureGates: { NativeHistograms: true, ComponentStatusz: true } });
  });
});

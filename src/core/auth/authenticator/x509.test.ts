/** Client certificates and the authenticating proxy through handle(), with the host's verification result attached. */
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../apiserver';
import { createMemoryStorage } from '../../storage/memory';
import { FakeClock } from '../../util/clock';
import type { AuthenticationOptions } from '../authentication';
import { parseTokenFile } from './tokenfile';
import { withClientCertificate, type ClientCertificate } from './x509';

const whoami = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

async function server(authentication: AuthenticationOptions) {
  const api = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), authentication });
  await api.ready;
  return async (cert: ClientCertificate | undefined, headers: Record<string, string> | Headers = {}) => {
    const h = new Headers(headers);
    h.set('content-type', 'application/json');
    const request = new Request('https://127.0.0.1/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', headers: h, body: whoami });
    if (cert) withClientCertificate(request, cert);
    const res = await api.handle(request);
    return { status: res.status, body: await res.json() };
  };
}

const cert = (cn: string, o: string[], verifiedBy: ClientCertificate['verifiedBy']): ClientCertificate => ({ commonName: cn, organizations: o, verifiedBy });

describe('client certificates', () => {
  it('[AC-AUTHN-021] [AC-AUTHN-028] [AC-AUTHN-029] [AC-AUTHN-009] CN is the user and each O a group', async () => {
    const send = await server({ clientCertificates: true });
    const r = await send(cert('jane', ['dev', 'ops'], ['client-ca']));
    expect(r.body.status.userInfo).toEqual({ username: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('an unverified certificate is 401; without --client-ca-file a certificate is ignored', async () => {
    const send = await server({ clientCertificates: true });
    expect((await send(cert('jane', [], []))).status).toBe(401);
    const off = await server({});
    expect((await off(cert('jane', [], ['client-ca']))).body.status.userInfo.username).toBe('system:anonymous');
  });

  it('[AC-AUTHN-023] a valid certificate and a valid token: authenticated (the certificate decides first)', async () => {
    const send = await server({ clientCertificates: true, tokenFile: parseTokenFile('t1,bob,1\n') });
    expect((await send(cert('jane', [], ['client-ca']), { authorization: 'Bearer t1' })).body.status.userInfo.username).toBe('jane');
    // A proxy certificate the client CA does not verify, and a good token: the union goes on to the token.
    expect((await send(cert('proxy', [], ['requestheader-ca']), { authorization: 'Bearer t1' })).body.status.userInfo.username).toBe('bob');
  });
});

describe('authenticating proxy', () => {
  const requestHeader = { usernameHeaders: ['X-Remote-User', 'X-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], allowedNames: ['front-proxy'] };

  it('[AC-AUTHN-110] [AC-AUTHN-111] [AC-AUTHN-112] [AC-AUTHN-006] the first username header, every group header, extras with the prefix removed', async () => {
    const send = await server({ requestHeader });
    const h = new Headers({ 'x-user': 'b', 'X-Remote-User': 'a', 'X-Remote-Extra-Acme.com%2Fproject': 'p1', 'X-Remote-Extra-Scopes': 'a' });
    h.append('X-Remote-Group', 'g1');
    h.append('X-Remote-Group', 'g2');
    const r = await send(cert('front-proxy', [], ['requestheader-ca']), h);
    expect(r.body.status.userInfo).toEqual({ username: 'a', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'acme.com/project': ['p1'], scopes: ['a'] } });
  });

  it('[AC-AUTHN-113] [AC-AUTHN-114] headers are ignored without a verified proxy certificate; a CN outside allowed names is 401', async () => {
    const send = await server({ requestHeader });
    expect((await send(undefined, { 'X-Remote-User': 'a' })).body.status.userInfo.username).toBe('system:anonymous');
    expect((await send(cert('front-proxy', [], []), { 'X-Remote-User': 'a' })).status).toBe(401);
    expect((await send(cert('other', [], ['requestheader-ca']), { 'X-Remote-User': 'a' })).status).toBe(401);
  });
});

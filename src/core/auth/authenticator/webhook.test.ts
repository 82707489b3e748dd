/** Webhook token authentication through handle(), with the remote service stubbed at the host's call boundary. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../../testing/client';
import type { WebhookTokenOptions } from './webhook';

const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
type Review = Record<string, any>;

function stub(answer: (review: Review) => { status?: number; body: unknown }) {
  const seen: Review[] = [];
  const call: WebhookTokenOptions['call'] = async (review) => {
    seen.push(review);
    const a = answer(review);
    return { status: a.status ?? 200, body: a.body };
  };
  return { seen, call };
}

const ok = (apiVersion: string, status: Record<string, unknown>) => ({ body: { apiVersion, kind: 'TokenReview', status } });

async function setup(webhook: Partial<WebhookTokenOptions> & Pick<WebhookTokenOptions, 'call'>) {
  const t = await newTestServer({ authentication: { webhook } });
  const me = (token: string) => t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } });
  return { t, me };
}

describe('webhook token authentication', () => {
  it('[AC-AUTHN-018] [AC-AUTHN-107] [AC-AUTHN-108] [AC-AUTHN-106] [AC-REV-002] [AC-REV-011] a v1beta1 TokenReview with spec.token by default; the answered user is the caller', async () => {
    const s = stub((r) => ok(r.apiVersion, { authenticated: true, user: { username: 'wendy', uid: 'w1', groups: ['g'], extra: { k: ['v'] } } }));
    const { me } = await setup({ call: s.call });
    expect((await me('tok')).body.status.userInfo).toEqual({ username: 'wendy', uid: 'w1', groups: ['g', 'system:authenticated'], extra: { k: ['v'] } });
    expect(s.seen[0]).toEqual({
      apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', metadata: { creationTimestamp: null },
      spec: { token: 'tok', audiences: ['https://kubernetes.default.svc.cluster.local'] }, status: { user: {} },
    });
  });

  it('[AC-AUTHN-106] --authentication-token-webhook-version=v1 sends v1; [AC-REV-012] an answer in another version fails (401)', async () => {
    const s = stub(() => ok('authentication.k8s.io/v1beta1', { authenticated: true, user: { username: 'x' } }));
    const { me } = await setup({ call: s.call, version: 'v1' });
    expect((await me('tok')).status).toBe(401);
    expect(s.seen[0]!.apiVersion).toBe('authentication.k8s.io/v1');
  });

  it('[AC-REV-009] [AC-REV-010] [AC-ERR-003] status.error is ignored when authenticated; a refusal is 401 Unauthorized', async () => {
    const s = stub((r) => (r.spec.token === 'good' ? ok(r.apiVersion, { authenticated: true, error: 'x', user: { username: 'u' } }) : ok(r.apiVersion, { authenticated: false, error: 'token expired' })));
    const { me } = await setup({ call: s.call });
    expect((await me('good')).body.status.userInfo.username).toBe('u');
    const bad = await me('bad');
    expect(bad.status).toBe(401);
    expect(bad.body.message).toBe('Unauthorized');
  });

  it('[AC-AUTHN-105] [AC-LIM-007] decisions are cached for 2 minutes by default', async () => {
    const s = stub((r) => ok(r.apiVersion, { authenticated: true, user: { username: 'u' } }));
    const { t, me } = await setup({ call: s.call });
    await me('tok');
    await me('tok');
    expect(s.seen).toHaveLength(1);
    t.clock.advance(120_001);
    await me('tok');
    expect(s.seen).toHaveLength(2);
  });
});

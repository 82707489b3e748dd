/** The union authorizer: the first Allow or Deny decides; when none does, every mode's reason and error is kept. */
import { describe, expect, it } from 'vitest';
import { unionAuthorizer } from './union';
import { alwaysAllowAuthorizer } from './builtin';
import type { Attributes, AuthorizationResult, Authorizer } from './types';

const attrs: Attributes = { user: { username: 'alice', groups: ['system:authenticated'] }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns/pods/p', namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: 'p' };

function fixed(name: string, result: AuthorizationResult, pending = false): Authorizer {
  return { name, authorize: () => (pending ? Promise.resolve(result) : result) };
}

describe('unionAuthorizer', () => {
  it('[AC-AUTHZ-008] with no opinion from any mode: NoOpinion with every reason, one per line, and the errors aggregated', async () => {
    for (const pending of [false, true]) {
      const union = unionAuthorizer([
        fixed('Node', { decision: 'NoOpinion', reason: '' }, pending),
        fixed('RBAC', { decision: 'NoOpinion', reason: 'RBAC: no rule' }),
        fixed('Webhook', { decision: 'NoOpinion', reason: 'webhook: no', error: 'timeout' }, pending),
        fixed('Webhook2', { decision: 'NoOpinion', reason: '', error: 'refused' }),
      ]);
      expect(await union.authorize(attrs)).toEqual({
        decision: 'NoOpinion', reason: 'RBAC: no rule\nwebhook: no', error: '[timeout, refused]',
        explanation: { authorizer: 'none', consulted: ['Node', 'RBAC', 'Webhook', 'Webhook2'] },
      });
    }
    expect(await unionAuthorizer([fixed('RBAC', { decision: 'NoOpinion', reason: '' })]).authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: '', error: undefined, explanation: { authorizer: 'none', consulted: ['RBAC'] } });
  });

  it('[AC-AUTHZ-031] the first Allow or Deny decides, in the caller\'s turn when every mode answers at once', async () => {
    const allow = unionAuthorizer([fixed('RBAC', { decision: 'NoOpinion', reason: 'RBAC: no rule' }), alwaysAllowAuthorizer]).authorize(attrs);
    expect(allow).not.toBeInstanceOf(Promise);
    expect(allow).toEqual({ decision: 'Allow', reason: '', explanation: { authorizer: 'AlwaysAllow' } });
    const deny = await unionAuthorizer([fixed('Webhook', { decision: 'NoOpinion', reason: '' }, true), fixed('AlwaysDeny', { decision: 'Deny', reason: 'Everything is forbidden.', error: 'e' }), alwaysAllowAuthorizer]).authorize(attrs);
    expect(deny).toEqual({ decision: 'Deny', reason: 'Everything is forbidden.', error: 'e', explanation: { authorizer: 'AlwaysDeny' } });
  });

  it('[AC-AUTHZ-031] answers a repeated constant decision the same way, and a changed decision anew', () => {
    let rbac: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
    const union = unionAuthorizer([{ name: 'RBAC', authorize: () => rbac }, alwaysAllowAuthorizer]);
    const first = union.authorize(attrs);
    expect(union.authorize(attrs)).toBe(first);
    expect(first).toEqual({ decision: 'Allow', reason: '', explanation: { authorizer: 'AlwaysAllow' } });
    rbac = { decision: 'Allow', reason: 'RBAC: allowed by binding b', explanation: { binding: 'b' } };
    expect(union.authorize(attrs)).toEqual({ decision: 'Allow', reason: 'RBAC: allowed by binding b', explanation: { authorizer: 'RBAC', binding: 'b' } });
    rbac = Object.freeze({ decision: 'Deny', reason: 'no' });
    expect(union.authorize(attrs)).toEqual({ decision: 'Deny', reason: 'no', explanation: { authorizer: 'RBAC' } });
  });
});

import { describe, expect, it } from 'vitest';
import { validateAuthorizationFlags } from './authorization';
import { parseFlags } from './flags';

describe('authorization flags', () => {
  it('[AC-AUTHZ-038] --authorization-mode defaults to AlwaysAllow and keeps its order', () => {
    expect(validateAuthorizationFlags({})).toEqual(['AlwaysAllow']);
    expect(validateAuthorizationFlags(parseFlags(['--authorization-mode=Node,RBAC']))).toEqual(['Node', 'RBAC']);
  });

  it('[AC-AUTHZ-039] --authorization-config with --authorization-mode is an error', () => {
    expect(() => validateAuthorizationFlags(parseFlags(['--authorization-mode=RBAC', '--authorization-config=/x.yaml']))).toThrow(
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    );
  });

  it('bad mode lists fail the way kube-apiserver validates them', () => {
    expect(() => validateAuthorizationFlags({ authorizationModes: 'RBAC,Magic' })).toThrow('authorization-mode "Magic" is not a valid mode');
    expect(() => validateAuthorizationFlags({ authorizationModes: 'RBAC,RBAC' })).toThrow('authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
    expect(() => validateAuthorizationFlags({ authorizationModes: 'ABAC' })).toThrow("authorization-mode ABAC's authorization policy file not passed");
    expect(() => validateAuthorizationFlags({ authorizationPolicyFile: '/p.jsonl' })).toThrow('cannot specify --authorization-policy-file without mode ABAC');
  });
});

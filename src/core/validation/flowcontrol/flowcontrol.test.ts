/** FlowSchema and PriorityLevelConfiguration validation as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'flowcontrol.apiserver.k8s.io';

describe('FlowSchema', () => {
  const rule = (r: Record<string, unknown>) => ({ spec: { priorityLevelConfiguration: { name: 'workload-low' }, rules: [r] } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', rule({ subjects: [{ kind: 'Group', group: { name: 'devs' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }), []],
    ['no priority level, precedence 1', { spec: { matchingPrecedence: 1 } }, [
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    ]],
    ['rules without subjects or rules', rule({}), [
      'spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    ]],
    ['subjects and verbs', rule({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'sa' }, user: { name: 'u' } }, { kind: 'Team' }], nonResourceRules: [{ verbs: ['fly'], nonResourceURLs: ['healthz'] }] }), [
      'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
      "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
      'spec.rules[0].subjects[1].kind: Unsupported value: "Team": supported values: "Group", "ServiceAccount", "User"',
      'spec.rules[0].nonResourceRules[0].verbs: Unsupported value: []string{"fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'flowschemas', obj)).toEqual(want));
});

describe('PriorityLevelConfiguration', () => {
  it('Exempt only for exempt; Limited needs limited settings and a sane queuing', () => {
    expect(errorsOf(g, 'prioritylevelconfigurations', { spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } })).toEqual([]);
    expect(errorsOf(g, 'prioritylevelconfigurations', { spec: { type: 'Exempt' } })).toEqual(["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
    expect(errorsOf(g, 'prioritylevelconfigurations', { spec: { type: 'Limited' } })).toEqual(['spec.limited: Required value: must not be empty when type is Limited']);
    expect(
      errorsOf(g, 'prioritylevelconfigurations', { spec: { type: 'Limited', limited: { lendablePercent: 120, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 8 } } } } }),
    ).toEqual([
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)',
      'spec.limited.lendablePercent: Invalid value: 120: must be between 0 and 100, inclusive',
    ]);
  });
});

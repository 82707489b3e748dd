/** Webhook configurations and admission policies, structurally, as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'admissionregistration.k8s.io';
const hook = (h: Record<string, unknown>) => ({
  name: 'check.example.com',
  clientConfig: { service: { namespace: 'default', name: 'hook' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...h,
});

describe('ValidatingWebhookConfiguration and MutatingWebhookConfiguration', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['API-DRY-012: valid (sideEffects None)', { webhooks: [hook({}), hook({ name: 'other.example.com', sideEffects: 'NoneOnDryRun' })] }, []],
    ['API-VER-129: sideEffects required', { webhooks: [hook({ sideEffects: undefined })] }, ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']],
    ['API-VER-130: sideEffects Some', { webhooks: [hook({ sideEffects: 'Some' })] }, ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
    ['API-VER-131: admissionReviewVersions required', { webhooks: [hook({ admissionReviewVersions: undefined })] }, ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']],
    ['API-VER-132: names unique', { webhooks: [hook({}), hook({})] }, ['webhooks[1].name: Duplicate value: "check.example.com"']],
    ['name, timeout, policies', { webhooks: [hook({ name: 'check', timeoutSeconds: 31, failurePolicy: 'Maybe', matchPolicy: 'Loose' })] }, [
      'webhooks[0].name: Invalid value: "check": should be a domain with at least three segments separated by dots',
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
    ]],
    ['client config', { webhooks: [hook({ clientConfig: {} }), hook({ name: 'b.example.com', clientConfig: { url: 'http://u@h/x?q#f' } })] }, [
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      "webhooks[1].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[1].clientConfig.url: Invalid value: "u": user information is not permitted in the URL',
      'webhooks[1].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[1].clientConfig.url: Invalid value: "q": query parameters are not permitted in the URL',
    ]],
    ['rules', { webhooks: [hook({ rules: [{ operations: ['*', 'CREATE', 'PATCH'], apiGroups: [], apiVersions: ['v1'], resources: ['*/*', 'pods'], scope: 'Global' }] })] }, [
      'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE", "PATCH"}: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].operations[2]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources',
      'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => {
    expect(errorsOf(g, 'validatingwebhookconfigurations', obj)).toEqual(want);
    expect(errorsOf(g, 'mutatingwebhookconfigurations', obj)).toEqual(want);
  });

  it('an update is held only to what the stored configuration already met', () => {
    const old = { webhooks: [hook({ sideEffects: 'Unknown' })] };
    expect(errorsOf(g, 'validatingwebhookconfigurations', { webhooks: [hook({ sideEffects: 'Some' })] }, old)).toEqual([]);
    expect(errorsOf(g, 'validatingwebhookconfigurations', { webhooks: [hook({ sideEffects: 'Some' })] }, { webhooks: [hook({})] })).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    ]);
  });

  it('mutating webhooks check reinvocationPolicy', () => {
    expect(errorsOf(g, 'mutatingwebhookconfigurations', { webhooks: [hook({ reinvocationPolicy: 'Always' })] })).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });
});

describe('ValidatingAdmissionPolicy and binding', () => {
  const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  it('a policy needs match constraints with resource rules and a validation or audit annotation', () => {
    expect(errorsOf(g, 'validatingadmissionpolicies', { spec: { matchConstraints: { resourceRules: rules }, validations: [{ expression: 'true' }] } })).toEqual([]);
    expect(errorsOf(g, 'validatingadmissionpolicies', { spec: { failurePolicy: 'Maybe' } })).toEqual([
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    expect(errorsOf(g, 'validatingadmissionpolicies', { spec: { matchConstraints: {}, validations: [{ expression: ' ', reason: 'Teapot' }], paramKind: { kind: 'ConfigMap' } } })).toEqual([
      'spec.paramKind.apiVersion: Required value',
      'spec.matchConstraints.resourceRules: Required value',
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ]);
  });

  it('a binding names its policy and at least one action, not both Deny and Warn', () => {
    expect(errorsOf(g, 'validatingadmissionpolicybindings', { spec: { policyName: 'p', validationActions: ['Deny'] } })).toEqual([]);
    expect(errorsOf(g, 'validatingadmissionpolicybindings', { spec: { validationActions: ['Deny', 'Warn', 'Deny'], paramRef: {} } })).toEqual([
      'spec.policyName: Required value',
      'spec.paramRef: Required value: one of name or selector must be specified',
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
    expect(errorsOf(g, 'validatingadmissionpolicybindings', { spec: { policyName: 'p' } })).toEqual(['spec.validationActions: Required value: at least one validation action is required']);
  });
});

/** MutatingAdmissionPolicy and its binding, structurally, as tables of (object, expected errors), and once over HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { errorsOf } from '../testing';

const g = 'admissionregistration.k8s.io';
const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
const spec = (s: Record<string, unknown>) => ({
  spec: { matchConstraints: { resourceRules: rules }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }], reinvocationPolicy: 'Never', ...s },
});

describe('MutatingAdmissionPolicy', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid apply configuration', spec({}), []],
    ['valid JSON patch, IfNeeded, params', spec({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }], reinvocationPolicy: 'IfNeeded', paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), []],
    ['empty spec', { spec: {} }, [
      'spec.matchConstraints: Required value',
      'spec.mutations: Required value: mutations must contain at least one item',
      'spec.reinvocationPolicy: Required value',
    ]],
    ['enums', spec({ failurePolicy: 'Maybe', reinvocationPolicy: 'Always' }), [
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]],
    ['match constraints need resource rules', spec({ matchConstraints: { matchPolicy: 'Loose' } }), [
      'spec.matchConstraints.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
      'spec.matchConstraints.resourceRules: Required value',
    ]],
    ['mutation patch types', spec({
      mutations: [
        {},
        { patchType: 'Merge' },
        { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: ' ' }, jsonPatch: { expression: '[]' } },
      ],
    }), [
      'spec.mutations[0].patchType: Required value',
      'spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
      'spec.mutations[2].jsonPatch: Required value: must be specified when patchType is JSONPatch',
      'spec.mutations[2].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch',
      'spec.mutations[3].applyConfiguration.expression: Required value',
      'spec.mutations[3].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration',
    ]],
    ['variables and match conditions', spec({ variables: [{ name: 'in', expression: '' }], matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }] }), [
      'spec.matchConditions[1].name: Duplicate value: "a"',
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
      'spec.variables[0].expression: Required value: expression is not specified',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, obj, want) => {
    expect(errorsOf(g, 'mutatingadmissionpolicies', obj)).toEqual(want);
  });
  it('an update is validated as a create; a status write is not', () => {
    expect(errorsOf(g, 'mutatingadmissionpolicies', { spec: {} }, spec({}))).toHaveLength(3);
    expect(errorsOf(g, 'mutatingadmissionpolicies', { spec: {} }, spec({}), 'status')).toEqual([]);
  });
});

describe('MutatingAdmissionPolicyBinding', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', { spec: { policyName: 'p' } }, []],
    ['valid with a param selector', { spec: { policyName: 'p', paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } } }, []],
    ['policy name required', { spec: {} }, ['spec.policyName: Required value']],
    ['policy name and param ref', { spec: { policyName: 'P_1', paramRef: { name: 'a/b', selector: {}, parameterNotFoundAction: 'Ignore' } } }, [
      "spec.policyName: Invalid value: \"P_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "spec.paramRef.name: Invalid value: \"a/b\": may not contain '/'",
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
    ]],
    ['match resources keep kube\'s path spelling', { spec: { policyName: 'p', matchResources: { matchPolicy: 'Loose' } } }, [
      'spec.matchResouces.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
    ]],
  ];
  it.each(cases)('API-ERR-007: %s', (_n, obj, want) => {
    expect(errorsOf(g, 'mutatingadmissionpolicybindings', obj)).toEqual(want);
  });
});

describe('over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await newTestServer();
  });
  it('API-ERR-022: an invalid MutatingAdmissionPolicy is 422 with every cause; a valid one is created', async () => {
    const path = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
    const body = (s: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'add-label' }, ...s });
    const r = await t.json('POST', path, { body: body({ spec: { matchConstraints: { resourceRules: rules }, mutations: [{ patchType: 'Merge' }] } }) });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name: 'add-label', group: 'admissionregistration.k8s.io', kind: 'MutatingAdmissionPolicy' } });
    expect(r.body.message).toBe(
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "add-label" is invalid: [spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch", spec.reinvocationPolicy: Required value]',
    );
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"', field: 'spec.mutations[0].patchType' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.reinvocationPolicy' },
    ]);
    expect((await t.json('POST', path, { body: body(spec({})) })).status).toBe(201);
  });
});

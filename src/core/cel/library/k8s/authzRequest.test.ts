import { describe, expect, it } from 'vitest';
import { newEnvironment } from '../../environments';
import { AuthorizerValue, type AuthorizationAttributes } from './authz';
import { subjectAccessReviewRequest } from './sarRequest';

describe('authorization match conditions: request is a typed SubjectAccessReviewSpec', () => {
  const env = newEnvironment('authorization');
  const request = subjectAccessReviewRequest({
    user: 'alice',
    groups: ['dev'],
    resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'prod', labelSelector: { rawSelector: 'app=web' } },
  });
  const cases: [string, unknown][] = [
    ["request.resourceAttributes.verb == 'list' && request.user == 'alice'", true],
    // every string attribute is present, even when empty
    ["request.uid == '' && request.resourceAttributes.group == ''", true],
    ["request.resourceAttributes.labelSelector.rawSelector == 'app=web'", true],
    ['has(request.nonResourceAttributes)', false],
    ["'dev' in request.groups", true],
    ['type(request)', 'kubernetes.SubjectAccessReviewSpec'],
    ['type(request.resourceAttributes.labelSelector)', 'kubernetes.LabelSelectorAttributes'],
  ];
  it.each(cases)('%s', (expr, want) => {
    const c = env.compile(expr);
    expect(c.message).toBeUndefined();
    const r = c.program!.eval({ request });
    expect(r.ok).toBe(true);
    const v = r.ok ? r.value : undefined;
    expect(typeof v === 'object' && v !== null && 'name' in v ? (v as { name: string }).name : v).toBe(want);
  });

  it('fields outside the spec are compile errors', () => {
    expect(env.compile('request.resourceAttributes.verbs').message).toBe(
      "ERROR: <input>:1:27: undefined field 'verbs'\n | request.resourceAttributes.verbs\n | ..........................^",
    );
    expect(env.compile("request.user == 1").message).toContain("found no matching overload for '_==_' applied to '(string, int)'");
  });
});

describe('authorizer field and label selectors are parsed for the authorizer', () => {
  const env = newEnvironment('admission');
  const run = (expr: string): AuthorizationAttributes => {
    let seen: AuthorizationAttributes | undefined;
    const authorizer = new AuthorizerValue({ authorize: (a) => ((seen = a), { decision: 'allow', reason: '' }) }, { username: 'u', groups: [] });
    const r = env.compile(expr).program!.eval({ authorizer });
    expect(r.ok && r.value).toBe(true);
    return seen!;
  };

  it('valid selectors arrive as requirements', () => {
    const a = run("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=web,tier!=db').check('list').allowed()");
    expect(a.fieldSelectorRequirements).toEqual([{ field: 'spec.nodeName', operator: '=', value: 'n1' }]);
    expect(a.labelSelectorRequirements).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'tier', operator: '!=', values: ['db'] },
    ]);
    expect(a.fieldSelectorParsingError).toBeUndefined();
  });

  it('invalid selectors do not fail the expression: the parse error goes to the authorizer', () => {
    const a = run("authorizer.group('').resource('pods').fieldSelector('metadata.name').labelSelector('a in (b').check('list').allowed()");
    expect(a.fieldSelectorRequirements).toBeUndefined();
    expect(a.fieldSelectorParsingError).toBe("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(a.labelSelectorParsingError).toBe("unable to parse requirement: found '', expected: ',' or ')'");
  });

  it('an empty selector is not parsed', () => {
    const a = run("authorizer.group('').resource('pods').fieldSelector('').check('list').allowed()");
    expect(a.fieldSelectorRequirements).toBeUndefined();
    expect(a.fieldSelectorParsingError).toBeUndefined();
  });
});

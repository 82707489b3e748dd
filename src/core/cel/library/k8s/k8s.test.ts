import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../../evaluations';

// Each row is a rule from the requirements' probe column, evaluated in the
// CRD environment: it must compile there and evaluate to true.
const rules: [string, string][] = [
  ['API-CEL-009', "'abc'.charAt(1) == 'b'"],
  ['API-CEL-010', "'abc'.indexOf('c') == 2"],
  ['API-CEL-011', "'abca'.lastIndexOf('a') == 3"],
  ['API-CEL-012', "'ABC'.lowerAscii() == 'abc'"],
  ['API-CEL-013', "'abc'.upperAscii() == 'ABC'"],
  ['API-CEL-014', "'aba'.replace('a','c') == 'cbc'"],
  ['API-CEL-015', "'a,b'.split(',') == ['a','b']"],
  ['API-CEL-016', "['a','b'].join(',') == 'a,b'"],
  ['API-CEL-017', "'abc'.substring(1) == 'bc'"],
  ['API-CEL-018', "' a '.trim() == 'a'"],
  ['API-CEL-019', '[1,2,3].indexOf(2) == 1'],
  ['API-CEL-020', '[1,2,1].lastIndexOf(1) == 2'],
  ['API-CEL-021', '[3,1].min() == 1'],
  ['API-CEL-022', '[3,1].max() == 3'],
  ['API-CEL-023', '[1,2].sum() == 3'],
  ['API-CEL-024', "[duration('1s'),duration('2s')].sum() == duration('3s')"],
  ['API-CEL-025', '[1,2,3].isSorted()'],
  ['API-CEL-026', "'abc'.matches('^a')"],
  ['API-CEL-027', "'abc123'.find('[0-9]+') == '123'"],
  ['API-CEL-028', "'a1b2'.findAll('[0-9]') == ['1','2']"],
  ['API-CEL-029', "isURL('https://example.com/p')"],
  ['API-CEL-030', "url('https://example.com').getHost() == 'example.com'"],
  ['API-CEL-031', "url('https://e.com').getScheme() == 'https'"],
  ['API-CEL-032', "url('https://e.com:80').getHost() == 'e.com:80'"],
  ['API-CEL-033', "url('https://e.com:80').getHostname() == 'e.com'"],
  ['API-CEL-034', "url('https://e.com:80').getPort() == '80'"],
  ['API-CEL-035', "url('https://e.com/a%20b').getEscapedPath() == '/a%20b'"],
  ['API-CEL-036', "url('https://e.com/?k=v').getQuery() == {'k':['v']}"],
  ['API-CEL-037', "isQuantity('1Gi')"],
  ['API-CEL-038', "quantity('1Gi') == quantity('1024Mi')"],
  ['API-CEL-039', "quantity('1').isInteger()"],
  ['API-CEL-040', "quantity('2k').asInteger() == 2000"],
  ['API-CEL-041', "quantity('1.5').asApproximateFloat() == 1.5"],
  ['API-CEL-042', "quantity('-1').sign() == -1"],
  ['API-CEL-043', "quantity('1').add(quantity('2')) == quantity('3')"],
  ['API-CEL-044', "quantity('1').add(2) == quantity('3')"],
  ['API-CEL-045', "quantity('3').sub(quantity('1')) == quantity('2')"],
  ['API-CEL-046', "quantity('3').sub(1) == quantity('2')"],
  ['API-CEL-047', "quantity('1').isLessThan(quantity('2'))"],
  ['API-CEL-048', "quantity('2').isGreaterThan(quantity('1'))"],
  ['API-CEL-049', "quantity('1').compareTo(quantity('2')) == -1"],
];

describe('Kubernetes libraries in the CRD environment', () => {
  it.each(rules)('[%s] %s', (_id, expression) => {
    const s = evaluateCel({ expression, environment: 'crd' });
    expect(s.error).toBeUndefined();
    expect(s.value).toBe(true);
  });
});

describe('library behaviour and error texts', () => {
  const cases: [string, unknown][] = [
    ["quantity('1.5Gi').asInteger()", 1610612736],
    ["quantity('500m').isInteger()", false],
    ["ip('::1').isLoopback() && ip('fe80::1').isLinkLocalUnicast()", true],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.1.0/24')", true],
    ["string(cidr('10.1.2.3/8').masked())", '10.0.0.0/8'],
    ["ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:0db8::1')", true],
    ["semver('1.2.3-alpha').isLessThan(semver('1.2.3'))", true],
    ["format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()", true],
    ["format.dns1123Subdomain().validate('example.com') == optional.none()", true],
    ["format.dns1123Label().validate('Bad_').value()", ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
    ["format.qualifiedName().validate('a/b/c').value().size()", 1],
    ["format.dns1123LabelPrefix().validate('web-') == optional.none() && format.dns1123Label().validate('web-').hasValue()", true],
    [`format.labelValue().validate('${'x'.repeat(64)}').value()[0]`, 'must be no more than 63 characters'],
    ["[1, 2, 2].distinct() == [1, 2] && [3, 1, 2].sort() == [1, 2, 3] && lists.range(3) == [0, 1, 2]", true],
    ["[{'n': 2}, {'n': 1}].sortBy(e, e.n)[0].n", 1],
    ['[1, 2].all(i, v, i < v)', true],
    ["{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", true],
    ["sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 4])", true],
    ["'%s has %d items'.format(['list', dyn(3)])", 'list has 3 items'],
    ["strings.quote('a\"b')", '"a\\"b"'],
  ];
  it.each(cases)('%s', (expression, want) => {
    const s = evaluateCel({ expression, environment: 'crd' });
    expect(s.error).toBeUndefined();
    expect(s.value).toEqual(want);
  });

  const errors: [string, string][] = [
    ["quantity('1.2.3')", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["quantity('500m').asInteger()", 'cannot convert value to integer'],
    ["url('not a url')", 'URL parse error during conversion from string: parse "not a url": invalid URI for request'],
    ['[].min()', 'min called on empty list'],
    ["'abc'.substring(2, 1)", 'invalid substring range. start: 2, end: 1'],
    ["'abc'.charAt(4)", 'index out of range: 4'],
    ['[1, 2][5]', "index '5' out of range in list size '2'"],
    ["{'a': 1}['b']", 'no such key: b'],
  ];
  it.each(errors)('%s', (expression, message) => {
    const s = evaluateCel({ expression, environment: 'crd' });
    expect(s.error?.split('\n')[0]).toMatch(new RegExp(`^ERROR: <input>:1:\\d+: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('string reverse, math and base64 are not in the Kubernetes environment but are in plain', () => {
    expect(evaluateCel({ expression: "'ab'.reverse()", environment: 'crd' }).error).toContain("found no matching overload for 'reverse'");
    expect(evaluateCel({ expression: 'math.greatest(1, 2)', environment: 'admission' }).error).toContain('undeclared reference');
    expect(evaluateCel({ expression: "'ab'.reverse()", environment: 'plain' }).value).toBe('ba');
    expect(evaluateCel({ expression: 'cel.bind(x, 2, x * x)', environment: 'plain' }).value).toBe(4);
    expect(evaluateCel({ expression: 'cel.bind(x, 2, x * x)', environment: 'crd' }).error).toContain("undeclared reference to 'cel'");
  });
});

describe('authorizer library', () => {
  const calls: unknown[] = [];
  const authorizer = {
    authorize(attrs: never) {
      calls.push(attrs);
      const a = attrs as { resource?: string; path?: string };
      if (a.path === '/healthz') return { decision: 'allow' as const, reason: 'path ok' };
      return a.resource === 'pods' ? { decision: 'allow' as const, reason: 'RBAC: allowed' } : { decision: 'deny' as const, reason: 'nope' };
    },
  };
  it('checks resource and path attributes with the request user, at 350000 units per check', () => {
    const s = evaluateCel(
      {
        expression: "authorizer.group('').resource('pods').namespace('ns').name('p').check('get').allowed() && authorizer.path('/healthz').check('GET').reason() == 'path ok'",
        environment: 'admission',
        variables: { request: { userInfo: { username: 'alice', groups: ['dev'] } } },
      },
      { authorizer },
    );
    expect(s.value).toBe(true);
    expect(s.cost).toBeGreaterThanOrEqual(700000);
    expect(calls[0]).toEqual({ user: { username: 'alice', groups: ['dev'] }, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', namespace: 'ns', name: 'p' });
    expect(calls[1]).toMatchObject({ verb: 'get', resourceRequest: false, path: '/healthz' });
  });
  it('serviceAccount() checks as the service account', () => {
    calls.length = 0;
    evaluateCel({ expression: "authorizer.serviceAccount('ns', 'sa').group('apps').resource('deployments').check('list').allowed()", environment: 'admission' }, { authorizer });
    expect((calls[0] as { user: unknown }).user).toEqual({ username: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] });
  });
  it('a third check exceeds the per-call limit', () => {
    const s = evaluateCel({ expression: "[1, 2, 3].all(i, authorizer.group('').resource('pods').check('get').allowed())", environment: 'admission' }, { authorizer });
    expect(s.error).toBe('operation cancelled: actual cost limit exceeded');
  });
});

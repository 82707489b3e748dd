import { describe, expect, it } from 'vitest';
import { evaluateCel } from './evaluations';

describe('evaluations virtual resource', () => {
  it('[API-CEL-001] reports value, type, cost and estimate of a CRD rule', () => {
    const s = evaluateCel({
      expression: 'self.a > 0',
      environment: 'crd',
      schema: { type: 'object', properties: { a: { type: 'integer' } } },
      variables: { self: { a: 0 } },
    });
    expect(s).toEqual({
      value: false,
      type: 'bool',
      cost: 3,
      estimatedCost: { min: 3, max: 3 },
      costLimits: [
        { name: 'PerCallLimit', limit: 1000000, value: 3 },
        { name: 'StaticEstimatedCostLimit', limit: 10000000, value: 3 },
      ],
      warnings: [],
    });
  });

  it('encodes values as JSON: big ints as strings, bytes base64, timestamps RFC 3339', () => {
    const v = (expression: string) => evaluateCel({ expression, environment: 'plain' }).value;
    expect(v('9007199254740991')).toBe(9007199254740991);
    expect(v('9007199254740993')).toBe('9007199254740993');
    expect(v('18446744073709551615u')).toBe('18446744073709551615');
    expect(v("b'abc'")).toBe('YWJj');
    expect(v("timestamp('2024-01-02T03:04:05.5Z')")).toBe('2024-01-02T03:04:05.5Z');
    expect(v("duration('1h1.5s')")).toBe('3601.5s');
    expect(v('1.0 / 0.0')).toBe('+Inf');
    expect(v("{'a': [1, 2.5, null]}")).toEqual({ a: [1, 2.5, null] });
    expect(v('type(1)')).toBe('int');
    expect(v('optional.none()')).toBeNull();
    expect(v("quantity('1.5Gi')")).toBe('1.5Gi');
  });

  it('runtime errors carry line:column, a caret and the failing sub-expression', () => {
    const s = evaluateCel({ expression: "has(object.spec) &&\n  object.spec.replicas / 0 > 1", environment: 'admission', variables: { object: { spec: { replicas: 3 } } } });
    expect(s.error).toBe('ERROR: <input>:2:24: division by zero\n |   object.spec.replicas / 0 > 1\n | .......................^');
    expect(s.errorExpression).toBe('object.spec.replicas / 0');
    // the comparison receiving the error is charged too, as cel-go's cost tracker observes every call
    expect(s.cost).toBe(6);
  });

  it('admission: object is dynamic, so missing fields are runtime errors guarded by has()', () => {
    const bad = evaluateCel({ expression: 'object.spec.replicas > 1', environment: 'admission', variables: { object: { metadata: {} } } });
    expect(bad.error).toBe('ERROR: <input>:1:7: no such key: spec\n | object.spec.replicas > 1\n | ......^');
    const guarded = evaluateCel({ expression: '!has(object.spec) || object.spec.replicas > 1', environment: 'admission', variables: { object: { metadata: {} } } });
    expect(guarded.value).toBe(true);
    expect(evaluateCel({ expression: "request.operation == 'CREATE'", environment: 'admission', variables: { request: { operation: 'CREATE' } } }).value).toBe(true);
    expect(evaluateCel({ expression: 'request.nope', environment: 'admission' }).error).toContain("undefined field 'nope'");
  });

  it('authentication and authorization environments declare their variables', () => {
    expect(evaluateCel({ expression: "claims.sub == 'u' && user.username.startsWith('u')", environment: 'authentication', variables: { claims: { sub: 'u' }, user: { username: 'u1' } } }).value).toBe(true);
    expect(evaluateCel({ expression: "request.user == 'bob'", environment: 'authorization', variables: { request: { user: 'bob' } } }).value).toBe(true);
    expect(evaluateCel({ expression: 'self', environment: 'authorization' }).error).toContain("undeclared reference to 'self'");
  });

  it('CRD rules: estimated cost over the limit warns with the API server text; non-bool results warn', () => {
    const s = evaluateCel({
      expression: 'self.l.all(x, self.l.all(y, x.matches(y)))',
      environment: 'crd',
      schema: { type: 'object', properties: { l: { type: 'array', items: { type: 'string' } } } },
      variables: { self: { l: ['a'] } },
    });
    expect(s.value).toBe(true);
    expect(s.warnings[0]).toMatch(/^estimated rule cost exceeds budget by factor of .* \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/);
    expect(evaluateCel({ expression: '1', environment: 'crd' }).warnings).toEqual(['cel expression must evaluate to a bool']);
  });

  it('literal regexes, durations and timestamps are validated at compile time', () => {
    expect(evaluateCel({ expression: "duration('1x')", environment: 'crd' }).error).toBe("ERROR: <input>:1:10: invalid duration argument\n | duration('1x')\n | .........^");
  });
});

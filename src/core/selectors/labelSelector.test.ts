import { describe, expect, it } from 'vitest';
import {
  labelSelectorFromObject,
  parseLabelSelector,
  validateLabelSelector,
  type LabelSelector,
  type LabelSelectorObject,
} from './labelSelector';
import { fieldErrorString } from '../errors';
import { SelectorError } from './selectorError';

function mustParse(s: string): LabelSelector {
  const sel = parseLabelSelector(s);
  if (sel instanceof SelectorError) throw new Error(`unexpected parse error for ${JSON.stringify(s)}: ${sel.message}`);
  return sel;
}

const nameRegex = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const nameMsg = `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${nameRegex}`;
const valueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector: accepted syntax and canonical form', () => {
  const cases: { name: string; input: string; canonical: string; empty?: boolean }[] = [
    { name: 'empty string selects everything', input: '', canonical: '', empty: true },
    { name: 'whitespace only selects everything', input: '  \t ', canonical: '', empty: true },
    { name: 'equals', input: 'x=a', canonical: 'x=a' },
    { name: 'double equals keeps its spelling', input: 'x==a', canonical: 'x==a' },
    { name: 'not equals', input: 'x!=a', canonical: 'x!=a' },
    { name: 'in sorts its values', input: 'x in (b,a)', canonical: 'x in (a,b)' },
    { name: 'notin', input: 'x notin (a)', canonical: 'x notin (a)' },
    { name: 'exists', input: 'x', canonical: 'x' },
    { name: 'does not exist', input: '!x', canonical: '!x' },
    { name: 'greater than', input: 'x>1', canonical: 'x>1' },
    { name: 'less than', input: 'x<2', canonical: 'x<2' },
    { name: 'requirements sorted by key', input: 'z=1,a=2', canonical: 'a=2,z=1' },
    { name: 'upstream grammar example with empty values', input: 'x in (foo,,baz),y,z notin ()', canonical: 'x in (,baz,foo),y,z notin ()' },
    { name: 'whitespace around tokens', input: ' x = a , y ', canonical: 'x=a,y' },
    { name: 'empty exact value', input: 'x=', canonical: 'x=' },
    { name: 'keywords are identifiers in key and value position', input: 'in in (in,notin)', canonical: 'in in (in,notin)' },
    { name: 'prefixed key', input: 'example.com/app=web', canonical: 'example.com/app=web' },
    { name: 'duplicate in-values collapse', input: 'x in (a,a)', canonical: 'x in (a)' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sel = mustParse(c.input);
      expect(sel.toString()).toBe(c.canonical);
      expect(sel.empty()).toBe(c.empty ?? false);
    });
  }
});

describe('parseLabelSelector: syntax errors carry upstream messages', () => {
  const cases: { name: string; input: string; message: string }[] = [
    { name: 'trailing token after a value', input: 'x=a b', message: "found 'b', expected: ',' or 'end of string'" },
    { name: 'missing operator', input: 'x y', message: "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt" },
    { name: 'in without parenthesis', input: 'x in a', message: "unable to parse requirement: found 'a' expected: '('" },
    { name: 'in at end of input', input: 'x in', message: "unable to parse requirement: found '' expected: '('" },
    { name: 'unterminated value set', input: 'x in (', message: "unable to parse requirement: found '', expected: ',', ')' or identifier" },
    { name: 'unclosed value list', input: 'x in (a', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { name: 'values not separated by comma', input: 'x in (a b)', message: "unable to parse requirement: found 'b', expected: ',' or ')'" },
    { name: 'operator inside value list', input: 'x in (a,=)', message: "unable to parse requirement: found '=', expected: ',', or identifier" },
    { name: 'parenthesis as exact value', input: 'x=(a)', message: "unable to parse requirement: found '(', expected: identifier" },
    { name: 'triple equals', input: 'x===a', message: "unable to parse requirement: found '=', expected: identifier" },
    { name: 'leading comma', input: ',x', message: "found ',', expected: !, identifier, or 'end of string'" },
    { name: 'leading operator', input: '=x', message: "found '=', expected: !, identifier, or 'end of string'" },
    { name: 'trailing comma', input: 'x,', message: "found '', expected: identifier after ','" },
    { name: 'comma then operator', input: 'x,=a', message: "found '=', expected: identifier after ','" },
    { name: 'bang alone', input: '!', message: "unable to parse requirement: found '', expected: identifier" },
    { name: 'does-not-exist takes no value', input: '!x=a', message: "found '=', expected: ',' or 'end of string'" },
    {
      name: 'colon in key (as kubectl shows it)',
      input: 'app:monolith',
      message: `unable to parse requirement: <nil>: Invalid value: "app:monolith": name part ${nameMsg}`,
    },
    {
      name: 'invalid key prefix',
      input: 'app.kubernetes_io/name=vault',
      message:
        'unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    },
    {
      name: 'two slashes in key',
      input: 'a/b/c=1',
      message: `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${nameMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    },
    {
      name: 'empty name part joins both messages',
      input: 'example.com/=1',
      message: `unable to parse requirement: <nil>: Invalid value: "example.com/": name part must be non-empty; name part ${nameMsg}`,
    },
    {
      name: 'key longer than 63',
      input: `${'k'.repeat(64)}=1`,
      message: `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    },
    {
      name: 'invalid value',
      input: 'app=demo-{nginx}',
      message: `unable to parse requirement: values[0][app]: Invalid value: "demo-{nginx}": ${valueMsg}`,
    },
    {
      name: 'value longer than 63',
      input: `x=${'v'.repeat(64)}`,
      message: `unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    },
    {
      name: 'non-integer for gt',
      input: 'environment>qa',
      message: 'unable to parse requirement: values[0]: Invalid value: "qa": for \'Gt\', \'Lt\' operators, the value must be an integer',
    },
    {
      name: 'negative numbers fail label value rules',
      input: 'x<-2',
      message: `unable to parse requirement: values[0][x]: Invalid value: "-2": ${valueMsg}`,
    },
    { name: 'keys named like Object members are plain keys', input: 'constructor in', message: "unable to parse requirement: found '' expected: '('" },
    {
      name: 'several errors aggregate in brackets',
      input: 'x<a@',
      message: `unable to parse requirement: [values[0]: Invalid value: "a@": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a@": ${valueMsg}]`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sel = parseLabelSelector(c.input);
      expect(sel).toBeInstanceOf(SelectorError);
      expect((sel as SelectorError).message).toBe(c.message);
    });
  }
});

describe('LabelSelector.matches', () => {
  const cases: { name: string; selector: string; labels: Record<string, string> | undefined; want: boolean }[] = [
    { name: '= with equal value', selector: 'x=a', labels: { x: 'a' }, want: true },
    { name: '= with other value', selector: 'x=a', labels: { x: 'b' }, want: false },
    { name: '= with absent key', selector: 'x=a', labels: {}, want: false },
    { name: '= with no labels at all', selector: 'x=a', labels: undefined, want: false },
    { name: '== like =', selector: 'x==a', labels: { x: 'a' }, want: true },
    { name: '!= matches an absent key', selector: 'x!=a', labels: {}, want: true },
    { name: '!= matches no labels at all', selector: 'x!=a', labels: undefined, want: true },
    { name: '!= rejects the value', selector: 'x!=a', labels: { x: 'a' }, want: false },
    { name: '!= accepts another value', selector: 'x!=a', labels: { x: 'b' }, want: true },
    { name: 'in with member', selector: 'x in (a,b)', labels: { x: 'b' }, want: true },
    { name: 'in with non-member', selector: 'x in (a,b)', labels: { x: 'c' }, want: false },
    { name: 'in with absent key', selector: 'x in (a,b)', labels: {}, want: false },
    { name: 'in () matches the empty value', selector: 'x in ()', labels: { x: '' }, want: true },
    { name: 'notin matches an absent key', selector: 'x notin (a)', labels: {}, want: true },
    { name: 'notin rejects a member', selector: 'x notin (a)', labels: { x: 'a' }, want: false },
    { name: 'notin accepts a non-member', selector: 'x notin (a)', labels: { x: 'c' }, want: true },
    { name: 'exists with empty value', selector: 'x', labels: { x: '' }, want: true },
    { name: 'exists with absent key', selector: 'x', labels: { y: '1' }, want: false },
    { name: '!key with absent key', selector: '!x', labels: {}, want: true },
    { name: '!key with present key', selector: '!x', labels: { x: '1' }, want: false },
    { name: 'gt greater', selector: 'x>5', labels: { x: '6' }, want: true },
    { name: 'gt equal', selector: 'x>5', labels: { x: '5' }, want: false },
    { name: 'gt on a non-integer label', selector: 'x>5', labels: { x: 'abc' }, want: false },
    { name: 'gt with absent key', selector: 'x>5', labels: {}, want: false },
    { name: 'lt with negative', selector: 'x<5', labels: { x: '-1' }, want: true },
    { name: 'gt beyond 2^53 compares exactly', selector: 'x>9007199254740992', labels: { x: '9007199254740993' }, want: true },
    { name: 'empty = with present empty value', selector: 'x=', labels: { x: '' }, want: true },
    { name: 'empty = with absent key', selector: 'x=', labels: {}, want: false },
    { name: 'all requirements must hold', selector: 'x=a,y', labels: { x: 'a' }, want: false },
    { name: 'all requirements hold', selector: 'x=a,y,!z', labels: { x: 'a', y: '' }, want: true },
    { name: 'empty selector matches no labels', selector: '', labels: undefined, want: true },
    { name: 'inherited properties are not labels', selector: 'toString', labels: {}, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(mustParse(c.selector).matches(c.labels)).toBe(c.want);
    });
  }
});

describe('LabelSelector.requiresExactMatch', () => {
  const cases: { name: string; selector: string; key: string; want: string | undefined }[] = [
    { name: '=', selector: 'a=x,b=y', key: 'b', want: 'y' },
    { name: '==', selector: 'a==x', key: 'a', want: 'x' },
    { name: 'in with one value', selector: 'a in (x)', key: 'a', want: 'x' },
    { name: 'in with two values', selector: 'a in (x,y)', key: 'a', want: undefined },
    { name: '!=', selector: 'a!=x', key: 'a', want: undefined },
    { name: 'other key', selector: 'a=x', key: 'b', want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(mustParse(c.selector).requiresExactMatch(c.key)).toBe(c.want);
    });
  }
});

describe('labelSelectorFromObject', () => {
  it('null selects nothing and is not empty', () => {
    const sel = labelSelectorFromObject(null) as LabelSelector;
    expect(sel.matches({})).toBe(false);
    expect(sel.matches({ a: 'b' })).toBe(false);
    expect(sel.empty()).toBe(false);
  });

  it('an empty selector selects everything', () => {
    const sel = labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }) as LabelSelector;
    expect(sel.empty()).toBe(true);
    expect(sel.matches(undefined)).toBe(true);
  });

  const ok: { name: string; input: LabelSelectorObject; canonical: string; match: Record<string, string>; miss: Record<string, string> }[] = [
    {
      name: 'matchLabels and In combine',
      input: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] },
      canonical: 'app=web,tier in (be,fe)',
      match: { app: 'web', tier: 'be' },
      miss: { app: 'web', tier: 'db' },
    },
    {
      name: 'NotIn matches an absent key',
      input: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      canonical: 'env notin (prod)',
      match: {},
      miss: { env: 'prod' },
    },
    {
      name: 'Exists and DoesNotExist',
      input: { matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'DoesNotExist', values: [] }] },
      canonical: 'a,!b',
      match: { a: '' },
      miss: { a: '', b: '' },
    },
  ];
  for (const c of ok) {
    it(c.name, () => {
      const sel = labelSelectorFromObject(c.input) as LabelSelector;
      expect(sel.toString()).toBe(c.canonical);
      expect(sel.matches(c.match)).toBe(true);
      expect(sel.matches(c.miss)).toBe(false);
    });
  }

  const bad: { name: string; input: LabelSelectorObject; message: string }[] = [
    { name: 'unknown operator', input: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }, message: '"Equals" is not a valid label selector operator' },
    { name: 'operator named like an Object member', input: { matchExpressions: [{ key: 'a', operator: 'toString' }] }, message: '"toString" is not a valid label selector operator' },
    {
      name: 'In without values',
      input: { matchExpressions: [{ key: 'a', operator: 'In' }] },
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      name: 'Exists with values',
      input: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    },
    { name: 'invalid matchLabels key', input: { matchLabels: { 'bad key': 'x' } }, message: `key: Invalid value: "bad key": name part ${nameMsg}` },
    { name: 'invalid matchLabels value', input: { matchLabels: { app: 'a b' } }, message: `values[0][app]: Invalid value: "a b": ${valueMsg}` },
  ];
  for (const c of bad) {
    it(c.name, () => {
      const sel = labelSelectorFromObject(c.input);
      expect(sel).toBeInstanceOf(SelectorError);
      expect((sel as SelectorError).message).toBe(c.message);
    });
  }
});

describe('validateLabelSelector', () => {
  const cases: { name: string; input: LabelSelectorObject | null; messages: string[]; types?: string[] }[] = [
    { name: 'null is valid', input: null, messages: [] },
    { name: 'valid selector', input: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }, messages: [] },
    {
      name: 'In without values is required',
      input: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      messages: ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
      types: ['FieldValueRequired'],
    },
    {
      name: 'DoesNotExist with values is forbidden',
      input: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      messages: ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
      types: ['FieldValueForbidden'],
    },
    {
      name: 'unknown operator, then bad key',
      input: { matchExpressions: [{ key: '-a', operator: 'Equals', values: ['x'] }] },
      messages: [
        'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
        `spec.selector.matchExpressions[0].key: Invalid value: "-a": name part ${nameMsg}`,
      ],
      types: ['FieldValueInvalid', 'FieldValueInvalid'],
    },
    {
      name: 'bad expression value is indexed',
      input: { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'no way'] }] },
      messages: [`spec.selector.matchExpressions[0].values[1]: Invalid value: "no way": ${valueMsg}`],
    },
    {
      name: 'bad matchLabels value is reported at matchLabels',
      input: { matchLabels: { app: 'a b' } },
      messages: [`spec.selector.matchLabels: Invalid value: "a b": ${valueMsg}`],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateLabelSelector(c.input, 'spec.selector');
      expect(errs.map(fieldErrorString)).toEqual(c.messages);
      if (c.types) expect(errs.map((e) => e.type)).toEqual(c.types);
    });
  }

  it('allowInvalidLabelValueInSelector skips expression values only', () => {
    const errs = validateLabelSelector(
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['no way'] }] },
      'spec.selector',
      { allowInvalidLabelValueInSelector: true },
    );
    expect(errs).toEqual([]);
  });
});

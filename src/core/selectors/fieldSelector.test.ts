import { describe, expect, it } from 'vitest';
import { escapeFieldValue, fieldSelectorFromSet, parseFieldSelector, type FieldSelector } from './fieldSelector';
import { SelectorError } from './selectorError';

function mustParse(s: string): FieldSelector {
  const sel = parseFieldSelector(s);
  if (sel instanceof SelectorError) throw new Error(`unexpected parse error for ${JSON.stringify(s)}: ${sel.message}`);
  return sel;
}

describe('parseFieldSelector: accepted syntax', () => {
  const cases: { name: string; input: string; canonical: string; requirements: { field: string; operator: string; value: string }[] }[] = [
    { name: 'empty string selects everything', input: '', canonical: '', requirements: [] },
    { name: 'only commas select everything', input: ',,', canonical: '', requirements: [] },
    { name: 'a bare = term is dropped', input: '=', canonical: '', requirements: [] },
    { name: '=', input: 'metadata.name=x', canonical: 'metadata.name=x', requirements: [{ field: 'metadata.name', operator: '=', value: 'x' }] },
    { name: '== reads as =', input: 'metadata.name==x', canonical: 'metadata.name=x', requirements: [{ field: 'metadata.name', operator: '=', value: 'x' }] },
    { name: '!=', input: 'status.phase!=Running', canonical: 'status.phase!=Running', requirements: [{ field: 'status.phase', operator: '!=', value: 'Running' }] },
    {
      name: 'comma-separated terms are sorted',
      input: 'b=1,a!=2',
      canonical: 'a!=2,b=1',
      requirements: [
        { field: 'a', operator: '!=', value: '2' },
        { field: 'b', operator: '=', value: '1' },
      ],
    },
    { name: 'empty value', input: 'spec.nodeName=', canonical: 'spec.nodeName=', requirements: [{ field: 'spec.nodeName', operator: '=', value: '' }] },
    { name: 'escaped comma stays in the value', input: 'metadata.name=a\\,b', canonical: 'metadata.name=a\\,b', requirements: [{ field: 'metadata.name', operator: '=', value: 'a,b' }] },
    { name: 'escaped equals', input: 'x=a\\=b', canonical: 'x=a\\=b', requirements: [{ field: 'x', operator: '=', value: 'a=b' }] },
    { name: 'escaped backslash', input: 'x=a\\\\b', canonical: 'x=a\\\\b', requirements: [{ field: 'x', operator: '=', value: 'a\\b' }] },
    { name: 'spaces are part of field and value', input: ' x = a ', canonical: ' x = a ', requirements: [{ field: ' x ', operator: '=', value: ' a ' }] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sel = mustParse(c.input);
      expect(sel.requirements).toEqual(c.requirements);
      expect(sel.toString()).toBe(c.canonical);
      expect(sel.empty()).toBe(c.requirements.length === 0);
    });
  }
});

describe('parseFieldSelector: errors carry upstream messages', () => {
  const cases: { name: string; input: string; message: string }[] = [
    { name: 'term without operator', input: 'metadata.name', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },
    { name: 'second term without operator', input: 'a=b,c', message: "invalid selector: 'a=b,c'; can't understand 'c'" },
    { name: 'unescaped = in value prints its code point', input: 'x=a=b', message: 'invalid field selector: unescaped character in value: 61' },
    { name: '!== leaves an unescaped =', input: 'metadata.name!==x', message: 'invalid field selector: unescaped character in value: 61' },
    { name: 'unknown escape', input: 'x=a\\x', message: 'invalid field selector: invalid escape sequence: \\x' },
    { name: 'trailing backslash', input: 'x=a\\', message: 'invalid field selector: invalid escape sequence: \\' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const sel = parseFieldSelector(c.input);
      expect(sel).toBeInstanceOf(SelectorError);
      expect((sel as SelectorError).message).toBe(c.message);
    });
  }
});

describe('FieldSelector.matches', () => {
  const cases: { name: string; selector: string; fields: Record<string, string>; want: boolean }[] = [
    { name: '= equal', selector: 'metadata.name=a', fields: { 'metadata.name': 'a' }, want: true },
    { name: '= different', selector: 'metadata.name=a', fields: { 'metadata.name': 'b' }, want: false },
    { name: '!= different', selector: 'status.phase!=Running', fields: { 'status.phase': 'Pending' }, want: true },
    { name: '!= equal', selector: 'status.phase!=Running', fields: { 'status.phase': 'Running' }, want: false },
    { name: '!= matches an absent field', selector: 'x!=a', fields: {}, want: true },
    { name: 'an absent field reads as empty', selector: 'metadata.namespace=', fields: { 'metadata.name': 'n' }, want: true },
    { name: 'an absent field never equals a value', selector: 'metadata.namespace=ns1', fields: {}, want: false },
    { name: 'terms are ANDed', selector: 'metadata.name=a,metadata.namespace=ns', fields: { 'metadata.name': 'a', 'metadata.namespace': 'other' }, want: false },
    { name: 'escaped value matches the literal', selector: 'metadata.name=a\\,b', fields: { 'metadata.name': 'a,b' }, want: true },
    { name: 'empty selector matches anything', selector: '', fields: {}, want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(mustParse(c.selector).matches(c.fields)).toBe(c.want);
    });
  }
});

describe('FieldSelector.requiresExactMatch', () => {
  const cases: { name: string; selector: string; want: string | undefined }[] = [
    { name: 'metadata.name=', selector: 'metadata.namespace=ns,metadata.name=cm1', want: 'cm1' },
    { name: 'metadata.name==', selector: 'metadata.name==cm1', want: 'cm1' },
    { name: 'escaped name is unescaped', selector: 'metadata.name=a\\=b', want: 'a=b' },
    { name: '!= is not an exact match', selector: 'metadata.name!=cm1', want: undefined },
    { name: 'other fields only', selector: 'metadata.namespace=ns', want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(mustParse(c.selector).requiresExactMatch('metadata.name')).toBe(c.want);
    });
  }
});

describe('escaping and sets', () => {
  it('escapeFieldValue round-trips through the parser', () => {
    const literal = 'a\\b,c=d';
    const sel = mustParse(`metadata.name=${escapeFieldValue(literal)}`);
    expect(sel.requiresExactMatch('metadata.name')).toBe(literal);
  });

  it('fieldSelectorFromSet requires every entry', () => {
    const sel = fieldSelectorFromSet({ 'metadata.name': 'a', 'spec.nodeName': 'n1' });
    expect(sel.matches({ 'metadata.name': 'a', 'spec.nodeName': 'n1' })).toBe(true);
    expect(sel.matches({ 'metadata.name': 'a', 'spec.nodeName': 'n2' })).toBe(false);
  });

  it('transform drops terms mapped to an empty field and value', () => {
    const sel = mustParse('a=1,b=2').transform((field, value) => (field === 'a' ? { field: '', value: '' } : { field, value }));
    expect((sel as FieldSelector).toString()).toBe('b=2');
  });
});

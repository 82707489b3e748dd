import { describe, expect, it } from 'vitest';
import { fieldErrorsAggregate, fieldErrorString, invalid, notSupported, required } from './fieldErrors';
import { goQuote, goStringSlice } from './goFormat';
import { newInvalid } from './status';

describe('Go formatting', () => {
  it('goQuote escapes as %q does', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\x07\b\f\n\r\t\v\x01\x7f')).toBe('"\\a\\b\\f\\n\\r\\t\\v\\x01\\x7f"');
    expect(goQuote('héllo')).toBe('"héllo"');
  });

  it('goStringSlice prints %#v of a []string, nil included', () => {
    expect(goStringSlice(['a', 'b'])).toBe('[]string{"a", "b"}');
    expect(goStringSlice([])).toBe('[]string{}');
    expect(goStringSlice(null)).toBe('[]string(nil)');
  });
});

describe('field errors', () => {
  it('renders a string bad value with %q and numbers bare', () => {
    expect(fieldErrorString(invalid('metadata.name', 'a\tb', 'bad'))).toBe('metadata.name: Invalid value: "a\\tb": bad');
    expect(fieldErrorString(invalid('metadata.generation', -1, 'must be greater than or equal to 0'))).toBe(
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(fieldErrorString(required('metadata.name'))).toBe('metadata.name: Required value');
  });

  it('shows a pre-rendered value verbatim', () => {
    const e = { ...invalid('values', ['a'], 'exact-match compatibility requires one single value'), valueText: goStringSlice(['a']) };
    expect(fieldErrorString(e)).toBe('values: Invalid value: []string{"a"}: exact-match compatibility requires one single value');
  });

  it('notSupported quotes the supported values', () => {
    expect(fieldErrorString(notSupported('includeObject', 'x', ['Metadata', 'None']))).toBe(
      'includeObject: Unsupported value: "x": supported values: "Metadata", "None"',
    );
  });

  it('aggregates like ToAggregate: one alone, several bracketed, duplicates dropped', () => {
    const a = invalid('f', 'x', 'bad');
    const b = required('g');
    expect(fieldErrorsAggregate([])).toBe('');
    expect(fieldErrorsAggregate([a, a])).toBe('f: Invalid value: "x": bad');
    expect(fieldErrorsAggregate([a, b, a])).toBe('[f: Invalid value: "x": bad, g: Required value]');
  });

  it('newInvalid de-duplicates the message but keeps one cause per error', () => {
    const a = invalid('metadata.labels', 'a b', 'bad');
    const status = newInvalid({ group: '', kind: 'ConfigMap' }, 'c', [a, a]).status;
    expect(status.message).toBe('ConfigMap "c" is invalid: metadata.labels: Invalid value: "a b": bad');
    expect(status.details?.causes).toHaveLength(2);
  });
});

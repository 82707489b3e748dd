import { describe, expect, it } from 'vitest';
import { fieldErrorString } from '../errors';
import { validateLabels } from './labels';

const nameMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validateLabels', () => {
  it('accepts valid keys and values, and no map at all', () => {
    expect(validateLabels({ 'example.com/app': 'web', tier: '' }, 'metadata.labels')).toEqual([]);
    expect(validateLabels(undefined, 'metadata.labels')).toEqual([]);
  });

  it('an empty name part gets both upstream messages, at the map path', () => {
    const errs = validateLabels({ 'example.com/': 'x' }, 'metadata.labels');
    expect(errs.map(fieldErrorString)).toEqual([
      'metadata.labels: Invalid value: "example.com/": name part must be non-empty',
      `metadata.labels: Invalid value: "example.com/": ${nameMsg}`,
    ]);
    expect(errs.map((e) => e.type)).toEqual(['FieldValueInvalid', 'FieldValueInvalid']);
  });

  it('a value that is too long', () => {
    const errs = validateLabels({ a: 'v'.repeat(64) }, 'spec.selector.matchLabels');
    expect(errs.map(fieldErrorString)).toEqual([`spec.selector.matchLabels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`]);
  });

  it('checks remember only what was valid: a key or value seen before answers the same, an invalid one errs every time', () => {
    for (let i = 0; i < 3; i++) {
      expect(validateLabels({ 'example.com/app': 'web' }, 'metadata.labels')).toEqual([]);
      expect(validateLabels({ 'example.com/': 'web', app: '-bad-' }, 'metadata.labels')).toHaveLength(3);
    }
  });

  it('a value that is not a string', () => {
    expect(validateLabels({ a: 1 }, 'metadata.labels').map(fieldErrorString)).toEqual(['metadata.labels: Invalid value: 1: label values must be strings']);
  });
});

import { describe, expect, it } from 'vitest';
import {
  fieldElement as f,
  fieldsV1ToSet,
  indexElement,
  keyElement,
  parseElement,
  pathToString,
  PathSet,
  setToFieldsV1,
  valueElement,
} from './index';

describe('path elements', () => {
  it.each([
    ['f:image', '.image'],
    ['k:{"name":"nginx"}', '[name="nginx"]'],
    ['k:{"containerPort":80,"protocol":"TCP"}', '[containerPort=80,protocol="TCP"]'],
    ['v:"a"', '[="a"]'],
    ['i:3', '[3]'],
  ])('%s reads back and prints as %s', (id, printed) => {
    const pe = parseElement(id);
    expect(pe.id).toBe(id);
    expect(pathToString([pe])).toBe(printed);
  });

  it('keys are sorted by field name and written as Go writes JSON', () => {
    expect(keyElement([['protocol', 'TCP'], ['containerPort', 80]]).id).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(valueElement('a<b').id).toBe('v:"a\\u003cb"');
  });
});

describe('PathSet', () => {
  const a = PathSet.of([f('a')], [f('b'), f('c')]);
  const b = PathSet.of([f('b'), f('c')], [f('d')]);
  it('has union, intersection and difference', () => {
    expect(a.union(b).paths().map(pathToString)).toEqual(['.a', '.b.c', '.d']);
    expect(a.intersection(b).paths().map(pathToString)).toEqual(['.b.c']);
    expect(a.difference(b).paths().map(pathToString)).toEqual(['.a']);
    expect(a.has([f('b'), f('c')])).toBe(true);
    expect(a.has([f('b')])).toBe(false);
  });
  it('recursive difference drops everything below', () => {
    expect(a.recursiveDifference(PathSet.of([f('b')])).paths().map(pathToString)).toEqual(['.a']);
  });
  it('orders fields before keys, values and indices', () => {
    const s = PathSet.of([indexElement(0)], [valueElement('x')], [keyElement([['name', 'a']])], [f('z')]);
    expect(s.paths().map((p) => p[0].id)).toEqual(['f:z', 'k:{"name":"a"}', 'v:"x"', 'i:0']);
  });
});

describe('FieldsV1', () => {
  const json =
    '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}';

  it('round-trips with the server key order ("." first, then sorted elements)', () => {
    const set = fieldsV1ToSet(JSON.parse(json));
    expect(set.has([f('spec'), f('containers'), keyElement([['name', 'nginx']])])).toBe(true);
    expect(set.has([f('spec'), f('containers')])).toBe(false);
    expect(JSON.stringify(setToFieldsV1(set))).toBe(json);
  });

  it('sorts keys it is given out of order', () => {
    const set = fieldsV1ToSet({ 'f:b': {}, 'f:a': { 'f:y': {}, '.': {}, 'f:x': {} } });
    expect(JSON.stringify(setToFieldsV1(set))).toBe('{"f:a":{".":{},"f:x":{},"f:y":{}},"f:b":{}}');
  });

  it('drops unknown element kinds and rejects malformed ones', () => {
    expect(fieldsV1ToSet({ 'x:future': {}, 'f:a': {} }).paths().map(pathToString)).toEqual(['.a']);
    expect(() => fieldsV1ToSet({ 'k:{bad': {} })).toThrow();
  });
});

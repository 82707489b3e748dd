import { describe, expect, it } from 'vitest';
import { StatusError } from '../errors';
import { cleanMembers, decodesCleanly, jsonKeyCount, repeatsNoKey, scanJsonText } from './cleanJson';
import { decodeJson } from './decoding';
import { checkRequestFields, type FieldValidationDirective } from './fieldValidation';
import { goTypesFor } from './goTypes';
import { parseJsonTree } from './jsonTree';
import { builtinSchema, resolveBuiltin } from './testing';

const pod = builtinSchema('', 'v1', 'Pod');
const deployment = builtinSchema('apps', 'v1', 'Deployment');
const crd = builtinSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');

describe('scanJsonText', () => {
  it('counts members outside strings, including repeated keys', () => {
    expect(scanJsonText('{"a":1,"b":{"c":"x:y","d":[{"e":null}]}}')).toEqual({ members: 5, plainNumbers: true });
    expect(scanJsonText('{"a":1,"a":2}').members).toBe(2);
    expect(scanJsonText('{"a\\":":"\\"b:","c":true}')).toEqual({ members: 2, plainNumbers: true });
    expect(scanJsonText('[]').members).toBe(0);
  });

  it('ends a string at a quote after an even run of backslashes, not an odd one', () => {
    expect(scanJsonText('{"a\\\\":1,"b":"x\\\\\\":\\\\"}').members).toBe(2);
    for (const key of ['\\', '"', '\\"', 'a\\\\"b', ':', '\\\\\\"::']) {
      const text = JSON.stringify({ [key]: { [key + key]: [key, { k: key }] } });
      expect(scanJsonText(text).members).toBe(jsonKeyCount(JSON.parse(text)));
    }
  });

  it('flags fractions, exponents and integers past 15 digits, not digits or letters in strings', () => {
    expect(scanJsonText('{"a":1.0}').plainNumbers).toBe(false);
    expect(scanJsonText('{"a":1e3}').plainNumbers).toBe(false);
    expect(scanJsonText('{"a":-2E+1}').plainNumbers).toBe(false);
    expect(scanJsonText('{"a":1234567890123456}').plainNumbers).toBe(false);
    expect(scanJsonText('{"a":-123456789012345}').plainNumbers).toBe(true);
    expect(scanJsonText('{"a":"1.5e3 1234567890123456","b":[true,false,null,0,-0]}').plainNumbers).toBe(true);
  });

  it('tells repeated keys apart from the parsed key count', () => {
    const text = '{"a":{"b":1,"b":2},"c":[{"d":1}]}';
    expect(jsonKeyCount(JSON.parse(text))).toBe(4);
    expect(scanJsonText(text).members).toBe(5);
    expect(repeatsNoKey(scanJsonText(text), JSON.parse(text))).toBe(false);
    const clean = '{"a":{"b":1},"c":[{"d":1}],"__proto__":{"x":1}}';
    expect(repeatsNoKey(scanJsonText(clean), JSON.parse(clean))).toBe(true);
  });
});

describe('decodesCleanly', () => {
  const podType = goTypesFor(resolveBuiltin).root(pod);
  const clean = (value: unknown) => decodesCleanly(value, podType);

  it('accepts what decodeJson accepts silently', () => {
    const body = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, creationTimestamp: null },
      spec: { priority: 2147483647, containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1', memory: 5 } } }] },
    };
    expect(clean(body)).toBe(true);
    expect(decodeJson(parseJsonTree(JSON.stringify(body)), podType, true)).toEqual({ strict: [] });
  });

  it('counts the members of a clean body in the same walk (what the text scan compares to find repeated keys)', () => {
    const body = { metadata: { name: 'p', labels: { a: 'b', c: 'd' }, managedFields: [{ fieldsV1: { 'f:spec': { '.': {} } } }] }, spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }] }] } };
    expect(cleanMembers(body, podType)).toBe(jsonKeyCount(body));
    expect(cleanMembers(body, podType)).toBe(scanJsonText(JSON.stringify(body)).members);
    expect(cleanMembers({ spec: { bogus: 1 } }, podType)).toBe(-1);
  });

  it.each([
    ['an unknown field', { spec: { bogus: 1 } }],
    ['an int32 past its range', { spec: { priority: 2147483648 } }],
    ['a string where an integer belongs', { spec: { priority: '1' } }],
    ['a bad quantity', { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 'x' } } }] } }],
    ['a bad time', { metadata: { creationTimestamp: 'yesterday' } }],
    ['an object where a string belongs', { metadata: { name: {} } }],
    ['an array where a map belongs', { metadata: { labels: [] } }],
  ])('refuses %s', (_what, body) => {
    expect(clean(body)).toBe(false);
  });
});

/** checkRequestFields with the parsed body (fast path when clean) and without it (syntax tree): the same outcome. */
function bothWays(text: string, directive: FieldValidationDirective, schema = pod) {
  const run = (withParsed: boolean) => {
    const decoded = JSON.parse(text) as Record<string, unknown>;
    try {
      return checkRequestFields({
        body: new TextEncoder().encode(text),
        mediaType: 'json',
        decoded: { apiVersion: 'v1', kind: 'Pod', ...decoded },
        parsed: withParsed ? decoded : undefined,
        schema,
        resolve: resolveBuiltin,
        directive,
      });
    } catch (e) {
      if (e instanceof StatusError) return { error: e.status };
      throw e;
    }
  };
  return [run(true), run(false)] as const;
}

describe('checkRequestFields: the parsed body changes nothing but speed', () => {
  const podText = (spec: string, metadata = '{"name":"p"}') => `{"apiVersion":"v1","kind":"Pod","metadata":${metadata},"spec":${spec}}`;
  const bodies: [string, string][] = [
    ['clean', podText('{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]}')],
    ['a repeated key', podText('{"containers":[{"name":"c","name":"d","image":"i"}]}')],
    ['a repeated top-level key hidden by a missing kind', '{"apiVersion":"v1","apiVersion":"v1","metadata":{"name":"p"},"spec":{}}'],
    ['unknown fields', podText('{"bogus":1,"containers":[{"name":"c","image":"i","x":{"y":1}}]}')],
    ['an integer written 1.0', podText('{"terminationGracePeriodSeconds":1.0,"containers":[]}')],
    ['an integer written 1e1', podText('{"terminationGracePeriodSeconds":1e1,"containers":[]}')],
    ['an int32 overflow', podText('{"priority":2147483648,"containers":[]}')],
    ['an int64 beyond doubles', podText('{"terminationGracePeriodSeconds":9223372036854775807,"containers":[]}')],
    ['an int64 overflow', podText('{"terminationGracePeriodSeconds":9223372036854775808,"containers":[]}')],
    ['a quantity as a fraction', podText('{"containers":[{"name":"c","resources":{"limits":{"cpu":0.5}}}]}')],
    ['a bad quantity', podText('{"containers":[{"name":"c","resources":{"limits":{"cpu":"1x"}}}]}')],
    ['a type error after an unknown field', podText('{"zzz":1,"priority":"high"}')],
    ['integer-like keys', podText('{"containers":[]}', '{"name":"p","labels":{"2":"a","1":"b"},"10":1}')],
    ['an escaped repeated key', podText('{"containers":[]}', '{"name":"p","n\\u0061me":"q"}')],
  ];
  for (const directive of ['Strict', 'Warn', 'Ignore'] as const) {
    it.each(bodies)(`${directive}: %s`, (_what, text) => {
      const [fast, slow] = bothWays(text, directive);
      expect(fast).toEqual(slow);
    });
  }

  it('a clean Deployment and CustomResourceDefinition need no tree either way', () => {
    const d = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}';
    const [fast, slow] = bothWays(d, 'Strict', deployment);
    expect(fast).toEqual(slow);
    expect(fast).toMatchObject({ warnings: [] });
    const c = '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.b.c"},"spec":{"group":"b.c","names":{"plural":"a","kind":"A"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string","a":1}}}}}]}}';
    const [fastCrd, slowCrd] = bothWays(c, 'Warn', crd);
    expect(fastCrd).toEqual(slowCrd);
  });
});

import { encode as cborgEncode } from 'cborg';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../errors';
import { cborSerializer } from '../cborSerializer';
import { Tagged, readCbor } from './cborReader.test-data';
import { decodeCbor, decodeCborSequence, encodeCbor, encodeCborWatchEvent } from './index';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const fromHex = (h: string) => new Uint8Array((h.replace(/\s+/g, '').match(/../g) ?? []).map((x) => parseInt(x, 16)));

describe('CBOR encoding as kube-apiserver writes it', () => {
  it('[API-ENC-023] a self-described item; byte-string keys and strings; keys in core deterministic order', () => {
    // {"kind":"Pod","a":1} -> keys sorted by encoded bytes: "a" (1 byte) before "kind" (4 bytes).
    expect(hex(encodeCbor({ kind: 'Pod', a: 1 }))).toBe('d9d9f7' + 'a2' + '4161' + '01' + '446b696e64' + '43506f64');
  });

  it('integers as integers, other numbers as the shortest exact float, null and booleans as simple values', () => {
    expect(hex(encodeCbor(0)).slice(6)).toBe('00');
    expect(hex(encodeCbor(-1)).slice(6)).toBe('20');
    expect(hex(encodeCbor(500)).slice(6)).toBe('1901f4');
    expect(hex(encodeCbor(2 ** 32)).slice(6)).toBe('1b0000000100000000');
    expect(hex(encodeCbor(1.5)).slice(6)).toBe('f93e00');
    expect(hex(encodeCbor(0.1)).slice(6)).toBe('fb3fb999999999999a');
    expect(hex(encodeCbor(100000.5)).slice(6)).toBe('fa47c35040');
    expect(hex(encodeCbor([null, true, false])).slice(6)).toBe('83f6f5f4');
    for (const v of [1.5, 0.1, 100000.5, -2.75, 5.960464477539063e-8, 65504, 1e300]) expect(decodeCbor(encodeCbor(v))).toBe(v);
  });

  it('multi-byte UTF-8 strings and keys: lengths in bytes, keys ordered by their bytes', () => {
    const bytes = encodeCbor({ 'é': 'ü', z: 'grüße' });
    expect(hex(bytes)).toBe('d9d9f7' + 'a2' + '417a' + '47' + hex(new TextEncoder().encode('grüße')) + '42c3a9' + '42c3bc');
    expect(decodeCbor(bytes)).toEqual({ 'é': 'ü', z: 'grüße' });
  });

  it("a built-in kind's []byte fields go out as raw bytes in tag 22, in lists and watch events too; custom resources keep strings", () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'AQID' }, type: 'Opaque' };
    const bytes = encodeCbor(secret);
    const seen = readCbor(bytes) as Map<Uint8Array, unknown>;
    const data = [...seen].find(([k]) => new TextDecoder().decode(k) === 'data')![1] as Map<Uint8Array, Tagged>;
    const value = [...data.values()][0]!;
    expect(value).toBeInstanceOf(Tagged);
    expect(value.tag).toBe(22);
    expect([...(value.value as Uint8Array)]).toEqual([1, 2, 3]);
    expect(decodeCbor(bytes)).toEqual(secret);
    const list = { apiVersion: 'v1', kind: 'SecretList', metadata: {}, items: [{ metadata: { name: 's' }, data: { a: 'AQID' } }] };
    expect(hex(encodeCbor(list))).toContain('4161' + 'd643010203');
    expect(hex(encodeCborWatchEvent('ADDED', secret))).toContain('4161' + 'd643010203');
    // Text that is not padded base64 cannot have come from a []byte: it stays a string.
    expect(hex(encodeCbor({ ...secret, data: { a: 'not base64' } }))).toContain('4161' + '4a' + hex(new TextEncoder().encode('not base64')));
    const custom = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, data: { a: 'AQID' } };
    expect(hex(encodeCbor(custom))).toContain('4161' + '4441514944');
  });

  it('undefined members are left out, as JSON does', () => {
    expect(decodeCbor(encodeCbor({ a: undefined, b: [undefined] }))).toEqual({ b: [null] });
  });

  it('[API-WATCH-011] a watch event is {type, object}, the object its own self-described item', () => {
    const bytes = encodeCborWatchEvent('ADDED', { kind: 'Pod' });
    expect(hex(bytes)).toBe('d9d9f7' + 'a2' + '4474797065' + '454144444544' + '466f626a656374' + 'd9d9f7' + 'a1' + '446b696e64' + '43506f64');
    expect(decodeCborSequence(new Uint8Array([...bytes, ...encodeCborWatchEvent('DELETED', { kind: 'Pod' })]))).toEqual([
      { type: 'ADDED', object: { kind: 'Pod' } },
      { type: 'DELETED', object: { kind: 'Pod' } },
    ]);
  });
});

describe('CBOR decoding', () => {
  it('[API-ENC-028] text strings (what generic CBOR encoders write) decode as byte strings do; the self-described tag is optional', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } };
    expect(decodeCbor(cborgEncode(obj))).toEqual(obj);
    expect(decodeCbor(encodeCbor(obj).subarray(3))).toEqual(obj);
  });

  it('tag 22 (expected base64) turns bytes into base64 text, as kube decodes []byte into a string; 21 base64url, 23 hex', () => {
    expect(decodeCbor(fromHex('a1 4464617461 d6 43 010203'))).toEqual({ data: 'AQID' });
    expect(decodeCbor(fromHex('d5 42 fbff'))).toBe('-_8');
    expect(decodeCbor(fromHex('d7 42 fbff'))).toBe('fbff');
  });

  it('indefinite lengths, half floats, epoch and RFC 3339 time tags, and an unrecognized tag read as their content', () => {
    expect(decodeCbor(fromHex('bf 6161 9f 01 02 ff 6162 5f 4161 4162 ff ff'))).toEqual({ a: [1, 2], b: 'ab' });
    expect(decodeCbor(fromHex('f9 3e00'))).toBe(1.5);
    expect(decodeCbor(fromHex('c1 1a 65937d25'))).toBe('2024-01-02T03:04:05Z');
    expect(decodeCbor(fromHex('c0 74' + hex(new TextEncoder().encode('2024-01-02T03:04:05Z'))))).toBe('2024-01-02T03:04:05Z');
    expect(decodeCbor(fromHex('d8 63 01'))).toBe(1);
  });

  it('rejects duplicate keys, undefined, non-finite floats, non-string keys and trailing data with 400', () => {
    const bad = [
      ['a2 4161 01 4161 02', 'duplicate map key "a"'],
      ['a2 6161 01 4161 02', 'duplicate map key "a"'],
      ['a2 6161 01 6161 02', 'duplicate map key "a"'],
      ['bf 6161 01 6161 02 ff', 'duplicate map key "a"'],
      ['f7', 'undefined'],
      ['f97e00', 'NaN'],
      ['a1 01 02', 'map key'],
      ['01 02', '1 bytes of extraneous data starting at index 1'],
      ['1b 8000000000000000', 'overflows int64'],
      ['62 c328', 'invalid UTF-8'],
      ['82 01', 'unexpected EOF'],
      ['9b 00000000ffffffff', 'unexpected EOF'],
      ['f8 20', 'simple value'],
      ['', 'empty'],
    ] as const;
    for (const [h, message] of bad) {
      let err: unknown;
      try {
        cborSerializer.decode(fromHex(h));
      } catch (e) {
        err = e;
      }
      expect(err, h).toBeInstanceOf(StatusError);
      expect((err as StatusError).status.code).toBe(400);
      expect((err as StatusError).status.message).toContain(message);
    }
  });

  it('round-trips what cborg reads back identically', () => {
    const obj = { spec: { replicas: 3, ratio: 0.25, tags: ['a', 'b'], nested: { deep: [{ x: null }] } }, ok: true };
    const bytes = encodeCbor(obj);
    const seen = readCbor(bytes) as Map<Uint8Array, unknown>;
    expect(seen).toBeInstanceOf(Map);
    expect(decodeCbor(bytes)).toEqual(obj);
  });
});

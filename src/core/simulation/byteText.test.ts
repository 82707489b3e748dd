/** Bytes as process text and back: UTF-8 as TextDecoder reads it, any other byte kept (surrogateescape). */
import { describe, expect, it } from 'vitest';
import { ByteTextDecoder, decodeBytes, encodeText } from './byteText';

const utf8 = new TextEncoder();

describe('byteText', () => {
  it('UTF-8 decodes and encodes as TextDecoder and TextEncoder do', () => {
    for (const s of ['', 'plain', 'héllo wörld', '日本語', 'emoji 😀 pair', 'line\n']) {
      expect(decodeBytes(utf8.encode(s))).toBe(s);
      expect(encodeText(s)).toEqual(utf8.encode(s));
    }
  });

  it('every byte string survives the round trip, whatever it holds', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(encodeText(decodeBytes(all))).toEqual(all);
    // Invalid sequences: a lone continuation, an overlong form, a UTF-16 surrogate, a truncated sequence, bytes F5-FF.
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf5, 0x80, 0x80, 0x80], [0x41, 0xff, 0x42]]) {
      const bytes = Uint8Array.from(bad);
      expect(encodeText(decodeBytes(bytes))).toEqual(bytes);
    }
    let seed = 7;
    const random = Uint8Array.from({ length: 5000 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 255);
    expect(encodeText(decodeBytes(random))).toEqual(random);
  });

  it('a byte outside a valid sequence is one escape character; valid text around it stays text', () => {
    expect(decodeBytes(Uint8Array.from([0x61, 0xff, 0xc3, 0xa9]))).toBe('a\udcffé');
    // A paired surrogate whose low half is in the escape range is a character, not a byte.
    expect(encodeText('\ud800\udc80')).toEqual(utf8.encode('\ud800\udc80'));
  });

  it('a stream decoder holds a sequence split between chunks', () => {
    const d = new ByteTextDecoder();
    const bytes = utf8.encode('é€😀');
    let text = '';
    for (const b of bytes) text += d.decode(Uint8Array.of(b));
    expect(text + d.decode(new Uint8Array(0), true)).toBe('é€😀');
    // Bytes left incomplete at the end are escaped.
    expect(new ByteTextDecoder().decode(Uint8Array.of(0x61, 0xe2, 0x82), true)).toBe('a\udce2\udc82');
  });
});

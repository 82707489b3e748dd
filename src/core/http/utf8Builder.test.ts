import { describe, expect, it } from 'vitest';
import { Utf8Builder } from './utf8Builder';

describe('Utf8Builder', () => {
  it('writes pieces as the UTF-8 of their concatenation, growing past its first capacity', () => {
    const pieces = ['{"a":"', 'é€𝄞', '"}', 'x'.repeat(300), '\u2028', ''];
    const b = new Utf8Builder(8);
    for (const p of pieces) b.add(p);
    expect(b.bytes()).toEqual(new TextEncoder().encode(pieces.join('')));
    expect(b.size).toBe(b.bytes().byteLength);
  });

  it('push writes its texts in order, as add does one by one', () => {
    const b = new Utf8Builder(4);
    b.push('{"k":', '"v"', '}');
    b.push();
    expect(new TextDecoder().decode(b.bytes())).toBe('{"k":"v"}');
  });
});

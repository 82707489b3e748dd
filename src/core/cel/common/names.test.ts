import { describe, expect, it } from 'vitest';
import { NameSet } from './names';

describe('NameSet', () => {
  it('answers as a Set does, whatever the length and first character share', () => {
    const names = NameSet.of(['self', 'oldSelf', 'Self', 'request', 'object', 'o', '']);
    for (const n of ['self', 'oldSelf', 'Self', 'request', 'object', 'o', '']) expect(names.has(n)).toBe(true);
    // Same length and first letter (case folded into one bit), or same length only: still a miss.
    for (const n of ['sELF', 'selg', 'SELF', 'requesT', 'objecT', 'p', 'O', 'x', 'oldSelves']) expect(names.has(n)).toBe(false);
    names.delete('self');
    expect(names.has('self')).toBe(false);
    expect(names.has('Self')).toBe(true);
    expect([...names].sort()).toEqual(['', 'Self', 'o', 'object', 'oldSelf', 'request']);
  });
});

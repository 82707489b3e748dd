import { describe, expect, it } from 'vitest';
import { seededRandom } from '../util/clock';
import { SortedKeys } from './sortedKeys';

/** The reference: one sorted array, searched and spliced. */
class SortedArray {
  keys: string[] = [];
  lowerBound(t: string): number {
    const i = this.keys.findIndex((k) => k >= t);
    return i < 0 ? this.keys.length : i;
  }
  upperBound(t: string): number {
    const i = this.keys.findIndex((k) => k > t);
    return i < 0 ? this.keys.length : i;
  }
  insert(k: string): boolean {
    const i = this.lowerBound(k);
    if (this.keys[i] === k) return false;
    this.keys.splice(i, 0, k);
    return true;
  }
  delete(k: string): boolean {
    const i = this.lowerBound(k);
    if (this.keys[i] !== k) return false;
    this.keys.splice(i, 1);
    return true;
  }
  prefixEnd(from: number, prefix: string): number {
    let i = from;
    while (i < this.keys.length && this.keys[i]!.startsWith(prefix)) i++;
    return i;
  }
}

describe('SortedKeys', () => {
  it('answers as one sorted array would through random inserts, removals and filters across chunk splits', () => {
    const random = seededRandom(7);
    const byte = () => random.fill(new Uint8Array(1))[0]!;
    const name = () => `/registry/${['pods', 'configmaps', 'secrets'][byte() % 3]}/ns-${byte() % 4}/n-${byte() % 200}`;
    const keys = new SortedKeys(8);
    const ref = new SortedArray();
    for (let step = 0; step < 3000; step++) {
      const k = name();
      const op = byte() % 10;
      if (op < 6) expect(keys.insert(k)).toBe(ref.insert(k));
      else if (op < 9) expect(keys.delete(k)).toBe(ref.delete(k));
      else if (step % 50 === 9) {
        const drop = (x: string) => !x.endsWith('7');
        keys.filter(drop);
        ref.keys = ref.keys.filter(drop);
      }
      expect(keys.length).toBe(ref.keys.length);
      if (step % 25 === 0) {
        expect(keys.toArray()).toEqual(ref.keys);
        for (const t of [k, '/registry/configmaps/', '/registry/pods/ns-1/', '/registry/z', '', k + '\u0000']) {
          expect(keys.lowerBound(t)).toBe(ref.lowerBound(t));
          expect(keys.upperBound(t)).toBe(ref.upperBound(t));
          // From anywhere inside (or at the end of) the run of keys with the prefix.
          for (const prefix of ['/registry/pods/', '/registry/pods/ns-1/', t]) {
            for (const from of [ref.lowerBound(prefix), ref.lowerBound(prefix) + 1, ref.prefixEnd(ref.lowerBound(prefix), prefix)]) {
              if (from <= ref.keys.length) expect(keys.prefixEnd(from, prefix)).toBe(ref.prefixEnd(from, prefix));
            }
          }
        }
        for (let i = -1; i <= ref.keys.length; i++) expect(keys.at(i)).toBe(ref.keys[i]);
        const from = byte() % (ref.keys.length + 1);
        const seen: Array<[string, number]> = [];
        keys.forEachFrom(from, (key, i) => (seen.push([key, i]), seen.length < 30));
        expect(seen).toEqual(ref.keys.slice(from, from + 30).map((key, i) => [key, from + i]));
      }
    }
  });

  it('appends keys that arrive in order and splits full chunks', () => {
    const keys = new SortedKeys(4);
    for (let i = 0; i < 100; i++) keys.insert(`k${String(i).padStart(3, '0')}`);
    expect(keys.length).toBe(100);
    expect(keys.at(57)).toBe('k057');
    expect(keys.insert('k057')).toBe(false);
    expect(keys.lowerBound('k0575')).toBe(58);
  });
});

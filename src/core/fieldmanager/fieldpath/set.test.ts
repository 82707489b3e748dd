import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/corpus';
import {
  fieldElement,
  KeyElementEncoder,
  keyElement,
  PathSet,
  PathSetBuilder,
  fieldsV1ToSet,
  setToFieldsV1,
  valueElement,
  type Path,
  type PathElement,
} from './index';

/** A field element that is not the shared one: same id, different object. */
const freshField = (name: string): PathElement => ({ type: 'field', name, id: `f:${name}` });

const key = (p: Path) => p.map((pe) => pe.id).join('\u0000');
const ids = (s: PathSet) => s.paths().map(key);

/** Random paths over a small alphabet; wide nodes (> 8 entries) on purpose. */
function randomPaths(seed: number, count: number, fresh: boolean): Path[] {
  const r = seededRandom(seed);
  const names = Array.from({ length: 14 }, (_, i) => `n${i}`);
  return Array.from({ length: count }, () => {
    const depth = 1 + Math.floor(r() * 4);
    return Array.from({ length: depth }, () => {
      const name = names[Math.floor(r() * (r() < 0.5 ? 3 : names.length))];
      return fresh && r() < 0.5 ? freshField(name) : fieldElement(name);
    });
  });
}

/** The reference: a set of paths is a set of id strings. */
function naive(paths: Path[]): Set<string> {
  return new Set(paths.map(key));
}
const sorted = (s: Set<string>) => [...s].sort();

describe('PathSetBuilder', () => {
  it('builds the same set whatever the insertion order and element sharing', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const paths = randomPaths(seed, 200, true);
      const built = PathSet.of(...paths);
      expect(sorted(new Set(ids(built)))).toEqual(sorted(naive(paths)));
      expect(built.size()).toBe(naive(paths).size);
      const reversed = PathSet.of(...[...paths].reverse());
      expect(reversed.equals(built)).toBe(true);
      for (const p of paths) expect(built.has(p.map((pe) => freshField((pe as { name: string }).name)))).toBe(true);
    }
  });

  it('hands its contents over on build and starts empty', () => {
    const b = new PathSetBuilder().insert([fieldElement('a')]);
    const first = b.build();
    b.insert([fieldElement('b')]);
    expect(ids(first)).toEqual(['f:a']);
    expect(ids(b.build())).toEqual(['f:b']);
    expect(b.build().empty()).toBe(true);
  });

  it('drops nodes it descended into but never filled', () => {
    const b = new PathSetBuilder();
    b.descend(fieldElement('a')).descend(fieldElement('b'));
    b.descend(fieldElement('c')).addMember(fieldElement('d'));
    const set = b.build();
    expect(ids(set)).toEqual([key([fieldElement('c'), fieldElement('d')])]);
    expect(set.withPrefix(fieldElement('a')).empty()).toBe(true);
    const only = new PathSetBuilder();
    only.descend(fieldElement('x'));
    expect(only.build()).toBe(PathSet.EMPTY);
  });
});

describe('PathSet algebra on small and wide nodes', () => {
  it('matches set algebra on path strings', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const pa = randomPaths(seed, 120, seed % 2 === 0);
      const pb = randomPaths(seed + 1000, 120, seed % 3 === 0).concat(pa.slice(0, 40));
      const builtA = PathSet.of(...pa);
      const builtB = PathSet.of(...pb);
      const na = naive(pa);
      const nb = naive(pb);
      // As built (nodes in insertion order, looked up by id) and as shared (sorted, merged in one pass), mixed.
      const sharedA = builtA.union(builtB).intersection(builtA);
      const sharedB = builtB.union(builtA).intersection(builtB);
      expect(ids(sharedA)).toEqual(ids(builtA));
      for (const [a, b] of [[builtA, builtB], [sharedA, sharedB], [builtA, sharedB], [sharedA, builtB]]) {
        expect(sorted(new Set(ids(a.union(b))))).toEqual(sorted(new Set([...na, ...nb])));
        expect(sorted(new Set(ids(a.intersection(b))))).toEqual(sorted(new Set([...na].filter((p) => nb.has(p)))));
        expect(sorted(new Set(ids(a.difference(b))))).toEqual(sorted(new Set([...na].filter((p) => !nb.has(p)))));
        // Recursive difference also drops what lies below a path of b.
        const below = (p: string) => [...nb].some((q) => p === q || p.startsWith(`${q}\u0000`));
        expect(sorted(new Set(ids(a.recursiveDifference(b))))).toEqual(sorted(new Set([...na].filter((p) => !below(p)))));
        expect(a.isSubsetOf(b)).toBe(a.difference(b).empty());
        expect(a.intersection(b).isSubsetOf(b)).toBe(true);
        expect(a.union(b).equals(b.union(a))).toBe(true);
        expect(a.equals(b)).toBe(sorted(na).join() === sorted(nb).join());
        expect(a.isSubsetOf(a.union(b))).toBe(true);
      }
    }
  });

  it('algebra hands out one node per content: equal results are the same set, and a set less itself is empty', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const pa = randomPaths(seed, 120, false);
      const pb = randomPaths(seed + 1000, 120, false);
      const a = PathSet.of(...pa);
      const b = PathSet.of(...pb);
      const u1 = a.union(b);
      const u2 = b.union(a);
      expect(u1).toBe(u2);
      expect(u1.intersection(a)).toBe(a.union(PathSet.EMPTY).intersection(u2));
      expect(u1.difference(u2)).toBe(PathSet.EMPTY);
      expect(ids(u1.difference(b).union(b))).toEqual(ids(u1));
      // a shared set's FieldsV1 is built once
      expect(setToFieldsV1(u1)).toBe(setToFieldsV1(u2));
      expect(Object.isFrozen(setToFieldsV1(u1))).toBe(true);
    }
  });

  it('encodes FieldsV1 keys in element order however they were inserted', () => {
    const names = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    for (const count of [3, 12, 40]) {
      const pes = names.slice(0, count).map((n) => keyElement([['name', n]]));
      const set = PathSet.of(...[...pes].reverse().map((pe) => [fieldElement('list'), pe]), [fieldElement('a')], [valueElement('v')]);
      const inner = Object.keys(setToFieldsV1(set)['f:list']);
      expect(inner).toEqual(pes.map((pe) => pe.id));
      expect(Object.keys(setToFieldsV1(set))).toEqual(['f:a', 'f:list', 'v:"v"']);
    }
  });
});

describe('shared sets', () => {
  const f = fieldElement;
  it('a set decoded from FieldsV1 is the set it was encoded from, and algebra over sets met again adds nothing to the sharing table', () => {
    const built = PathSet.of([f('data'), f('a')], [f('data'), f('b')], [f('metadata'), f('labels'), f('x')], [f('spec')]);
    const text = JSON.stringify(setToFieldsV1(built));
    expect(fieldsV1ToSet(JSON.parse(text))).toBe(built);
    const other = PathSet.of([f('data'), f('c')], [f('metadata'), f('labels'), f('y')]);
    // An update's round: the stored entry decoded afresh, then joined with what changed.
    const round = () => fieldsV1ToSet(JSON.parse(text)).union(other).difference(PathSet.of([f('data'), f('a')]));
    const first = round();
    const size = PathSet.sharedTableSize();
    for (let i = 0; i < 50; i++) expect(round()).toBe(first);
    expect(PathSet.sharedTableSize()).toBe(size);
    // and it holds what it should
    expect(ids(first)).toEqual(ids(PathSet.of([f('data'), f('b')], [f('data'), f('c')], [f('metadata'), f('labels'), f('x')], [f('metadata'), f('labels'), f('y')], [f('spec')])));
  });
});

describe('shared elements', () => {
  it('a field element is one object per name', () => {
    expect(fieldElement('spec')).toBe(fieldElement('spec'));
  });

  it('the key encoder writes what keyElement writes, and shares the element', () => {
    const single = new KeyElementEncoder(['name']);
    for (const v of ['a', 'a<b>&c\u2028', 'quote"back\\slash', 80, 1.5, true]) {
      expect(single.element([v]).id).toBe(keyElement([['name', v]]).id);
      expect(single.element([v])).toBe(single.element([v]));
    }
    const multi = new KeyElementEncoder(['containerPort', 'protocol']);
    const pe = multi.element([80, 'TCP']);
    expect(pe.id).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(pe).toEqual(keyElement([['protocol', 'TCP'], ['containerPort', 80]]));
    expect(single.element([{ b: 1, a: [2] }]).id).toBe('k:{"name":{"a":[2],"b":1}}');
  });
});

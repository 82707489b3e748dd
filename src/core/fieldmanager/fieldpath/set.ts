import { compareElements, type PathElement } from './element';
import type { Path } from './path';

interface ChildNode {
  readonly pe: PathElement;
  readonly set: PathSet;
}

/**
 * An immutable set of paths, stored as a trie: `members` are the elements
 * that end a path here, `children` the elements that continue one. A child
 * is never empty. Algebra methods return new sets.
 */
export class PathSet {
  static readonly EMPTY = new PathSet(new Map(), new Map());

  private constructor(
    private readonly members: ReadonlyMap<string, PathElement>,
    private readonly children: ReadonlyMap<string, ChildNode>,
  ) {}

  static of(...paths: Path[]): PathSet {
    const b = new PathSetBuilder();
    for (const p of paths) b.insert(p);
    return b.build();
  }

  /** For builders only: wraps maps the caller hands over. */
  static fromParts(members: Map<string, PathElement>, children: Map<string, ChildNode>): PathSet {
    if (members.size === 0 && children.size === 0) return PathSet.EMPTY;
    return new PathSet(members, children);
  }

  empty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Number of paths in the set. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: PathSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const c = s.children.get(path[i].id);
      if (!c) return false;
      s = c.set;
    }
    return s.members.has(path[path.length - 1].id);
  }

  /** The paths below `pe`, relative to it. */
  withPrefix(pe: PathElement): PathSet {
    return this.children.get(pe.id)?.set ?? PathSet.EMPTY;
  }

  /** Members of this node (paths of length one), sorted. */
  memberElements(): PathElement[] {
    return [...this.members.values()].sort(compareElements);
  }

  /** Children of this node, sorted. */
  childNodes(): ChildNode[] {
    return [...this.children.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(pe.id);
  }

  union(other: PathSet): PathSet {
    if (other.empty()) return this;
    if (this.empty()) return other;
    const members = new Map(this.members);
    for (const [id, pe] of other.members) members.set(id, pe);
    const children = new Map(this.children);
    for (const [id, c] of other.children) {
      const mine = children.get(id);
      children.set(id, mine ? { pe: c.pe, set: mine.set.union(c.set) } : c);
    }
    return PathSet.fromParts(members, children);
  }

  intersection(other: PathSet): PathSet {
    const members = new Map<string, PathElement>();
    for (const [id, pe] of this.members) if (other.members.has(id)) members.set(id, pe);
    const children = new Map<string, ChildNode>();
    for (const [id, c] of this.children) {
      const theirs = other.children.get(id);
      if (!theirs) continue;
      const set = c.set.intersection(theirs.set);
      if (!set.empty()) children.set(id, { pe: c.pe, set });
    }
    return PathSet.fromParts(members, children);
  }

  difference(other: PathSet): PathSet {
    if (other.empty() || this.empty()) return this;
    const members = new Map<string, PathElement>();
    for (const [id, pe] of this.members) if (!other.members.has(id)) members.set(id, pe);
    const children = new Map<string, ChildNode>();
    for (const [id, c] of this.children) {
      const theirs = other.children.get(id);
      if (!theirs) {
        children.set(id, c);
        continue;
      }
      const set = c.set.difference(theirs.set);
      if (!set.empty()) children.set(id, { pe: c.pe, set });
    }
    return PathSet.fromParts(members, children);
  }

  /** Difference that also drops everything below each path of `other`. */
  recursiveDifference(other: PathSet): PathSet {
    if (other.empty() || this.empty()) return this;
    const members = new Map<string, PathElement>();
    for (const [id, pe] of this.members) if (!other.members.has(id)) members.set(id, pe);
    const children = new Map<string, ChildNode>();
    for (const [id, c] of this.children) {
      if (other.members.has(id)) continue;
      const theirs = other.children.get(id);
      if (!theirs) {
        children.set(id, c);
        continue;
      }
      const set = c.set.recursiveDifference(theirs.set);
      if (!set.empty()) children.set(id, { pe: c.pe, set });
    }
    return PathSet.fromParts(members, children);
  }

  equals(other: PathSet): boolean {
    if (this === other) return true;
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const id of this.members.keys()) if (!other.members.has(id)) return false;
    for (const [id, c] of this.children) {
      const theirs = other.children.get(id);
      if (!theirs || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every path, in sorted order (a node's own path before the paths below it). */
  paths(): Path[] {
    const out: Path[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: PathElement[], out: Path[]): void {
    const nodes = new Map<string, { pe: PathElement; member: boolean; child?: PathSet }>();
    for (const [id, pe] of this.members) nodes.set(id, { pe, member: true });
    for (const [id, c] of this.children) {
      const n = nodes.get(id);
      if (n) n.child = c.set;
      else nodes.set(id, { pe: c.pe, member: false, child: c.set });
    }
    const sorted = [...nodes.values()].sort((a, b) => compareElements(a.pe, b.pe));
    for (const n of sorted) {
      const p = [...prefix, n.pe];
      if (n.member) out.push(p);
      n.child?.collect(p, out);
    }
  }

  toString(): string {
    return this.paths()
      .map((p) => p.map((pe) => pe.id).join('.'))
      .join('\n');
  }
}

/** Mutable construction of a PathSet, for walkers that insert many paths. */
export class PathSetBuilder {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, { pe: PathElement; builder: PathSetBuilder }>();

  insert(path: Path): this {
    if (path.length === 0) return this;
    let b: PathSetBuilder = this;
    for (let i = 0; i < path.length - 1; i++) b = b.descend(path[i]);
    const last = path[path.length - 1];
    b.members.set(last.id, last);
    return this;
  }

  descend(pe: PathElement): PathSetBuilder {
    let c = this.children.get(pe.id);
    if (!c) {
      c = { pe, builder: new PathSetBuilder() };
      this.children.set(pe.id, c);
    }
    return c.builder;
  }

  build(): PathSet {
    const children = new Map<string, ChildNode>();
    for (const [id, c] of this.children) {
      const set = c.builder.build();
      if (!set.empty()) children.set(id, { pe: c.pe, set });
    }
    return PathSet.fromParts(new Map(this.members), children);
  }
}

import { compareElements, type PathElement } from './element';
import type { Path } from './path';

export interface ChildNode {
  readonly pe: PathElement;
  readonly set: PathSet;
}

/**
 * Nodes keep their elements in arrays (most nodes hold a handful: the
 * fields of one list entry) and add a Map index only past this size, so a
 * set of thousands of paths is not thousands of Maps.
 */
const INDEX_FROM = 8;

const NO_MEMBERS: readonly PathElement[] = Object.freeze([]);

/**
 * Shared nodes (PathSet.shared), in a trie keyed by their members, then by
 * each child's element and node. Bounded: sharing is an optimisation only.
 */
interface SharedEntry {
  next: Map<object, SharedEntry> | undefined;
  node: PathSet | undefined;
}
let sharedRoot: SharedEntry = { next: undefined, node: undefined };
let sharedCount = 0;
const MAX_SHARED_NODES = 1 << 15;

/** The entry after `key`, added when missing; undefined when the table was full (it starts over). */
function sharedStep(at: SharedEntry, key: object): SharedEntry | undefined {
  let next = at.next?.get(key);
  if (next === undefined) {
    if (sharedCount >= MAX_SHARED_NODES) {
      sharedRoot = { next: undefined, node: undefined };
      sharedCount = 0;
      return undefined;
    }
    next = { next: undefined, node: undefined };
    (at.next ??= new Map()).set(key, next);
    sharedCount++;
  }
  return next;
}
const NO_CHILDREN: readonly ChildNode[] = Object.freeze([]);

/**
 * `list` plus `x`. Small lists are copied at their exact size (a push past
 * an array's capacity reserves 16 more slots, too many for most nodes);
 * larger ones grow in place.
 */
function append<T>(list: readonly T[], x: T): readonly T[] {
  // Literals, not spread: spreading a (frozen) array goes through its iterator and allocates several times as much.
  switch (list.length) {
    case 0:
      return [x];
    case 1:
      return [list[0], x];
    case 2:
      return [list[0], list[1], x];
    case 3:
      return [list[0], list[1], list[2], x];
  }
  (list as T[]).push(x);
  return list;
}

/** `list` sorted, as a new array (insertion sort: nodes are small, and Array.prototype.sort allocates a work copy). */
function sortedCopy(list: readonly PathElement[]): PathElement[] {
  const a = list.slice();
  for (let i = 1; i < a.length; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= 0 && compareElements(a[j], x) > 0) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
  return a;
}

/**
 * An immutable set of paths, stored as a trie: `members` are the elements
 * that end a path here, `children` the elements that continue one. A child
 * is never empty. Algebra methods return new sets (sharing unchanged parts).
 */
export class PathSet {
  static readonly EMPTY = new PathSet(NO_MEMBERS, NO_CHILDREN);

  private memberIndex: Map<string, PathElement> | undefined = undefined;
  private childIndex: Map<string, ChildNode> | undefined = undefined;
  /**
   * The FieldsV1 encoding of this node without and with its own `"."`
   * (serialize.ts): built once per node, since sets share unchanged nodes.
   */
  encoded: object | undefined = undefined;
  encodedWithSelf: object | undefined = undefined;
  /** Whether members and children are each in element order (undefined: not looked at yet; shared nodes are). */
  private inOrder: boolean | undefined = undefined;
  /**
   * Whether this node went through `shared` with every child node shared in
   * turn: only such nodes are keys of the sharing table. A node built below
   * a fresh one (a decoded set's, or a list with a repeated key) is unlikely
   * to be met again, so entries keyed by it would only hold garbage until
   * the table fills.
   */
  private isShared = false;

  private constructor(
    // Mutable for builders only, until they hand the set out.
    private members: readonly PathElement[],
    private children: readonly ChildNode[],
  ) {}

  static of(...paths: Path[]): PathSet {
    const b = new PathSetBuilder();
    for (const p of paths) b.insert(p);
    return b.build();
  }

  private static make(members: readonly PathElement[], children: readonly ChildNode[]): PathSet {
    if (members.length === 0 && children.length === 0) return PathSet.EMPTY;
    return PathSet.shared(new PathSet(members.length === 0 ? NO_MEMBERS : members, children.length === 0 ? NO_CHILDREN : children));
  }

  /**
   * The one node equal to `node`, a finished node (`node` itself when it is
   * the first): the same members, and the same child nodes below the same
   * elements (children are compared as objects, so sharing builds bottom up). Sets of an object repeat
   * nodes by the thousand (the fields of each env entry), and an apply's set
   * is most often the one it applied last time, with other values: sets are
   * immutable, so sharing them saves the memory, lets each keep its FieldsV1
   * encoding once for all, and makes comparing a set with itself free. Its
   * members and children are then sorted.
   */
  static shared(node: PathSet): PathSet {
    const m = PathSet.sortMembersOf(node);
    const c = PathSet.sortChildrenOf(node);
    node.inOrder = true;
    for (let i = 0; i < c.length; i++) if (!c[i].set.isShared) return node;
    // Looked up by the elements and child nodes themselves (no key to build): equal
    // elements are mostly one object, and when not, the node is just not shared.
    let at: SharedEntry | undefined = sharedRoot;
    for (let i = 0; i < m.length && at; i++) at = sharedStep(at, m[i]);
    for (let i = 0; i < c.length && at; i++) {
      at = sharedStep(at, c[i].pe);
      if (at) at = sharedStep(at, c[i].set);
    }
    if (at === undefined) return node;
    node.isShared = true;
    return (at.node ??= node);
  }

  /**
   * `node`, a finished node, shared with all its nodes, bottom up: what a
   * builder or a decoder hands out, so that equal sets met again (a
   * manager's entry decoded on every update) are the same nodes, and sets
   * built from them are shared in turn.
   */
  static sharedDeep(node: PathSet): PathSet {
    if (node.isShared) return node;
    const c = node.children;
    let copy: ChildNode[] | undefined;
    for (let i = 0; i < c.length; i++) {
      const set = PathSet.sharedDeep(c[i].set);
      if (set !== c[i].set) (copy ??= c.slice())[i] = { pe: c[i].pe, set };
    }
    if (copy) {
      node.children = copy;
      node.childIndex = undefined;
    }
    return PathSet.shared(node);
  }

  /** How many entries the sharing table holds (for tests: it must not grow with sets met again). */
  static sharedTableSize(): number {
    return sharedCount;
  }

  /** Shared nodes only: a fresh node's members, sorted (a sorted copy when they were not). */
  private static sortMembersOf(node: PathSet): readonly PathElement[] {
    const m = node.members;
    for (let i = 1; i < m.length; i++) if (compareElements(m[i - 1], m[i]) > 0) return (node.members = sortedCopy(m));
    return m;
  }

  private static sortChildrenOf(node: PathSet): readonly ChildNode[] {
    const c = node.children;
    for (let i = 1; i < c.length; i++) {
      if (compareElements(c[i - 1].pe, c[i].pe) > 0) return (node.children = c.slice().sort((a, b) => compareElements(a.pe, b.pe)));
    }
    return c;
  }

  private member(id: string): PathElement | undefined {
    const m = this.members;
    if (m.length > INDEX_FROM) {
      let idx = this.memberIndex;
      if (idx === undefined) {
        idx = new Map();
        for (let peI = 0; peI < m.length; peI++) {
          const pe = m[peI];
          idx.set(pe.id, pe);
        }
        this.memberIndex = idx;
      }
      return idx.get(id);
    }
    for (let i = 0; i < m.length; i++) if (m[i].id === id) return m[i];
    return undefined;
  }

  private childNode(id: string): ChildNode | undefined {
    const c = this.children;
    if (c.length > INDEX_FROM) {
      let idx = this.childIndex;
      if (idx === undefined) {
        idx = new Map();
        for (let nI = 0; nI < c.length; nI++) {
          const n = c[nI];
          idx.set(n.pe.id, n);
        }
        this.childIndex = idx;
      }
      return idx.get(id);
    }
    for (let i = 0; i < c.length; i++) if (c[i].pe.id === id) return c[i];
    return undefined;
  }

  // Builder support (PathSetBuilder and the FieldsV1 decoder only). A builder
  // grows nodes it created in place, so nothing is copied when it is done;
  // a node is never changed once its set has been handed out.

  /** A new node for a builder to fill. */
  static newNode(): PathSet {
    return new PathSet(NO_MEMBERS, NO_CHILDREN);
  }

  /** Builders only: adds `pe` as a member of `node`. */
  static addMemberTo(node: PathSet, pe: PathElement): void {
    if (node.member(pe.id) !== undefined) return;
    node.members = append(node.members, pe);
    node.memberIndex?.set(pe.id, pe);
  }

  /** Builders only: adds `pe` as a member of `node`, which the caller knows has no such member. */
  static appendMember(node: PathSet, pe: PathElement): void {
    node.members = append(node.members, pe);
    node.memberIndex?.set(pe.id, pe);
  }

  /** Builders only: puts `child` below `pe` in `node`, which the caller knows has no child there. */
  static appendChild(node: PathSet, pe: PathElement, child: PathSet): void {
    const c = { pe, set: child };
    node.children = append(node.children, c);
    node.childIndex?.set(pe.id, c);
  }

  /** Builders only: the child node of `node` below `pe`, created when missing. */
  static childNodeOf(node: PathSet, pe: PathElement): PathSet {
    let c = node.childNode(pe.id);
    if (c === undefined) {
      c = { pe, set: new PathSet(NO_MEMBERS, NO_CHILDREN) };
      node.children = append(node.children, c);
      node.childIndex?.set(pe.id, c);
    }
    return c.set;
  }

  /** Builders only: drops children left empty (descended into, nothing inserted). */
  static pruneEmpty(node: PathSet): void {
    let dropped = false;
    for (let cI = 0; cI < node.children.length; cI++) {
      const c = node.children[cI];
      PathSet.pruneEmpty(c.set);
      if (c.set.empty()) dropped = true;
    }
    if (!dropped) return;
    const kept = node.children.filter((c) => !c.set.empty());
    node.children = kept.length === 0 ? NO_CHILDREN : kept;
    node.childIndex = undefined;
  }

  empty(): boolean {
    return this.members.length === 0 && this.children.length === 0;
  }

  /** Number of paths in the set. */
  size(): number {
    let n = this.members.length;
    for (let cI = 0; cI < this.children.length; cI++) {
      const c = this.children[cI];
      n += c.set.size();
    }
    return n;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: PathSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const c = s.childNode(path[i].id);
      if (!c) return false;
      s = c.set;
    }
    return s.member(path[path.length - 1].id) !== undefined;
  }

  /** The paths below `pe`, relative to it. */
  withPrefix(pe: PathElement): PathSet {
    return this.childNode(pe.id)?.set ?? PathSet.EMPTY;
  }

  /** Members of this node (paths of length one), sorted. */
  memberElements(): PathElement[] {
    return [...this.members].sort(compareElements);
  }

  /** Children of this node, sorted. */
  childNodes(): ChildNode[] {
    return [...this.children].sort((a, b) => compareElements(a.pe, b.pe));
  }

  hasMember(pe: PathElement): boolean {
    return this.member(pe.id) !== undefined;
  }

  /** Members of this node in no particular order (cheaper than memberElements). */
  unsortedMembers(): readonly PathElement[] {
    return this.members;
  }

  /** Children of this node in no particular order (cheaper than childNodes). */
  unsortedChildren(): readonly ChildNode[] {
    return this.children;
  }

  /** The child below `pe`, if any (the same set as withPrefix, or undefined when empty). */
  child(pe: PathElement): PathSet | undefined {
    return this.childNode(pe.id)?.set;
  }

  /** True when every path of this set is in `other` (this.difference(other) is empty). */
  /** Whether members and children are each sorted (then algebra merges them in one pass, with no lookups). */
  private sorted(): boolean {
    let s = this.inOrder;
    if (s === undefined) {
      s = true;
      const m = this.members;
      for (let i = 1; i < m.length && s; i++) if (compareElements(m[i - 1], m[i]) > 0) s = false;
      const c = this.children;
      for (let i = 1; i < c.length && s; i++) if (compareElements(c[i - 1].pe, c[i].pe) > 0) s = false;
      this.inOrder = s;
    }
    return s;
  }

  isSubsetOf(other: PathSet): boolean {
    if (this === other || this.empty()) return true;
    if (this.sorted() && other.sorted()) {
      const m = this.members;
      const om = other.members;
      for (let i = 0, j = 0; i < m.length; ) {
        if (j === om.length) return false;
        const d = compareElements(m[i], om[j]);
        if (d < 0) return false;
        j++;
        if (d === 0) i++;
      }
      const c = this.children;
      const oc = other.children;
      for (let i = 0, j = 0; i < c.length; ) {
        if (j === oc.length) return false;
        const d = compareElements(c[i].pe, oc[j].pe);
        if (d < 0) return false;
        if (d === 0) {
          if (!c[i].set.isSubsetOf(oc[j].set)) return false;
          i++;
        }
        j++;
      }
      return true;
    }
    for (let i = 0; i < this.members.length; i++) if (other.member(this.members[i].id) === undefined) return false;
    for (let i = 0; i < this.children.length; i++) {
      const c = this.children[i];
      const theirs = other.childNode(c.pe.id);
      if (!theirs || !c.set.isSubsetOf(theirs.set)) return false;
    }
    return true;
  }

  union(other: PathSet): PathSet {
    if (other.empty() || this === other) return this;
    if (this.empty()) return other;
    let members = this.members;
    for (let peI = 0; peI < other.members.length; peI++) {
      const pe = other.members[peI];
      if (this.member(pe.id) !== undefined) continue;
      if (members === this.members) members = this.members.slice();
      (members as PathElement[]).push(pe);
    }
    const children: ChildNode[] = [];
    for (let cI = 0; cI < this.children.length; cI++) {
      const c = this.children[cI];
      const theirs = other.childNode(c.pe.id);
      children.push(theirs ? { pe: theirs.pe, set: c.set.union(theirs.set) } : c);
    }
    for (let cI = 0; cI < other.children.length; cI++) {
      const c = other.children[cI];
      if (this.childNode(c.pe.id) === undefined) children.push(c);
    }
    return PathSet.make(members, children);
  }

  intersection(other: PathSet): PathSet {
    if (this === other) return this;
    const members: PathElement[] = [];
    for (let i = 0; i < this.members.length; i++) {
      const pe = this.members[i];
      if (other.member(pe.id) !== undefined) members.push(pe);
    }
    const children: ChildNode[] = [];
    for (let i = 0; i < this.children.length; i++) {
      const c = this.children[i];
      const theirs = other.childNode(c.pe.id);
      if (!theirs) continue;
      const set = c.set.intersection(theirs.set);
      if (!set.empty()) children.push({ pe: c.pe, set });
    }
    return PathSet.make(members, children);
  }

  difference(other: PathSet): PathSet {
    if (this === other) return PathSet.EMPTY;
    if (other.empty() || this.empty()) return this;
    if (this.sorted() && other.sorted()) return this.sortedDifference(other);
    const members: PathElement[] = [];
    for (let peI = 0; peI < this.members.length; peI++) {
      const pe = this.members[peI];
      if (other.member(pe.id) === undefined) members.push(pe);
    }
    const children: ChildNode[] = [];
    for (let cI = 0; cI < this.children.length; cI++) {
      const c = this.children[cI];
      const theirs = other.childNode(c.pe.id);
      if (!theirs) {
        children.push(c);
        continue;
      }
      const set = c.set.difference(theirs.set);
      if (!set.empty()) children.push({ pe: c.pe, set });
    }
    return PathSet.make(members, children);
  }

  /** difference, both sides sorted: one pass over each, the result sorted too. */
  private sortedDifference(other: PathSet): PathSet {
    const m = this.members;
    const om = other.members;
    const members: PathElement[] = [];
    for (let i = 0, j = 0; i < m.length; ) {
      const d = j === om.length ? -1 : compareElements(m[i], om[j]);
      if (d < 0) members.push(m[i++]);
      else {
        if (d === 0) i++;
        j++;
      }
    }
    const c = this.children;
    const oc = other.children;
    const children: ChildNode[] = [];
    let same = members.length === m.length;
    for (let i = 0, j = 0; i < c.length; ) {
      const d = j === oc.length ? -1 : compareElements(c[i].pe, oc[j].pe);
      if (d < 0) children.push(c[i++]);
      else if (d > 0) j++;
      else {
        const set = c[i].set.difference(oc[j].set);
        if (set === c[i].set) children.push(c[i]);
        else {
          same = false;
          if (!set.empty()) children.push({ pe: c[i].pe, set });
        }
        i++;
        j++;
      }
    }
    return same ? this : PathSet.make(members, children);
  }

  /** Difference that also drops everything below each path of `other`. */
  recursiveDifference(other: PathSet): PathSet {
    if (other.empty() || this.empty()) return this;
    const members: PathElement[] = [];
    for (let peI = 0; peI < this.members.length; peI++) {
      const pe = this.members[peI];
      if (other.member(pe.id) === undefined) members.push(pe);
    }
    const children: ChildNode[] = [];
    for (let cI = 0; cI < this.children.length; cI++) {
      const c = this.children[cI];
      if (other.member(c.pe.id) !== undefined) continue;
      const theirs = other.childNode(c.pe.id);
      if (!theirs) {
        children.push(c);
        continue;
      }
      const set = c.set.recursiveDifference(theirs.set);
      if (!set.empty()) children.push({ pe: c.pe, set });
    }
    return PathSet.make(members, children);
  }

  equals(other: PathSet): boolean {
    if (this === other) return true;
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (other.member(this.members[i].id) === undefined) return false;
    for (let cI = 0; cI < this.children.length; cI++) {
      const c = this.children[cI];
      const theirs = other.childNode(c.pe.id);
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
    const elements: PathElement[] = [...this.members];
    for (const c of this.children) if (this.member(c.pe.id) === undefined) elements.push(c.pe);
    elements.sort(compareElements);
    for (const pe of elements) {
      const p = [...prefix, pe];
      if (this.member(pe.id) !== undefined) out.push(p);
      this.childNode(pe.id)?.set.collect(p, out);
    }
  }

  toString(): string {
    return this.paths()
      .map((p) => p.map((pe) => pe.id).join('.'))
      .join('\n');
  }
}

/**
 * Mutable construction of a PathSet, for walkers that insert many paths.
 * Walkers insert paths in tree order, so the builder remembers the nodes of
 * the last path inserted and only descends from where the new one differs
 * (elements are compared by identity: shared elements make this the norm).
 */
export class PathSetBuilder {
  private node: PathSet;
  /**
   * The parent of the last inserted path: its first `lastDepth` elements
   * and the nodes they lead to (lastNodes[0] is this node). Entries past
   * lastDepth are stale and ignored.
   */
  private lastElems: PathElement[] | undefined;
  private lastNodes: PathSet[] | undefined;
  private lastDepth = 0;

  /** Shared by a builder and the builders `descend` returns: whether a node may be left empty. */
  private state = { descended: false };

  /**
   * `ordered`: the caller inserts in depth-first order, each subtree's paths
   * together and no path twice (a walk of an object inserting as it goes), so
   * a path leaving the last one's branch always starts a new node and its
   * last element is always a new member: nothing is looked up.
   */
  constructor(private readonly ordered = false) {
    this.node = PathSet.newNode();
  }

  /** Inserts a path; the builder does not keep the array. */
  insert(path: Path): this {
    const n = path.length - 1;
    if (n < 0) return this;
    const elems = (this.lastElems ??= []);
    const nodes = (this.lastNodes ??= [this.node]);
    const depth = this.lastDepth;
    let k = 0;
    while (k < n && k < depth && elems[k] === path[k]) k++;
    let node = nodes[k];
    for (; k < n; k++) {
      if (this.ordered) {
        const child = PathSet.newNode();
        PathSet.appendChild(node, path[k], child);
        node = child;
      } else {
        node = PathSet.childNodeOf(node, path[k]);
      }
      elems[k] = path[k];
      nodes[k + 1] = node;
    }
    this.lastDepth = n;
    if (this.ordered) PathSet.appendMember(node, path[n]);
    else PathSet.addMemberTo(node, path[n]);
    return this;
  }

  /**
   * The node below `path` (created when missing), for a walker that fills a
   * subtree itself with PathSet.addMemberTo and PathSet.childNodeOf. It must
   * leave no node it creates empty, and use it before build().
   */
  nodeAt(path: Path): PathSet {
    let node = this.node;
    for (let i = 0; i < path.length; i++) node = PathSet.childNodeOf(node, path[i]);
    return node;
  }

  /** Adds the path made of the single element `pe` below this node. */
  addMember(pe: PathElement): this {
    PathSet.addMemberTo(this.node, pe);
    return this;
  }

  /**
   * A builder for the paths below `pe`, filling this builder's set: use it
   * before this builder's build(), never after.
   */
  descend(pe: PathElement): PathSetBuilder {
    this.state.descended = true;
    const b = new PathSetBuilder();
    b.node = PathSet.childNodeOf(this.node, pe);
    b.state = this.state;
    return b;
  }

  /** The set built so far. The builder hands its contents over and is empty afterwards. */
  build(): PathSet {
    const set = this.node;
    if (this.state.descended) PathSet.pruneEmpty(set);
    this.node = PathSet.newNode();
    this.lastElems = undefined;
    this.lastNodes = undefined;
    this.lastDepth = 0;
    this.state.descended = false;
    return set.empty() ? PathSet.EMPTY : PathSet.sharedDeep(set);
  }
}

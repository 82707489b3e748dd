import { fieldElement, type Path, type PathElement } from '../fieldpath';
import type { ListAtom, MapAtom, Schema, TypeNode } from '../schema';
import type { JsonObject, JsonValue } from '../value';
import { TypedError } from './errors';
import { listItemElement } from './listItems';

/**
 * How a merge treats its nodes. `leaf` decides the output of a leaf (a
 * scalar, an atomic list or map, or a list/map empty on both sides); `post`
 * sees every other node after its children, with either side possibly absent.
 * `path` is the walker's own stack: valid during the call only, copy it to keep it.
 */
export interface MergeRules {
  leaf(path: Path, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined;
  post?(path: Path, lhs: JsonValue | undefined, rhs: JsonValue | undefined): void;
  /** Reject duplicate entries on the right-hand side (an applied configuration). */
  strictRHS?: boolean;
  /** The walk is for the rules' side effects only: maps and lists are not rebuilt (they come back undefined). */
  discardOutput?: boolean;
  /**
   * With discardOutput only: takes over a node present on one side only
   * (its subtree included), in place of the walk, which would see every node
   * of it as one-sided anyway.
   */
  oneSided?(node: TypeNode, path: Path, lhs: JsonValue | undefined, rhs: JsonValue | undefined): void;
}

/** Walks two values of one type together; at least one of them is defined. */
export function mergeWalk(
  schema: Schema,
  node: TypeNode,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  rules: MergeRules,
): JsonValue | undefined {
  return new MergingWalker(schema, rules).merge(node, lhs, rhs);
}

const hasOwn = Object.prototype.hasOwnProperty;
// Module-level copies of what the walk calls per node: a call through an
// import binding may cost a getter call when modules are compiled to CommonJS.
const elementOfField = fieldElement;
const elementOfItem = listItemElement;
const isArray = Array.isArray;
const isMap = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// Stand-ins for the output of a walk that builds none (never written to).
const NOTHING: JsonObject = Object.freeze({}) as JsonObject;
const NO_ITEMS: JsonValue[] = Object.freeze([]) as unknown as JsonValue[];

/** One side of a list: its items' elements and the items, in list order. */
interface ListItems {
  order: PathElement[];
  values: JsonValue[];
}

/** Lists up to this long are searched for duplicates by scanning, not hashing (no set to allocate per list). */
const SMALL_LIST = 32;

class MergingWalker {
  /** The path of the node being visited; pushed and popped as the walk goes. */
  private readonly path: PathElement[] = [];
  private readonly strictRHS: boolean;
  private readonly build: boolean;
  private readonly oneSided: MergeRules['oneSided'];

  constructor(
    private readonly schema: Schema,
    private readonly rules: MergeRules,
  ) {
    this.strictRHS = rules.strictRHS === true;
    this.build = rules.discardOutput !== true;
    this.oneSided = this.build ? undefined : rules.oneSided?.bind(rules);
  }

  merge(node: TypeNode, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    if ((lhs === undefined || rhs === undefined) && this.oneSided !== undefined) {
      this.oneSided(node, this.path, lhs, rhs);
      return undefined;
    }
    const atom = this.schema.resolve(node, rhs !== undefined && rhs !== null ? rhs : lhs);
    if (atom.kind === 'scalar') return this.rules.leaf(this.path, lhs, rhs);
    if (atom.kind === 'list') return this.doList(atom, lhs, rhs);
    return this.doMap(atom, lhs, rhs);
  }

  private child(node: TypeNode, pe: PathElement, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    this.path.push(pe);
    const v = this.merge(node, lhs, rhs);
    this.path.pop();
    return v;
  }

  private doList(atom: ListAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    const mismatch = (lhs != null && !isArray(lhs)) || (rhs != null && !isArray(rhs));
    const l = isArray(lhs) ? lhs : undefined;
    const r = isArray(rhs) ? rhs : undefined;
    const emptyPromoteToLeaf = (!l || l.length === 0) && (!r || r.length === 0);
    if (atom.relationship === 'atomic' || emptyPromoteToLeaf || mismatch) return this.rules.leaf(this.path, lhs, rhs);
    const out = this.visitListItems(atom, l ?? [], r ?? []);
    this.rules.post?.(this.path, lhs, rhs);
    return out.length > 0 ? out : undefined; // always empty when not building
  }

  /**
   * The elements of a list's items, with the items in the same order. With
   * `dedupe`, only the first item of each element is kept (or, when strict,
   * a duplicate is an error, reported before later items are looked at).
   */
  private elementsOf(atom: ListAtom, list: JsonValue[], dedupe: boolean, strict: boolean): ListItems {
    const order: PathElement[] = [];
    const values: JsonValue[] = [];
    // Small lists look for duplicates by scanning; larger ones keep a set.
    const seen = dedupe && list.length > SMALL_LIST ? new Set<string>() : undefined;
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      const pe = elementOfItem(atom, i, item, this.path);
      if (dedupe) {
        let dup: boolean;
        if (seen) {
          dup = seen.has(pe.id);
          if (!dup) seen.add(pe.id);
        } else {
          dup = false;
          for (let j = 0; j < order.length; j++) {
            if (order[j].id === pe.id) {
              dup = true;
              break;
            }
          }
        }
        if (dup) {
          if (strict) throw new TypedError([...this.path], `duplicate entries for key ${pe.id.slice(2)}`);
          continue;
        }
      }
      order.push(pe);
      values.push(item);
    }
    return { order, values };
  }

  private emitItem(atom: ListAtom, out: JsonValue[], pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined): void {
    const v = this.child(atom.element, pe, l, r);
    if (v !== undefined && this.build) out.push(v);
  }

  /**
   * Merged order: entries shared by both sides follow the right-hand order;
   * left-only entries stay next to the left-hand neighbours they had;
   * right-only entries come where the right-hand side puts them.
   */
  private visitListItems(atom: ListAtom, lhs: JsonValue[], rhs: JsonValue[]): JsonValue[] {
    const R = this.elementsOf(atom, rhs, true, this.strictRHS);
    // The left side is deduplicated only if it differs from the right (a left side
    // equal item for item to the deduplicated right one has no duplicates).
    const Lraw = this.elementsOf(atom, lhs, false, false);
    const out: JsonValue[] = this.build ? [] : NO_ITEMS;
    const ro = R.order;
    // Fast path: both sides list the same entries in the same order.
    if (Lraw.order.length === ro.length) {
      let same = true;
      for (let i = 0; i < ro.length; i++) {
        if (Lraw.order[i].id !== ro[i].id) {
          same = false;
          break;
        }
      }
      if (same) {
        for (let i = 0; i < ro.length; i++) this.emitItem(atom, out, ro[i], Lraw.values[i], R.values[i]);
        return out;
      }
    }
    const rItems = new Map<string, JsonValue>();
    for (let i = 0; i < ro.length; i++) rItems.set(ro[i].id, R.values[i]);
    const lItems = new Map<string, JsonValue>();
    const lo: PathElement[] = [];
    for (let i = 0; i < Lraw.order.length; i++) {
      const pe = Lraw.order[i];
      if (lItems.has(pe.id)) continue;
      lItems.set(pe.id, Lraw.values[i]);
      lo.push(pe);
    }
    const shared: PathElement[] = [];
    for (const pe of ro) if (lItems.has(pe.id)) shared.push(pe);
    let sharedIdx = 0;
    let nextShared: PathElement | undefined = shared[sharedIdx++];
    const emitted = new Set<string>();
    let li = 0;
    let ri = 0;
    while (li < lo.length || ri < ro.length) {
      if (li < lo.length && ri < ro.length) {
        const pe = lo[li];
        if (pe.id === ro[ri].id) {
          this.emitItem(atom, out, pe, lItems.get(pe.id), rItems.get(pe.id));
          emitted.add(pe.id);
          li++;
          ri++;
          nextShared = sharedIdx < shared.length ? shared[sharedIdx++] : undefined;
          continue;
        }
        if (rItems.has(pe.id) && nextShared && nextShared.id !== pe.id) {
          // A shared entry, but not the one due now: the right-hand side places it.
          li++;
          continue;
        }
      }
      if (li < lo.length) {
        const pe = lo[li];
        if (!rItems.has(pe.id)) {
          this.emitItem(atom, out, pe, lItems.get(pe.id), undefined);
          li++;
          continue;
        }
        if (emitted.has(pe.id)) {
          li++;
          continue;
        }
      }
      if (ri < ro.length) {
        const pe = ro[ri];
        if (!emitted.has(pe.id)) {
          this.emitItem(atom, out, pe, lItems.get(pe.id), rItems.get(pe.id));
          emitted.add(pe.id);
        }
        ri++;
        if (nextShared && nextShared.id === pe.id) nextShared = sharedIdx < shared.length ? shared[sharedIdx++] : undefined;
      }
    }
    return out;
  }

  private visitField(atom: MapAtom, out: JsonObject, key: string, lv: JsonValue | undefined, rv: JsonValue | undefined): void {
    const childNode = hasOwn.call(atom.fields, key) ? atom.fields[key] : atom.element;
    const pe = elementOfField(key);
    let v: JsonValue | undefined;
    if (childNode === undefined) {
      this.path.push(pe);
      v = this.rules.leaf(this.path, lv, rv);
      this.path.pop();
    } else {
      v = this.child(childNode, pe, lv, rv);
    }
    if (v !== undefined && this.build) out[key] = v;
  }

  private doMap(atom: MapAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    const mismatch = (lhs != null && !isMap(lhs)) || (rhs != null && !isMap(rhs));
    const l = isMap(lhs) ? lhs : undefined;
    const r = isMap(rhs) ? rhs : undefined;
    const emptyPromoteToLeaf = (!l || isEmpty(l)) && (!r || isEmpty(r));
    if (atom.relationship === 'atomic' || emptyPromoteToLeaf || mismatch) return this.rules.leaf(this.path, lhs, rhs);
    const out: JsonObject = this.build ? {} : NOTHING;
    let any = false;
    // for-in with an own-property check visits what Object.keys lists, without allocating the list.
    if (l) {
      for (const key in l) {
        if (hasOwn.call(l, key)) this.visitField(atom, out, key, l[key], r ? r[key] : undefined);
      }
    }
    if (r) {
      for (const key in r) {
        if (hasOwn.call(r, key) && (!l || !hasOwn.call(l, key))) this.visitField(atom, out, key, undefined, r[key]);
      }
    }
    this.rules.post?.(this.path, lhs, rhs);
    if (!this.build) return undefined;
    for (const k in out) {
      if (hasOwn.call(out, k)) {
        any = true;
        break;
      }
    }
    return any ? out : undefined;
  }
}

function isEmpty(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

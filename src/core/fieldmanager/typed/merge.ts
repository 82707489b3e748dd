import { fieldElement, type Path, type PathElement } from '../fieldpath';
import type { ListAtom, MapAtom, Schema, TypeNode } from '../schema';
import { isList, isObject, type JsonObject, type JsonValue } from '../value';
import { TypedError } from './errors';
import { listItemElement } from './listItems';

/**
 * How a merge treats its nodes. `leaf` decides the output of a leaf (a
 * scalar, an atomic list or map, or a list/map empty on both sides); `post`
 * sees every other node after its children, with either side possibly absent.
 */
export interface MergeRules {
  leaf(path: Path, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined;
  post?(path: Path, lhs: JsonValue | undefined, rhs: JsonValue | undefined): void;
  /** Reject duplicate entries on the right-hand side (an applied configuration). */
  strictRHS?: boolean;
}

/** Walks two values of one type together; at least one of them is defined. */
export function mergeWalk(
  schema: Schema,
  node: TypeNode,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  rules: MergeRules,
): JsonValue | undefined {
  return new MergingWalker(schema, rules).merge(node, lhs, rhs, []);
}

class MergingWalker {
  constructor(
    private readonly schema: Schema,
    private readonly rules: MergeRules,
  ) {}

  merge(node: TypeNode, lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: Path): JsonValue | undefined {
    const atom = this.schema.resolve(node, rhs !== undefined && rhs !== null ? rhs : lhs);
    if (atom.kind === 'scalar') return this.rules.leaf(path, lhs, rhs);
    if (atom.kind === 'list') return this.doList(atom, lhs, rhs, path);
    return this.doMap(atom, lhs, rhs, path);
  }

  private doList(atom: ListAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: Path): JsonValue | undefined {
    const mismatch = (lhs != null && !isList(lhs)) || (rhs != null && !isList(rhs));
    const l = isList(lhs) ? lhs : undefined;
    const r = isList(rhs) ? rhs : undefined;
    const emptyPromoteToLeaf = (!l || l.length === 0) && (!r || r.length === 0);
    if (atom.relationship === 'atomic' || emptyPromoteToLeaf || mismatch) return this.rules.leaf(path, lhs, rhs);
    const out = this.visitListItems(atom, l ?? [], r ?? [], path);
    this.rules.post?.(path, lhs, rhs);
    return out.length > 0 ? out : undefined;
  }

  private index(atom: ListAtom, list: JsonValue[], path: Path, strict: boolean) {
    const order: PathElement[] = [];
    const items = new Map<string, JsonValue>();
    list.forEach((item, i) => {
      const pe = listItemElement(atom, i, item, path);
      if (items.has(pe.id)) {
        if (strict) throw new TypedError(path, `duplicate entries for key ${pe.id.slice(2)}`);
        return;
      }
      items.set(pe.id, item);
      order.push(pe);
    });
    return { order, items };
  }

  /**
   * Merged order: entries shared by both sides follow the right-hand order;
   * left-only entries stay next to the left-hand neighbours they had;
   * right-only entries come where the right-hand side puts them.
   */
  private visitListItems(atom: ListAtom, lhs: JsonValue[], rhs: JsonValue[], path: Path): JsonValue[] {
    const R = this.index(atom, rhs, path, this.rules.strictRHS === true);
    const L = this.index(atom, lhs, path, false);
    const out: JsonValue[] = [];
    const shared = R.order.filter((pe) => L.items.has(pe.id));
    let sharedIdx = 0;
    let nextShared: PathElement | undefined = shared[sharedIdx++];
    const advanceShared = () => {
      nextShared = sharedIdx < shared.length ? shared[sharedIdx++] : undefined;
    };
    const emit = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined) => {
      const v = this.merge(atom.element, l, r, [...path, pe]);
      if (v !== undefined) out.push(v);
    };
    const emitted = new Set<string>();
    let li = 0;
    let ri = 0;
    while (li < L.order.length || ri < R.order.length) {
      if (li < L.order.length && ri < R.order.length) {
        const pe = L.order[li];
        if (pe.id === R.order[ri].id) {
          emit(pe, L.items.get(pe.id), R.items.get(pe.id));
          emitted.add(pe.id);
          li++;
          ri++;
          advanceShared();
          continue;
        }
        if (R.items.has(pe.id) && nextShared && nextShared.id !== pe.id) {
          // A shared entry, but not the one due now: the right-hand side places it.
          li++;
          continue;
        }
      }
      if (li < L.order.length) {
        const pe = L.order[li];
        if (!R.items.has(pe.id)) {
          emit(pe, L.items.get(pe.id), undefined);
          li++;
          continue;
        }
        if (emitted.has(pe.id)) {
          li++;
          continue;
        }
      }
      if (ri < R.order.length) {
        const pe = R.order[ri];
        if (!emitted.has(pe.id)) {
          emit(pe, L.items.get(pe.id), R.items.get(pe.id));
          emitted.add(pe.id);
        }
        ri++;
        if (nextShared && nextShared.id === pe.id) advanceShared();
      }
    }
    return out;
  }

  private doMap(atom: MapAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: Path): JsonValue | undefined {
    const mismatch = (lhs != null && !isObject(lhs)) || (rhs != null && !isObject(rhs));
    const l = isObject(lhs) ? lhs : undefined;
    const r = isObject(rhs) ? rhs : undefined;
    const emptyPromoteToLeaf = (!l || isEmpty(l)) && (!r || isEmpty(r));
    if (atom.relationship === 'atomic' || emptyPromoteToLeaf || mismatch) return this.rules.leaf(path, lhs, rhs);
    const out: JsonObject = {};
    const visit = (key: string, lv: JsonValue | undefined, rv: JsonValue | undefined) => {
      const declared = Object.prototype.hasOwnProperty.call(atom.fields, key);
      const childNode = declared ? atom.fields[key] : atom.element;
      const p = [...path, fieldElement(key)];
      const v =
        childNode === undefined ? this.rules.leaf(p, lv, rv) : this.merge(childNode, lv, rv, p);
      if (v !== undefined) out[key] = v;
    };
    if (l) for (const key of Object.keys(l)) visit(key, l[key], r ? r[key] : undefined);
    if (r) for (const key of Object.keys(r)) if (!l || !Object.prototype.hasOwnProperty.call(l, key)) visit(key, undefined, r[key]);
    this.rules.post?.(path, lhs, rhs);
    return Object.keys(out).length > 0 ? out : undefined;
  }
}

function isEmpty(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

import type { SchemaObject } from '../registry/types';
import { goString, internal, isObject, type JsonObject, type JsonValue, type PatchError, type PatchResult } from './types';

/**
 * Strategic merge patch for built-in kinds, as k8s.io/apimachinery's
 * strategicpatch applies it on the server (parallel lists merged, unmatched
 * nulls ignored). The schema's x-kubernetes-patch-strategy and
 * x-kubernetes-patch-merge-key drive it: lists with strategy merge merge by
 * their merge key (or as sets of scalars), other lists are replaced; maps
 * merge unless their strategy is replace. Directives: `$patch`
 * (replace|delete|merge), `$deleteFromPrimitiveList/<field>`,
 * `$setElementOrder/<field>` and `$retainKeys`; null deletes a key.
 */
export interface StrategicMergeSchema {
  /** Root schema of the kind. */
  root: SchemaObject | undefined;
  definitions?: Readonly<Record<string, SchemaObject>>;
}

const DIRECTIVE = '$patch';
const REPLACE = 'replace';
const DELETE = 'delete';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

// Wording of k8s.io/apimachinery/pkg/util/mergepatch.
const ErrBadPatchFormatForRetainKeys = 'invalid patch format of retainKeys';
const ErrNoListOfLists = 'lists of lists are not supported';
const ErrBadPatchFormatForSetElementOrderList = 'invalid patch format of setElementOrder list';
const ErrBadPatchFormatForPrimitiveList = 'invalid patch format of primitive list';

/** An error of the patch itself, with the status the server gives it. */
class PatchFailure extends Error {
  constructor(readonly error: PatchError) {
    super(error.message);
  }
}
const badRequest = (message: string) => new PatchFailure({ code: 400, reason: 'BadRequest', message });
const serverError = (message: string) => new PatchFailure({ code: 500, reason: 'InternalError', message });

export function applyStrategicMergePatch(original: JsonObject, patch: unknown, schema: StrategicMergeSchema): PatchResult {
  if (!isObject(patch)) {
    const what = patch === null ? 'null' : Array.isArray(patch) ? 'array' : typeof patch;
    return { ok: false, error: { code: 400, reason: 'BadRequest', message: `json: cannot unmarshal ${what} into Go value of type map[string]interface {}` } };
  }
  const meta = new PatchMeta(schema.definitions ?? {});
  try {
    return { ok: true, object: mergeMap(structuredClone(original), structuredClone(patch), meta.node(schema.root), meta) };
  } catch (e) {
    if (e instanceof PatchFailure) return { ok: false, error: e.error };
    return internal((e as Error).message);
  }
}

interface FieldMeta {
  strategies: string[];
  mergeKey: string;
}

/** Reads patch metadata out of OpenAPI schemas, following $refs. */
class PatchMeta {
  constructor(private readonly definitions: Readonly<Record<string, SchemaObject>>) {}

  node(s: SchemaObject | undefined): SchemaObject | undefined {
    let cur = s;
    for (let i = 0; cur && i < 32; i++) {
      if (cur.$ref) cur = this.definitions[cur.$ref.replace(/^#\/(definitions|components\/schemas)\//, '')];
      else if (cur.allOf?.length === 1 && !cur.properties) cur = cur.allOf[0];
      else return cur;
    }
    return cur;
  }

  /** The schema of a field of a struct (or the value schema of a map) and the field's markers. */
  field(parent: SchemaObject | undefined, key: string): { schema: SchemaObject | undefined; meta: FieldMeta } {
    const raw = parent?.properties?.[key] ?? (typeof parent?.additionalProperties === 'object' ? parent.additionalProperties : undefined);
    const strategy = raw?.['x-kubernetes-patch-strategy'];
    return {
      schema: this.node(raw),
      meta: { strategies: strategy ? strategy.split(',') : [], mergeKey: raw?.['x-kubernetes-patch-merge-key'] ?? '' },
    };
  }

  items(list: SchemaObject | undefined): SchemaObject | undefined {
    return this.node(list?.items);
  }
}

/** Splits retainKeys off a field's strategies; the rest is its merge strategy. */
function mainStrategy(meta: FieldMeta): string {
  const rest = meta.strategies.filter((s) => s !== 'retainKeys');
  if (rest.length > 1) throw serverError(`unexpected patch strategy: ${meta.strategies.join(',')}`);
  return rest[0] ?? '';
}

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: SchemaObject | undefined, meta: PatchMeta): JsonObject {
  if (DIRECTIVE in patch) {
    const d = patch[DIRECTIVE];
    if (d === REPLACE) {
      delete patch[DIRECTIVE];
      return stripDirectives(patch) as JsonObject;
    }
    if (d === DELETE) return {};
    if (d !== MERGE) throw serverError(`unknown patch type: ${goString(d)} in map: ${goString(patch)}`);
    delete patch[DIRECTIVE];
  }
  const out: JsonObject = original ?? {};
  applyRetainKeys(out, patch);
  mergeSetElementOrder(out, patch, schema, meta);

  for (const [rawKey, patchV] of Object.entries(patch)) {
    if (rawKey.startsWith(SET_ELEMENT_ORDER)) continue;
    let key = rawKey;
    const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = rawKey.slice(DELETE_FROM_PRIMITIVE_LIST.length);

    if (patchV === null) {
      delete out[key];
      continue;
    }
    const { schema: sub, meta: fieldMeta } = meta.field(schema, key);
    if (!(key in out)) {
      if (isDeleteList) continue;
      // New value: run it against an empty one so directives and nulls are resolved.
      out[key] = fresh(patchV, sub, fieldMeta, meta);
      continue;
    }
    const cur = out[key];
    const sameKind = Array.isArray(cur) === Array.isArray(patchV) && isObject(cur) === isObject(patchV);
    if (!sameKind || (!isObject(cur) && !Array.isArray(cur))) {
      if (isDeleteList) continue;
      out[key] = Array.isArray(patchV) || isObject(patchV) ? fresh(patchV, sub, fieldMeta, meta) : patchV;
      continue;
    }
    const strategy = mainStrategy(fieldMeta);
    if (isObject(cur)) {
      out[key] = strategy === REPLACE ? (stripDirectives(patchV) as JsonObject) : mergeMap(cur, patchV as JsonObject, sub, meta);
    } else {
      out[key] =
        strategy === MERGE
          ? mergeSlice(cur as JsonValue[], patchV as JsonValue[], meta.items(sub), fieldMeta.mergeKey, meta, isDeleteList)
          : (stripDirectives(patchV) as JsonValue[]);
    }
  }
  return out;
}

function fresh(v: JsonValue, schema: SchemaObject | undefined, fieldMeta: FieldMeta, meta: PatchMeta): JsonValue {
  if (isObject(v)) return mainStrategy(fieldMeta) === REPLACE ? stripDirectives(v) : mergeMap({}, v, schema, meta);
  if (Array.isArray(v) && mainStrategy(fieldMeta) === MERGE) return mergeSlice([], v, meta.items(schema), fieldMeta.mergeKey, meta, false);
  return stripDirectives(v);
}

/** Drops directive keys and nulls from a value that is taken as is. */
function stripDirectives(v: JsonValue): JsonValue {
  if (Array.isArray(v)) {
    return v.filter((x) => !(isObject(x) && x[DIRECTIVE] !== undefined && Object.keys(x).length === 1)).map(stripDirectives);
  }
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(SET_ELEMENT_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    if (x === null) continue;
    out[k] = stripDirectives(x);
  }
  return out;
}

/** `$retainKeys`: keys of the original not listed are cleared; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw serverError(`expected a []interface {}, but received a ${typeof list}`);
  const keep = new Set(list.map((x) => String(x)));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRequest(ErrBadPatchFormatForRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `$setElementOrder/<field>`: merges the field's patch list, then orders the
 * result: the directive's order first, the patch order next, the live order
 * for what only the server has.
 */
function mergeSetElementOrder(original: JsonObject, patch: JsonObject, schema: SchemaObject | undefined, meta: PatchMeta): void {
  for (const [directiveKey, orderV] of Object.entries(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!Array.isArray(orderV)) throw badRequest(ErrBadPatchFormatForSetElementOrderList);
    const key = directiveKey.slice(SET_ELEMENT_ORDER.length);
    const { schema: sub, meta: fieldMeta } = meta.field(schema, key);
    const mergeKey = fieldMeta.mergeKey;
    const origList = original[key];
    const patchList = patch[key];
    const hasOrig = Array.isArray(origList);
    const hasPatch = Array.isArray(patchList);
    if (origList !== undefined && !hasOrig) throw serverError(`expected a []interface {}, but received a ${typeof origList}`);
    if (patchList !== undefined && patchList !== null && !hasPatch) throw serverError(`expected a []interface {}, but received a ${typeof patchList}`);
    validateOrder(hasPatch ? (patchList as JsonValue[]) : [], orderV, mergeKey);
    let merged: JsonValue[];
    if (hasOrig && !hasPatch) merged = origList as JsonValue[];
    else if (!hasOrig && hasPatch) merged = stripDirectives(patchList as JsonValue[]) as JsonValue[];
    else if (hasOrig && hasPatch) {
      merged =
        mainStrategy(fieldMeta) === MERGE
          ? mergeSlice(origList as JsonValue[], patchList as JsonValue[], meta.items(sub), mergeKey, meta, false)
          : (stripDirectives(patchList as JsonValue[]) as JsonValue[]);
    } else continue;
    const inOrder = (x: JsonValue) => indexOf(orderV, x, mergeKey) >= 0;
    original[key] = normalizeElementOrder(merged.filter(inOrder), merged.filter((x) => !inOrder(x)), orderV, hasOrig ? (origList as JsonValue[]) : [], mergeKey);
    delete patch[key];
  }
}

function validateOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  let last = -1;
  for (const item of patchList) {
    if (isObject(item) && item[DIRECTIVE] !== undefined) continue;
    if (mergeKey && isObject(item) && !(mergeKey in item)) throw badRequest(ErrBadPatchFormatForSetElementOrderList);
    const i = indexOf(order, item, mergeKey);
    if (i < last || i < 0) {
      throw serverError(
        `The order in patch list:\n${goString(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goString(order)}\n`,
      );
    }
    last = i;
  }
}

function mergeSlice(
  original: JsonValue[],
  patch: JsonValue[],
  itemSchema: SchemaObject | undefined,
  mergeKey: string,
  meta: PatchMeta,
  isDeleteList: boolean,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const sample = patch.length ? patch[0] : original[0];
  if (Array.isArray(sample)) throw badRequest(ErrNoListOfLists);
  let merged: JsonValue[];
  if (!isObject(sample)) {
    if (isDeleteList) {
      if (patch.some((x) => isObject(x) || Array.isArray(x))) throw badRequest(ErrBadPatchFormatForPrimitiveList);
      return original.filter((x) => indexOf(patch, x, '') < 0);
    }
    merged = dedupe([...original, ...patch]);
    const inPatch = (x: JsonValue) => indexOf(patch, x, '') >= 0;
    return normalizeElementOrder(merged.filter(inPatch), merged.filter((x) => !inPatch(x)), patch, original, '');
  }
  if (!mergeKey) throw serverError(`cannot merge lists without merge key for ${itemSchema ? 'type' : 'unknown type'}`);
  let orig = [...original];
  const rest: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isObject(item)) throw serverError(`expected a map[string]interface {}, but received a ${typeof item}`);
    if (!(DIRECTIVE in item)) {
      rest.push(item);
      continue;
    }
    const d = item[DIRECTIVE];
    if (d === DELETE) {
      if (!(mergeKey in item)) throw serverError(`map: ${goString(item)} does not contain declared merge key: ${mergeKey}`);
      orig = orig.filter((o) => !(isObject(o) && sameValue(o[mergeKey], item[mergeKey])));
    } else if (d === REPLACE) {
      replace = true;
    } else if (d === MERGE) {
      throw serverError('merging lists cannot yet be specified in the patch');
    } else {
      throw serverError(`unknown patch type: ${goString(d)} in map: ${goString(item)}`);
    }
  }
  if (replace) return rest.map((x) => stripDirectives(x));
  merged = orig;
  for (const item of rest) {
    if (!(mergeKey in item)) throw serverError(`map: ${goString(item)} does not contain declared merge key: ${mergeKey}`);
    const i = merged.findIndex((o) => isObject(o) && sameValue(o[mergeKey], item[mergeKey]));
    if (i >= 0) merged[i] = mergeMap(merged[i] as JsonObject, item, itemSchema, meta);
    else merged.push(mergeMap({}, item, itemSchema, meta));
  }
  const inPatch = (x: JsonValue) => indexOf(rest, x, mergeKey) >= 0;
  return normalizeElementOrder(merged.filter(inPatch), merged.filter((x) => !inPatch(x)), rest, original, mergeKey);
}

function dedupe(list: JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const x of list) if (indexOf(out, x, '') < 0) out.push(x);
  return out;
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function indexOf(list: readonly JsonValue[], item: JsonValue, mergeKey: string): number {
  if (mergeKey) {
    if (!isObject(item)) return -1;
    return list.findIndex((x) => isObject(x) && x[DIRECTIVE] === undefined && sameValue(x[mergeKey], item[mergeKey]));
  }
  return list.findIndex((x) => sameValue(x, item));
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`,
 * then interleaves them: a server-only item goes before a patch item when
 * the live list had it earlier.
 */
function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
): JsonValue[] {
  const sortBy = (items: JsonValue[], order: readonly JsonValue[]) =>
    items
      .map((x, i) => ({ x, i, o: indexOf(order, x, mergeKey) }))
      .sort((a, b) => (a.o >= 0 && b.o >= 0 ? a.o - b.o : a.i - b.i))
      .map((e) => e.x);
  const right = sortBy(patchItems, patchOrder);
  const left = sortBy(serverOnly, serverOrder);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey);
      const ri = indexOf(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

import { compareElements, parseElement, PathElementError, type PathElement } from './element';
import { PathSet, PathSetBuilder } from './set';

/** The FieldsV1 form of a set: nested objects keyed by path elements, `{}` leaves. */
export type FieldsV1 = { [key: string]: FieldsV1 };

/**
 * Encodes a set as FieldsV1. Keys are written in element order, and a node
 * that is both a member and has children carries `".": {}` first.
 */
export function setToFieldsV1(set: PathSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: PathSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf) out['.'] = {};
  const entries: { pe: PathElement; child?: PathSet }[] = [];
  const childById = new Map(set.childNodes().map((c) => [c.pe.id, c.set] as const));
  for (const pe of set.memberElements()) entries.push({ pe, child: childById.get(pe.id) });
  for (const c of set.childNodes()) if (!set.hasMember(c.pe)) entries.push({ pe: c.pe, child: c.set });
  entries.sort((a, b) => compareElements(a.pe, b.pe));
  for (const e of entries) {
    out[e.pe.id] = e.child ? emit(e.child, set.hasMember(e.pe)) : {};
  }
  return out;
}

export class FieldsV1Error extends Error {}

/** Decodes FieldsV1; unknown element kinds are dropped as the server does. */
export function fieldsV1ToSet(fields: unknown): PathSet {
  const b = new PathSetBuilder();
  read(fields, b, []);
  return b.build();
}

function read(fields: unknown, b: PathSetBuilder, prefix: PathElement[]): void {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new FieldsV1Error('FieldsV1 must be a JSON object');
  }
  for (const [key, child] of Object.entries(fields as Record<string, unknown>)) {
    if (key === '.') continue;
    let pe: PathElement;
    try {
      pe = parseElement(key);
    } catch (e) {
      if (e instanceof PathElementError && e.message.startsWith('unknown path element type')) continue;
      throw new FieldsV1Error((e as Error).message);
    }
    const path = [...prefix, pe];
    const grand = child as Record<string, unknown>;
    const keys = typeof grand === 'object' && grand !== null ? Object.keys(grand) : [];
    if (keys.length === 0 || keys.includes('.')) b.insert(path);
    if (keys.some((k) => k !== '.')) read(grand, b, path);
  }
}

/**
 * A seeded random corpus of applies and updates, run through the whole field
 * manager, for checking that two implementations behave identically. Each
 * step's outcome (stored object with managedFields, or the error) is written
 * as one canonical line; the lines of a run are what gets compared.
 */
import type { SchemaObject } from '../../registry/types';
import { canonicalJSON, type JsonObject, type JsonValue } from '../value';
import { definitions } from './schemas';

/** The parts of the package the corpus drives (so a second implementation can be plugged in). */
export interface FieldManagerLike {
  update(liveObj: JsonObject | undefined, newObj: JsonObject, manager: string): JsonObject;
  apply(liveObj: JsonObject | undefined, appliedObj: JsonObject, manager: string, force?: boolean): { ok: true; object: JsonObject } | { ok: false; error: unknown };
}
export interface FieldManagerFactory {
  (config: { apiVersion: string; schema?: SchemaObject; definitions?: Record<string, SchemaObject>; now: () => Date }): FieldManagerLike;
}

/** mulberry32: small, fast and good enough to pick test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const str: SchemaObject = { type: 'string' };
const int: SchemaObject = { type: 'integer' };
const item: SchemaObject = { type: 'object', properties: { name: str, image: str, port: int } };

/** Every merge marker, nested a little; `atomic` turns the granular lists and maps atomic (a topology change). */
export function markerSchema(atomic: boolean): SchemaObject {
  const mapType: Pick<SchemaObject, 'x-kubernetes-map-type'> = atomic ? { 'x-kubernetes-map-type': 'atomic' } : {};
  const listType = atomic ? 'atomic' : 'map';
  return {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      data: { type: 'object', additionalProperties: str, ...mapType },
      atomicMap: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
      struct: { type: 'object', properties: { a: str, b: str, deep: { type: 'object', properties: { x: str, y: int } } }, ...mapType },
      atomicStruct: { type: 'object', properties: { a: str, b: str }, 'x-kubernetes-map-type': 'atomic' },
      set: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
      atomicList: { type: 'array', items: item, 'x-kubernetes-list-type': 'atomic' },
      listMap: {
        type: 'array',
        items: { ...item, properties: { ...item.properties, sub: { type: 'array', items: item, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } } },
        'x-kubernetes-list-type': listType,
        'x-kubernetes-list-map-keys': ['name'],
      },
      multiKey: {
        type: 'array',
        items: { type: 'object', properties: { port: int, protocol: str, v: str } },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
      },
      mergeKeyed: {
        type: 'array',
        items: { type: 'object', properties: { name: str, v: str } },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      plainList: { type: 'array', items: str },
      free: { type: 'object' },
      preserved: { type: 'object', properties: { known: str }, 'x-kubernetes-preserve-unknown-fields': true },
      replicas: int,
    },
  };
}

type Rand = () => number;

function pick<T>(r: Rand, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}
function chance(r: Rand, p: number): boolean {
  return r() < p;
}
function some<T>(r: Rand, max: number, make: () => T): T[] {
  const n = Math.floor(r() * (max * scale + 1));
  return Array.from({ length: n }, make);
}
/** Mostly drops items whose key repeats an earlier one (duplicates are rejected on apply). */
function mostlyUnique(r: Rand, items: JsonValue[], key: (v: JsonValue) => string): JsonValue[] {
  if (chance(r, 0.05)) return items;
  const seen = new Set<string>();
  return items.filter((v) => {
    const k = key(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
const byName = (v: JsonValue): string => JSON.stringify((v as JsonObject | null)?.name ?? null);
const byPort = (v: JsonValue): string => `${(v as JsonObject).port}/${(v as JsonObject).protocol ?? 'TCP'}`;
const byContainerPort = (v: JsonValue): string => `${(v as JsonObject).containerPort}/${(v as JsonObject).protocol ?? 'TCP'}`;
const bySelf = (v: JsonValue): string => JSON.stringify(v);

function strMap(r: Rand, keys: readonly string[], values: readonly JsonValue[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (chance(r, 0.4)) out[k] = pick(r, values);
  return out;
}

const NAMES = ['a', 'b', 'c', 'd'] as const;
const WIDE_NAMES = Array.from({ length: 24 }, (_, i) => `n${i}`);

// Generation width: the wide kinds draw from more names and longer lists, so
// lists and maps grow past the sizes where the implementation changes strategy.
let names: readonly string[] = NAMES;
let scale = 1;

function wide(make: (r: Rand, forUpdate: boolean) => JsonObject): (r: Rand, forUpdate: boolean) => JsonObject {
  return (r, forUpdate) => {
    names = WIDE_NAMES;
    scale = 5;
    try {
      return make(r, forUpdate);
    } finally {
      names = NAMES;
      scale = 1;
    }
  };
}
const VALUES = ['x', 'y', 'z<&>'] as const;

/** Free JSON, a couple of levels deep (for schemaless and preserved fields). */
function freeJson(r: Rand, depth: number): JsonValue {
  const k = Math.floor(r() * (depth > 0 ? 6 : 4));
  switch (k) {
    case 0:
      return pick(r, VALUES);
    case 1:
      return Math.floor(r() * 3);
    case 2:
      return chance(r, 0.5) ? null : true;
    case 3:
      return [];
    case 4:
      return some(r, 3, () => freeJson(r, depth - 1));
    default: {
      const o: JsonObject = {};
      for (const n of names) if (chance(r, 0.4)) o[n] = freeJson(r, depth - 1);
      return o;
    }
  }
}

function listItem(r: Rand, nested: boolean): JsonValue {
  if (chance(r, 0.02)) return 'not-a-map';
  const o: JsonObject = {};
  if (!chance(r, 0.03)) o.name = pick(r, names);
  if (chance(r, 0.6)) o.image = pick(r, VALUES);
  if (chance(r, 0.3)) o.port = Math.floor(r() * 3);
  if (chance(r, 0.05)) o.image = null;
  if (nested && chance(r, 0.4)) o.sub = mostlyUnique(r, some(r, 3, () => listItem(r, false)), byName);
  return o;
}

function metadata(r: Rand, allowManaged: boolean): JsonObject {
  const m: JsonObject = { name: 'obj', namespace: 'default' };
  if (chance(r, 0.5)) m.labels = strMap(r, names, VALUES);
  if (chance(r, 0.3)) m.annotations = strMap(r, names, VALUES);
  if (chance(r, 0.2)) m.finalizers = mostlyUnique(r, some(r, 3, () => pick(r, names)), bySelf);
  if (allowManaged && chance(r, 0.1)) {
    m.managedFields = pick(r, [[{}], [], 'garbage', [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }]]);
  }
  return m;
}

/** An object of the marker schema; some values are deliberately invalid. */
function markerObject(r: Rand, forUpdate: boolean): JsonObject {
  const o: JsonObject = { apiVersion: chance(r, 0.02) ? 'v2' : 'v1', kind: 'Thing', metadata: metadata(r, forUpdate) };
  const add = (k: string, p: number, make: () => JsonValue) => {
    if (chance(r, p)) o[k] = chance(r, 0.03) ? pick(r, [null, 'wrong-type', 7]) : make();
  };
  add('data', 0.6, () => strMap(r, names, [...VALUES, null]));
  add('atomicMap', 0.3, () => strMap(r, names, VALUES));
  add('struct', 0.4, () => {
    const s = strMap(r, ['a', 'b'], [...VALUES, null]);
    if (chance(r, 0.4)) s.deep = chance(r, 0.2) ? {} : strMap(r, ['x'], VALUES);
    return s;
  });
  add('atomicStruct', 0.3, () => strMap(r, ['a', 'b'], VALUES));
  add('set', 0.4, () => mostlyUnique(r, some(r, 4, () => pick(r, names)), bySelf));
  add('atomicList', 0.3, () => some(r, 3, () => listItem(r, false)));
  add('listMap', 0.7, () => mostlyUnique(r, some(r, 4, () => listItem(r, true)), byName));
  add('multiKey', 0.3, () =>
    mostlyUnique(
      r,
      some(r, 3, () => {
        const it: JsonObject = { port: Math.floor(r() * 2) };
        if (chance(r, 0.5)) it.protocol = pick(r, ['TCP', 'UDP']);
        if (chance(r, 0.5)) it.v = pick(r, VALUES);
        return it;
      }),
      byPort,
    ),
  );
  add('mergeKeyed', 0.3, () => mostlyUnique(r, some(r, 3, () => ({ name: pick(r, names), v: pick(r, VALUES) })), byName));
  add('plainList', 0.3, () => some(r, 3, () => pick(r, VALUES)));
  add('free', 0.3, () => freeJson(r, 2));
  add('preserved', 0.3, () => ({ known: pick(r, VALUES), ...strMap(r, names, VALUES) }));
  add('replicas', 0.4, () => Math.floor(r() * 3));
  if (chance(r, 0.05)) o.undeclared = pick(r, VALUES);
  return o;
}

function deploymentObject(r: Rand, forUpdate: boolean): JsonObject {
  const containers = mostlyUnique(r, some(r, 3, () => {
    const c: JsonObject = { name: pick(r, ['c0', 'c1', 'c2']), image: pick(r, VALUES) };
    if (chance(r, 0.6)) c.env = mostlyUnique(r, some(r, 4, () => ({ name: pick(r, names), value: pick(r, VALUES) })), byName);
    if (chance(r, 0.4)) {
      const ports = some(r, 2, () => {
        const p: JsonObject = { containerPort: pick(r, [80, 443]) };
        if (chance(r, 0.5)) p.protocol = pick(r, ['TCP', 'UDP']);
        return p;
      });
      c.ports = mostlyUnique(r, ports, byContainerPort);
    }
    if (chance(r, 0.3)) c.resources = { limits: strMap(r, ['cpu', 'memory'], ['1', '2']) };
    if (chance(r, 0.2)) c.args = some(r, 2, () => pick(r, VALUES));
    return c;
  }), byName);
  const spec: JsonObject = { selector: { matchLabels: { app: 'x' } } };
  if (chance(r, 0.6)) spec.replicas = Math.floor(r() * 4);
  if (chance(r, 0.3)) spec.strategy = { type: pick(r, ['Recreate', 'RollingUpdate']) };
  spec.template = { metadata: { labels: { app: 'x' } }, spec: { containers } };
  const o: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: metadata(r, forUpdate), spec };
  if (forUpdate && chance(r, 0.3)) o.status = { replicas: Math.floor(r() * 3) };
  return o;
}

function schemalessObject(r: Rand, forUpdate: boolean): JsonObject {
  const o: JsonObject = { apiVersion: 'v1', kind: 'Blob', metadata: metadata(r, forUpdate) };
  for (const n of names) if (chance(r, 0.5)) o[n] = freeJson(r, 3);
  return o;
}

export interface CorpusKind {
  name: string;
  apiVersion: string;
  /** The schemas the kind switches between (more than one: topology changes). */
  schemas: (SchemaObject | undefined)[];
  object(r: Rand, forUpdate: boolean): JsonObject;
}

export const CORPUS_KINDS: CorpusKind[] = [
  { name: 'markers', apiVersion: 'v1', schemas: [markerSchema(false), markerSchema(true)], object: markerObject },
  { name: 'deployment', apiVersion: 'apps/v1', schemas: [definitions['io.k8s.api.apps.v1.Deployment']], object: deploymentObject },
  { name: 'schemaless', apiVersion: 'v1', schemas: [undefined], object: schemalessObject },
  { name: 'markers-wide', apiVersion: 'v1', schemas: [markerSchema(false), markerSchema(true)], object: wide(markerObject) },
  { name: 'deployment-wide', apiVersion: 'apps/v1', schemas: [definitions['io.k8s.api.apps.v1.Deployment']], object: wide(deploymentObject) },
];

function outcome(result: unknown): string {
  try {
    return canonicalJSON(JSON.parse(JSON.stringify(result)) as JsonValue);
  } catch (e) {
    return `unserializable: ${(e as Error).message}`;
  }
}

function errorOutcome(error: unknown): string {
  const e = error as { reason?: string; message?: string; conflicts?: { items: unknown; message(): string } };
  if (e.conflicts) return `Conflict ${e.conflicts.message()}`;
  return `${e.reason}: ${e.message}`;
}

/**
 * Runs `steps` random operations on one object of `kind` and returns one
 * line per step. Managers `a`, `b` and `kubectl` (which also exercises the
 * client-side apply layers) take turns applying (sometimes forced) and updating.
 */
export function runCorpus(factory: FieldManagerFactory, kind: CorpusKind, seed: number, steps: number): string[] {
  const r = seededRandom(seed);
  let t = Date.UTC(2025, 0, 1);
  const now = () => new Date(t);
  const fms = kind.schemas.map((schema) => factory({ apiVersion: kind.apiVersion, schema, definitions, now }));
  let live: JsonObject | undefined;
  const lines: string[] = [];
  for (let i = 0; i < steps; i++) {
    t += Math.floor(r() * 3) * 1000;
    const fm = pick(r, fms);
    const manager = pick(r, ['a', 'b', 'kubectl']);
    const isApply = chance(r, 0.65);
    const obj = kind.object(r, !isApply);
    if (manager === 'kubectl' && chance(r, 0.3)) {
      const meta = obj.metadata as JsonObject;
      meta.annotations = { ...(meta.annotations as JsonObject | undefined), 'kubectl.kubernetes.io/last-applied-configuration': canonicalJSON(obj) };
    }
    try {
      if (isApply) {
        const force = chance(r, 0.3);
        const res = fm.apply(live, obj, manager, force);
        if (res.ok) {
          live = res.object;
          lines.push(`${i} apply ${manager} ${force} ok ${outcome(live)}`);
        } else {
          lines.push(`${i} apply ${manager} ${force} ${errorOutcome(res.error)}`);
        }
      } else {
        live = fm.update(live, obj, manager);
        lines.push(`${i} update ${manager} ${outcome(live)}`);
      }
    } catch (e) {
      lines.push(`${i} threw ${(e as Error).message}`);
    }
  }
  return lines;
}

/** A 53-bit hash of the lines (cyrb53), to pin a corpus run in a test without storing it. */
export function digest(lines: readonly string[]): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) {
      const ch = line.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ 10, 2654435761);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}

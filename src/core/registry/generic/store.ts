/**
 * The generic registry store (k8s.io/apiserver/pkg/registry/generic/registry.Store):
 * runs a resource's strategy in fixed order around the revisioned storage and
 * turns storage errors into API Status errors. One Store per resource type.
 */
import { newUUID } from '../../util/uuid';
import { canonicalMetadata, jsonEqual } from '../../api/equality';
import { formatTime, isObject, type KubeObject, type ObjectMeta } from '../../api/types';
import type { UserInfo } from '../../auth/user';
import {
  forbidden,
  invalid,
  newAlreadyExists,
  newConflict,
  newInvalid,
  newNotFound,
  optimisticLockErrorMsg,
  StatusError,
  type FieldError,
  type GroupResource,
} from '../../errors';
import { isStorageError, type KeyValue, type Storage } from '../../storage/interface';
import type { Clock, RandomSource } from '../../util/clock';
import { validateObjectMetaForCreate, validateObjectMetaUpdate } from '../../validation/objectMeta';
import { newFieldManager, type FieldManager, type FieldManagerConfig } from '../../fieldmanager';
import type { ResourceType, SchemaObject } from '../types';
import { namespacePrefix, objectKey, resourcePrefix } from './keys';
import type { FinishFunc, ResourceStrategy, StrategyContext } from './strategy';

export interface StoreDeps {
  storage: Storage;
  clock: Clock;
  random: RandomSource;
  /** Whether a namespace exists and may receive new objects (checked on namespaced create); undefined when it answered at once. */
  checkNamespace(namespace: string, object?: { gr: GroupResource; name: string }): Promise<void> | void;
}

/** The kind's schema and the definitions its refs point into (absent for schemaless kinds). */
export interface KindSchema {
  root: SchemaObject | undefined;
  definitions: Record<string, SchemaObject>;
}

/** A write as validating admission sees it, just before storage (kube's createValidation / updateValidation / deleteValidation). */
export interface AdmissionReview {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** The object's kind when it is not the resource's own (a pods/binding Binding, a pods/exec PodExecOptions). */
  kind?: string;
  /** The object to be stored (undefined for DELETE). */
  object?: KubeObject;
  /** The stored object (undefined for CREATE). */
  oldObject?: KubeObject;
  dryRun: boolean;
  subresource: string;
  /** Who writes, on a component's view with an identity of its own (withUser): a controller with --use-service-account-credentials. */
  user?: UserInfo;
}

/** Validating admission for the writes of one request; throws to deny. */
export interface ValidatingAdmission {
  validate(review: AdmissionReview): Promise<void>;
}

/**
 * Mutating admission for the writes of one request (admission.MutationInterface):
 * may change review.object; throws to deny. A create runs it after the
 * strategy's defaulter and prepareForCreate and before validation; an update
 * runs it on the next object before the strategy prepares it; a delete runs
 * it before validating admission (it may only refuse).
 */
export interface MutatingAdmission {
  /** Undefined when no plugin had anything to do (the write continues in the same turn). */
  admit(review: AdmissionReview): Promise<void> | undefined;
}

/** Where a request's storage writes are recorded (its trace: key and resourceVersion before and after). */
export type WriteTrace = (entry: { stage: string; message: string; details?: Record<string, unknown> }) => void;

export interface WriteOptions {
  dryRun?: boolean;
  subresource?: string;
}

export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: DeletePreconditions;
  /** The deprecated orphanDependents=false was sent (the response is then 202 while the object remains). */
  orphanDependentsFalse?: boolean;
  /** ignoreStoreReadErrorWithClusterBreakingPotential: only for objects storage cannot read. */
  ignoreStoreReadErrors?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  object: KubeObject;
  /** False when the object is only marked for deletion (finalizers pending). */
  deleted: boolean;
}

export interface StoreListOptions {
  /** Storage revision to read at (0 = latest). */
  revision?: number;
  /** Maximum number of matching items (0 = all). */
  limit?: number;
  /** Resume from this storage key (continue tokens). */
  startKey?: string;
  predicate?: (obj: KubeObject) => boolean;
}

export interface StoreListResult {
  items: KubeObject[];
  revision: number;
  /** Storage key to continue from when more items remain. */
  nextKey?: string;
  /** Items left after this chunk; only without a predicate. */
  remainingItemCount?: number;
}

/** What a create wrote: the stored key-value, or for a dry run the object that would have been stored. */
export type CreateResult = { kv: KeyValue; object?: undefined } | { kv?: undefined; object: KubeObject };

/** A list as stored key-values, for writing responses without decoding every item. */
export interface StoreKvListResult extends Omit<StoreListResult, 'items'> {
  kvs: KeyValue[];
  /** The decoded items, when a predicate needed them (same order as kvs). */
  items?: KubeObject[];
}

export interface UpdateResult {
  object: KubeObject;
  created: boolean;
  /** The stored key-value `object` is, when the write left it stored as it is: a response can be written from it without encoding. */
  kv?: KeyValue;
}

/**
 * Computes the next state of an object from the current one (undefined when
 * absent). Returning undefined from a tryUpdate for an absent object means 404.
 */
export type UpdateFunc = (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject;

/** Scratch for the random bytes of a name suffix, read at once: one array for every create, not one each. */
const randomBytes = new Uint8Array(5);

const hasOwn = Object.prototype.hasOwnProperty;

/** Keys whose last applied object a store keeps decoded (bounded: an object can be large, and a browser worker holds them all). */
const lastWrittenLimit = 16;

const nameSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Objects are stored in the order kube-apiserver encodes them (kind,
 * apiVersion, metadata in Go field order, then the rest) with an empty
 * resourceVersion slot, so a read only parses and fills the slot in place.
 */
/** A stored value that cannot be decoded (the storage's corrupt-object error); reads answer 500. */
export class CorruptObjectError extends StatusError {
  constructor(readonly key: string, cause: string) {
    const message = `Internal error occurred: key: ${key}, corrupt object: ${cause}`;
    super({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500, details: { causes: [{ message: `key: ${key}, corrupt object: ${cause}` }] } });
  }
}

function decodeStored(kv: KeyValue): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(kv.value) as KubeObject;
  } catch (e) {
    throw new CorruptObjectError(kv.key, e instanceof Error ? e.message : String(e));
  }
  if (!isObject(obj) || !isObject(obj.metadata)) throw new CorruptObjectError(kv.key, 'not an object with metadata');
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/**
 * The head of a value in the layout encodeStored writes: kind and apiVersion
 * (plain strings), then the metadata fields canonicalMetadata writes before
 * resourceVersion (strings), then the empty resourceVersion slot. One regular
 * expression: the engine scans a string several times faster than a loop of
 * charCodeAt and startsWith, and every read of an object runs this. Each
 * alternative is decided by the next character, so nothing backtracks.
 */
const storedHead = /^\{"kind":"([^"\\]*)","apiVersion":"([^"\\]*)","metadata":\{(?:"(?:name|generateName|namespace|selfLink|uid)":"(?:[^"\\]|\\.)*",)*"resourceVersion":""[,}]/;
/** The metadata fields of a matched head, one by one. */
const headField = /"(name|generateName|namespace|selfLink|uid)":("(?:[^"\\]|\\.)*")/g;

/**
 * Where a stored value's metadata starts (the comma before `"metadata"`) and
 * where its empty resourceVersion slot is (the first of its two quotes), when
 * the value has the layout encodeStored writes; undefined for anything else,
 * which then takes the parse-and-encode path. With `head`, also collects
 * kind, apiVersion and the metadata fields written before resourceVersion.
 */
function storedLayout(v: string, head?: Record<string, string>): { metadataAt: number; slotAt: number } | undefined {
  const m = storedHead.exec(v);
  if (!m) return undefined;
  const kind = m[1]!;
  const apiVersion = m[2]!;
  // kind and apiVersion hold no quote or backslash: their lengths place the metadata.
  const metadataAt = 26 + kind.length + apiVersion.length;
  if (head) {
    head['kind'] = kind;
    head['apiVersion'] = apiVersion;
    const fields = m[0].slice(metadataAt + 13);
    headField.lastIndex = 0;
    for (let f = headField.exec(fields); f; f = headField.exec(fields)) head[f[1]!] = JSON.parse(f[2]!) as string;
  }
  return { metadataAt, slotAt: m[0].length - 3 };
}

/** What a stored value says about itself before its resourceVersion. */
export interface StoredObjectHead {
  kind: string;
  apiVersion: string;
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
}

/**
 * kind, apiVersion, name, namespace and uid of a stored value, read off its
 * first bytes without parsing the rest (a watcher that only indexes objects
 * needs no more); undefined when the value is not in the stored layout.
 */
export function storedObjectHead(value: string): StoredObjectHead | undefined {
  const head: Record<string, string> = {};
  return storedLayout(value, head) ? (head as unknown as StoredObjectHead) : undefined;
}

/** ObjectMeta fields in the order canonicalMetadata writes them. */
const metadataOrder = Object.keys(canonicalMetadata({ name: 0, generateName: 0, namespace: 0, selfLink: 0, uid: 0, resourceVersion: 0, generation: 0, creationTimestamp: 0, deletionTimestamp: 0, deletionGracePeriodSeconds: 0, labels: 0, annotations: 0, ownerReferences: 0, finalizers: 0, managedFields: 0 }));
const metadataFields = new Set(metadataOrder);

/** canonicalMetadata({ ...meta, resourceVersion: '' }), in one pass over meta. */
function storedMetadata(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = {};
  const m = meta as Record<string, unknown>;
  for (let i = 0; i < metadataOrder.length; i++) {
    const k = metadataOrder[i]!;
    if (k === 'resourceVersion') out[k] = '';
    else if (m[k] !== undefined) out[k] = m[k];
  }
  for (const k in m) if (!metadataFields.has(k) && m[k] !== undefined) out[k] = m[k];
  return out as ObjectMeta;
}

function encodeStored(obj: KubeObject): string {
  const stored: Record<string, unknown> = { kind: obj.kind, apiVersion: obj.apiVersion, metadata: storedMetadata(obj.metadata) };
  for (const k in obj) if (k !== 'kind' && k !== 'apiVersion' && k !== 'metadata') stored[k] = obj[k];
  return JSON.stringify(stored);
}

/**
 * Freezes a value that is exactly what JSON.parse of its JSON.stringify would
 * give (plain objects and arrays, strings, finite numbers, booleans, null;
 * no undefined, no -0): false, and left unusable as a decode, for anything
 * else. A false result may leave parts of the value frozen.
 */
function freezeJson(v: unknown): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!freezeJson(v[i])) return false;
  } else {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    const o = v as Record<string, unknown>;
    for (const k in o) if (k === '__proto__' || !freezeJson(o[k])) return false;
  }
  Object.freeze(v);
  return true;
}

function withoutResourceVersion(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

/** Everything but metadata and status: what a generation bump tracks. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export class Store {
  readonly prefix: string;
  readonly gr: GroupResource;

  private readonly fieldManagers = new Map<string, FieldManager>();
  /** Set on a request's view of the store (withAdmission); controllers write without it. */
  private admission: ValidatingAdmission | undefined;
  /** Set with admission: the mutating phase before it. */
  private mutatingAdmission: MutatingAdmission | undefined;
  /** Set on a request's view of the store (withTrace). */
  private writeTrace: WriteTrace | undefined;
  /** Set on a request's view of the store (withUser): strategies read it (a CSR records its requestor). */
  private requestUser: UserInfo | undefined;
  /** Set on a component's view (asManager): the field manager its creates and updates record, as an API client's. */
  private updateManager: string | undefined;
  /** `{"kind":…,"apiVersion":…` as this store serves its objects. */
  private readonly servedHead: string;
  /**
   * The decoded objects of the values applies wrote last, by key, frozen:
   * the next apply of the object starts from it instead of parsing the
   * stored text again. One entry per key (the newest value), a few keys.
   */
  private readonly lastWritten = new Map<string, { kv: KeyValue; object: KubeObject }>();

  constructor(
    readonly type: ResourceType,
    readonly strategy: ResourceStrategy,
    private readonly deps: StoreDeps,
    readonly schema: KindSchema = { root: undefined, definitions: {} },
  ) {
    this.prefix = resourcePrefix(type.group, type.resource);
    this.gr = { group: type.group, resource: type.resource };
    this.servedHead = `{"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(this.apiVersion)}`;
  }

  /** The store every view is made from (a view inherits it from its prototype). */
  private readonly root: Store = this;
  /** True, and own, on the views Store.view made from the root, which have nothing but their request settings (own on the root too). */
  private plainView = false;

  /**
   * A view of this store with the same request settings, made straight from
   * the root store: every view has the root as prototype and the same own
   * fields in the same order, so views share one shape (a view made from a
   * view would turn the inner view into a prototype, a new shape per request
   * that every property lookup in the store's methods then misses on). A
   * store wrapped otherwise (an escalation guard overriding its writes) is
   * kept as the view's prototype, wrapper and all.
   */
  private view(): Store {
    // The root and its plain views hold `plainView` themselves; a wrapper made from one only inherits it.
    const plain = hasOwn.call(this, 'plainView') && (this.plainView || this === this.root);
    const view = Object.create(plain ? this.root : this) as Store;
    if (plain) view.plainView = true;
    view.admission = this.admission;
    view.mutatingAdmission = this.mutatingAdmission;
    view.requestUser = this.requestUser;
    view.writeTrace = this.writeTrace;
    view.updateManager = this.updateManager;
    return view;
  }

  /**
   * This store as a component writing through the API sees it (kube-controller-manager, a kubelet): its creates and
   * updates are recorded in managedFields as Updates by `manager`, on the subresource they write.
   */
  asManager(manager: string): Store {
    const view = this.view();
    view.updateManager = manager;
    return view;
  }

  /** This store as one request sees it: its writes pass mutating, then validating admission before storage. */
  withAdmission(admission: ValidatingAdmission, mutating?: MutatingAdmission): Store {
    const view = this.view();
    view.admission = admission;
    view.mutatingAdmission = mutating;
    return view;
  }

  /** This store as one request sees it: its strategies see the requesting user. */
  withUser(user: UserInfo): Store {
    const view = this.view();
    view.requestUser = user;
    return view;
  }

  /** This store as one request sees it: each storage write is recorded in the request's trace. */
  withTrace(trace: WriteTrace): Store {
    const view = this.view();
    view.writeTrace = trace;
    return view;
  }

  /** Records one storage write (or why none happened) of this request. */
  private traceWrite(operation: string, key: string, before: number | undefined, after: number | undefined, message: string): void {
    this.writeTrace?.({
      stage: 'storage',
      message,
      details: { operation, key, ...(before !== undefined ? { resourceVersionBefore: String(before) } : {}), ...(after !== undefined ? { resourceVersionAfter: String(after) } : {}) },
    });
  }

  /** Resolves the schema's `#/definitions/...` refs; one function per store, so schema walkers can cache by it. */
  readonly resolveSchema = (ref: string): SchemaObject | undefined => this.schema.definitions[ref.replace(/^#\/definitions\//, '')];

  /** The field manager for writes through one endpoint ('' = the main resource). */
  fieldManager(subresource = ''): FieldManager {
    let fm = this.fieldManagers.get(subresource);
    if (!fm) {
      fm = newFieldManager({
        apiVersion: this.type.group ? `${this.type.group}/${this.type.version}` : this.type.version,
        schema: this.schema.root,
        definitions: this.schema.definitions,
        subresource,
        // A custom resource's create starts from an Unstructured with nothing set (its spec is added, and owned, whole);
        // a built-in kind's from its Go zero value.
        ...(this.type.custom ? { zeroObject: { metadata: {} } } : this.type.zero ? { zeroObject: this.type.zero as FieldManagerConfig['zeroObject'] } : {}),
        now: () => this.deps.clock.now(),
      });
      this.fieldManagers.set(subresource, fm);
    }
    return fm;
  }

  get namespaced(): boolean {
    return this.type.scope === 'Namespaced';
  }

  get storage(): Storage {
    return this.deps.storage;
  }

  key(namespace: string, name: string): string {
    return objectKey(this.prefix, this.namespaced ? namespace : '', name);
  }

  /** Key prefix of a collection: one namespace, or all of them when namespace is ''. */
  collectionPrefix(namespace: string): string {
    return namespacePrefix(this.prefix, this.namespaced ? namespace : '');
  }

  decode(kv: KeyValue): KubeObject {
    const stored = decodeStored(kv);
    const obj = this.strategy.fromStorage ? this.strategy.fromStorage(stored) : stored;
    // Objects are stored in one version; serve them as the requested one.
    obj.kind = this.type.kind;
    obj.apiVersion = this.apiVersion;
    return obj;
  }

  /**
   * The JSON text of a stored object as served, exactly
   * `JSON.stringify(this.decode(kv))`, without parsing it: every stored value
   * is JSON.stringify output, which encodes again to the same text, so only
   * kind, apiVersion and the resourceVersion slot change. With `item`, kind
   * and apiVersion are left out, as a typed list writes its items. Undefined
   * when the value does not have the layout encodeStored writes.
   */
  servedJson(kv: KeyValue, item = false): string | undefined {
    // A converted object is not the stored text.
    if (this.strategy.fromStorage) return undefined;
    const v = kv.value;
    const layout = storedLayout(v);
    if (!layout) return undefined;
    const head = item ? '{' + v.slice(layout.metadataAt + 1, layout.slotAt) : this.servedHead + v.slice(layout.metadataAt, layout.slotAt);
    return `${head}"${kv.modRevision}"${v.slice(layout.slotAt + 2)}`;
  }

  /**
   * servedJson pushed piece by piece onto out (the text before the
   * resourceVersion slot, the revision, the rest), for a caller joining many
   * of them (a string array) or writing them as bytes (a Utf8Builder); false,
   * with nothing pushed, when the value does not have the stored layout.
   */
  appendServedJson(kv: KeyValue, item: boolean, out: { push(...texts: string[]): unknown }): boolean {
    if (this.strategy.fromStorage) return false;
    const v = kv.value;
    const layout = storedLayout(v);
    if (!layout) return false;
    if (item) out.push('{', v.slice(layout.metadataAt + 1, layout.slotAt));
    else out.push(this.servedHead, v.slice(layout.metadataAt, layout.slotAt));
    out.push('"', String(kv.modRevision), '"', v.slice(layout.slotAt + 2));
    return true;
  }

  /**
   * decode(kv) for a reader that changes nothing it is given: the object an
   * apply wrote when kv is that write's value (frozen, shared), a fresh decode otherwise.
   */
  private decodeShared(kv: KeyValue): KubeObject {
    const known = this.lastWritten.get(kv.key);
    if (known && (known.kv === kv || (known.kv.modRevision === kv.modRevision && known.kv.value === kv.value))) return known.object;
    return this.decode(kv);
  }

  /**
   * Keeps obj, just written as kv, as decode(kv) would give it (kind and
   * apiVersion as served, metadata in stored order with the revision), frozen,
   * when nothing converts it on the way to storage and it is plain JSON.
   */
  private rememberWritten(kv: KeyValue, obj: KubeObject): void {
    this.lastWritten.delete(kv.key);
    if (this.strategy.toStorage || this.strategy.fromStorage) return;
    const { kind, apiVersion, metadata, ...rest } = obj;
    // Without them the stored text is laid out otherwise, and so is its decode.
    if (typeof kind !== 'string' || typeof apiVersion !== 'string' || !isObject(metadata)) return;
    const decoded = { kind: this.type.kind, apiVersion: this.apiVersion, metadata: canonicalMetadata({ ...metadata, resourceVersion: String(kv.modRevision) }), ...rest } as KubeObject;
    if (!freezeJson(decoded)) return;
    if (this.lastWritten.size >= lastWrittenLimit) this.lastWritten.delete(this.lastWritten.keys().next().value!);
    this.lastWritten.set(kv.key, { kv, object: decoded });
  }

  /** The stored text of an object, in the storage layout. */
  private encode(obj: KubeObject): string {
    return encodeStored(this.strategy.toStorage ? this.strategy.toStorage(obj) : obj);
  }

  private get apiVersion(): string {
    return this.type.group ? `${this.type.group}/${this.type.version}` : this.type.version;
  }

  private ctx(subresource = ''): StrategyContext {
    return { now: this.deps.clock.now(), subresource, random: this.deps.random, ...(this.requestUser ? { user: this.requestUser } : {}) };
  }

  private kindRef() {
    return { group: this.type.group, kind: this.type.kind };
  }

  private generateName(prefix: string): string {
    const bytes = this.deps.random.fill(randomBytes);
    let s = '';
    for (const b of bytes) s += nameSuffixAlphabet[b % nameSuffixAlphabet.length];
    // The apiserver truncates long prefixes so the name stays within 63 characters.
    return prefix.slice(0, 58) + s;
  }

  private newUid(): string {
    return newUUID(this.deps.random);
  }

  /** Not async: the storage's promise itself, without a wrapper's extra turns. */
  getKv(namespace: string, name: string, revision?: number): Promise<KeyValue | undefined> {
    return this.deps.storage.get(this.key(namespace, name), revision);
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    const kv = await this.getKv(namespace, name);
    if (!kv) throw newNotFound(this.gr, name);
    return this.decode(kv);
  }

  /**
   * Lists a collection at one revision (latest when revision is 0), filtered
   * by predicate, at most limit matches from startKey on. With a predicate the
   * store keeps reading pages until it has limit matches, as the etcd3 store does.
   */
  async list(namespace: string, options: StoreListOptions = {}): Promise<StoreListResult> {
    const { kvs, items, ...rest } = await this.listKvs(namespace, options);
    return { items: items ?? kvs.map((kv) => this.decode(kv)), ...rest };
  }

  /** list as stored key-values; items are decoded only to evaluate a predicate. */
  async listKvs(namespace: string, options: StoreListOptions = {}): Promise<StoreKvListResult> {
    const prefix = this.collectionPrefix(namespace);
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const predicate = options.predicate;
    let revision = options.revision ?? 0;
    let startKey = options.startKey;
    const kvs: KeyValue[] = [];
    const items: KubeObject[] | undefined = predicate ? [] : undefined;
    const pageSize = limit ? Math.max(limit, 100) : 0;
    for (;;) {
      const page = await this.deps.storage.range(prefix, { revision, limit: predicate ? pageSize : limit, startKey });
      revision = page.revision;
      for (let i = 0; i < page.kvs.length; i++) {
        const kv = page.kvs[i]!;
        if (predicate) {
          const obj = this.decode(kv);
          if (!predicate(obj)) continue;
          items!.push(obj);
        }
        kvs.push(kv);
        if (limit && kvs.length === limit) {
          const rest = page.kvs.length - i - 1;
          const more = rest > 0 || page.more;
          const nextKey = more ? kv.key + '\u0000' : undefined;
          const remaining = predicate ? undefined : page.count - (i + 1);
          return { kvs, items, revision, nextKey, remainingItemCount: more ? remaining : undefined };
        }
      }
      if (!page.more || !limit) return { kvs, items, revision };
      startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
    }
  }

  /**
   * Create (registry.Store.Create): BeforeCreate (prepare, meta, validate),
   * then a storage create that fails with AlreadyExists.
   */
  async create(namespace: string, obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const written = await this.createStored(namespace, obj, options);
    return written.kv ? this.decode(written.kv) : written.object;
  }

  /**
   * create, answering with the stored key-value, so a response can be written from it without a decode.
   * `defaulted`: the object is a decoded request body, which the strategy's defaulter has seen.
   */
  async createStored(namespace: string, obj: KubeObject, options: WriteOptions & { defaulted?: boolean } = {}): Promise<CreateResult> {
    const ctx = this.ctx(options.subresource);
    const meta = obj.metadata;
    if (this.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = this.generateName(meta.generateName);
    meta.uid = this.newUid();
    meta.creationTimestamp = formatTime(ctx.now);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (this.strategy.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    // The server's own writes are not decoded: the store defaults them.
    if (!options.defaulted) this.strategy.defaulter?.(obj);
    // A component's create is an Update by it, of the decoded (defaulted) object, before the strategy prepares it.
    if (this.updateManager) {
      const tracked = this.fieldManager(options.subresource ?? '').update(undefined, obj as never, this.updateManager) as unknown as KubeObject;
      meta.managedFields = tracked.metadata.managedFields;
    }
    this.strategy.prepareForCreate?.(obj, ctx);
    const admitted = this.mutatingAdmission?.admit({ operation: 'CREATE', object: obj, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });
    if (admitted) await admitted;
    // Only kinds with an asynchronous check (a CSR's signature) take the extra await.
    const checking = this.strategy.checkAsync?.(obj, undefined, ctx);
    if (checking) await checking;
    ctx.dryRun = !!options.dryRun;
    const finish = this.strategy.beginCreate?.(obj, ctx);
    let stored = false;
    try {
      const errs: FieldError[] = [
        ...validateObjectMetaForCreate(meta, { group: this.type.group, resource: this.type.resource, namespaced: this.namespaced }),
        ...(this.strategy.validate?.(obj, ctx) ?? []),
      ];
      if (errs.length) throw newInvalid(this.kindRef(), meta.name ?? meta.generateName ?? '', errs);
      // A namespace in the lister's cache answers at once: no turn to wait.
      const namespaceChecked = this.namespaced ? this.deps.checkNamespace(namespace, { gr: this.gr, name: meta.name ?? '' }) : undefined;
      if (namespaceChecked) await namespaceChecked;
      await this.admission?.validate({ operation: 'CREATE', object: obj, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });

      const key = this.key(namespace, meta.name!);
      if (options.dryRun) {
        if (await this.deps.storage.get(key)) throw newAlreadyExists(this.gr, meta.name!);
        this.traceWrite('create', key, undefined, undefined, `dry run: ${key} not written`);
        return { object: obj };
      }
      try {
        const kv = await this.deps.storage.create(key, this.encode(obj));
        stored = true;
        this.traceWrite('create', key, undefined, kv.modRevision, `created ${key} at resourceVersion ${kv.modRevision}`);
        return { kv };
      } catch (e) {
        if (isStorageError(e, 'KeyExists')) throw newAlreadyExists(this.gr, meta.name!);
        throw e;
      }
    } finally {
      finish?.(stored);
    }
  }

  /**
   * GuaranteedUpdate: reads the current object, computes the next state, and
   * writes it with compare-and-swap on the revision read, retrying when the
   * object changed underneath. A retry computes the next state again: one that
   * pins the resourceVersion read before (a PUT's, a patch's) is then a 409, while
   * a patch or apply carrying the live resourceVersion applies to the new object.
   */
  async update(
    namespace: string,
    name: string,
    tryUpdate: UpdateFunc,
    /** currentIntact: tryUpdate neither changes the object it is given nor returns one sharing values with it, so it is given the one decode */
    options: WriteOptions & { forceAllowCreate?: boolean; preconditions?: { uid?: string }; currentIntact?: boolean } = {},
  ): Promise<UpdateResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.storage.get(key);
      const current = kv ? (options.currentIntact ? this.decodeShared(kv) : this.decode(kv)) : undefined;
      // A PUT's own uid is a precondition (DefaultUpdatedObjectInfo.Preconditions), checked as etcd3's GuaranteedUpdate does.
      const uid = options.preconditions?.uid;
      if (uid && (current || this.strategy.allowCreateOnUpdate || options.forceAllowCreate) && uid !== (current?.metadata.uid ?? '')) {
        throw newConflict(this.gr, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current?.metadata.uid ?? ''}`);
      }
      // The update function may mutate what it is given: hand it a second decode, cheaper than a deep clone.
      let next = await tryUpdate(kv ? (options.currentIntact ? current : this.decode(kv)) : undefined);
      // A component's update is an Update by it, on the subresource it writes.
      if (this.updateManager && current) next = this.fieldManager(options.subresource ?? '').update(current as never, next as never, this.updateManager) as unknown as KubeObject;
      if (!current) {
        if (!this.strategy.allowCreateOnUpdate && !options.forceAllowCreate) throw newNotFound(this.gr, name);
        next.metadata.name = name;
        const created = await this.create(namespace, next, options);
        return { object: created, created: true };
      }
      const requested = next.metadata.resourceVersion;
      if (requested && requested !== current.metadata.resourceVersion) {
        throw newConflict(this.gr, name, optimisticLockErrorMsg);
      }
      const ctx = this.ctx(options.subresource ?? '');
      ctx.dryRun = !!options.dryRun;
      const checking = this.strategy.checkAsync?.(next, current, ctx);
      if (checking) await checking;
      let finish: FinishFunc | undefined;
      let stored = false;
      try {
        const admitted = this.mutatingAdmission?.admit({ operation: 'UPDATE', object: next, oldObject: current, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });
        if (admitted) await admitted;
        ({ next, finish } = this.prepareUpdate(next, current, ctx));
        await this.admission?.validate({ operation: 'UPDATE', object: next, oldObject: current, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });
        if (this.shouldDeleteDuringUpdate(next, current)) {
          if (options.dryRun) {
            this.traceWrite('delete', key, kv!.modRevision, undefined, `dry run: ${key} not deleted`);
            return { object: next, created: false };
          }
          try {
            const deletedKv = await this.deps.storage.delete(key, kv!.modRevision);
            const deleted = this.decode(deletedKv);
            stored = true;
            this.traceWrite('delete', key, kv!.modRevision, deletedKv.modRevision, `deleted ${key} (no finalizers left): resourceVersion ${kv!.modRevision} → ${deletedKv.modRevision}`);
            this.strategy.afterDelete?.(deleted, ctx);
            return { object: deleted, created: false };
          } catch (e) {
            if (isStorageError(e, 'Conflict') && attempt < 5) continue;
            throw this.interpretWriteError(e, name);
          }
        }
        // A write that changes nothing keeps the resourceVersion, as etcd3's store skips it.
        if (jsonEqual(withoutResourceVersion(next), withoutResourceVersion(current))) {
          this.traceWrite('update', key, kv!.modRevision, kv!.modRevision, `no change: ${key} not written, resourceVersion stays ${kv!.modRevision}`);
          // A shared decode is frozen: the caller gets its own.
          return Object.isFrozen(current) ? this.writtenResult(kv!) : { object: current, created: false };
        }
        if (options.dryRun) {
          this.traceWrite('update', key, kv!.modRevision, undefined, `dry run: ${key} not written`);
          return { object: next, created: false };
        }
        try {
          const written = await this.deps.storage.update(key, this.encode(next), kv!.modRevision);
          stored = true;
          if (options.currentIntact) this.rememberWritten(written, next);
          this.traceWrite('update', key, kv!.modRevision, written.modRevision, `updated ${key}: resourceVersion ${kv!.modRevision} → ${written.modRevision}`);
          return this.writtenResult(written);
        } catch (e) {
          if (isStorageError(e, 'Conflict') && attempt < 5) {
            this.traceWrite('update', key, kv!.modRevision, undefined, `${key} changed since resourceVersion ${kv!.modRevision}: read again and retried`);
            continue;
          }
          throw this.interpretWriteError(e, name);
        }
      } finally {
        finish?.(stored);
      }
    }
  }

  /**
   * storage.Interface.GuaranteedUpdate as a registry calls it directly, with
   * no strategy, validation or admission (a pod's binding): preconditions as
   * etcd3 checks them (a Conflict naming the invalid object), a missing key
   * 404, a no-op write skipped, retries on a concurrent change.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    tryUpdate: (current: KubeObject) => KubeObject,
    options: { dryRun?: boolean; preconditions?: DeletePreconditions } = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.storage.get(key);
      if (!kv) throw newNotFound(this.gr, name);
      const current = this.decode(kv);
      const pre = options.preconditions;
      const failed =
        pre?.uid && pre.uid !== current.metadata.uid ? `UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`
        : pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion ? `ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`
        : undefined;
      if (failed) throw newConflict(this.gr, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${failed}`);
      const next = tryUpdate(this.decode(kv));
      if (options.dryRun) return next;
      if (jsonEqual(withoutResourceVersion(next), withoutResourceVersion(current))) return current;
      try {
        const written = await this.deps.storage.update(key, this.encode(next), kv.modRevision);
        this.traceWrite('update', key, kv.modRevision, written.modRevision, `updated ${key}: resourceVersion ${kv.modRevision} → ${written.modRevision}`);
        return this.decode(written);
      } catch (e) {
        if (isStorageError(e, 'Conflict') && attempt < 5) continue;
        throw this.interpretWriteError(e, name);
      }
    }
  }

  /** This request's validating admission for a write a registry makes outside the strategy (the Binding a pods/binding create carries). */
  async admit(review: AdmissionReview): Promise<void> {
    await this.admission?.validate(review);
  }

  /** An update's result whose object is decoded only when asked for: a response written from the stored text never needs it. */
  private writtenResult(kv: KeyValue): UpdateResult {
    let object: KubeObject | undefined;
    const decode = () => (object ??= this.decode(kv));
    return {
      created: false,
      kv,
      get object() {
        return decode();
      },
      set object(value: KubeObject) {
        object = value;
      },
    };
  }

  private interpretWriteError(e: unknown, name: string): unknown {
    if (isStorageError(e, 'Conflict')) return newConflict(this.gr, name, optimisticLockErrorMsg);
    if (isStorageError(e, 'KeyNotFound')) return newNotFound(this.gr, name);
    return e;
  }

  /**
   * BeforeUpdate (k8s.io/apiserver/pkg/registry/rest): the request cannot move
   * generation; uid defaults to the stored one; creationTimestamp, and
   * deletionTimestamp once set, are the stored ones whatever the client sent
   * (clients re-serialise times as `.000Z` or `+00:00`); a grace period the
   * client dropped comes back. What is left different is then refused by
   * ValidateObjectMetaUpdate (a new uid, a deletionTimestamp on a live object).
   */
  private prepareUpdate(next: KubeObject, current: KubeObject, ctx: StrategyContext): { next: KubeObject; finish: FinishFunc | undefined } {
    const meta: ObjectMeta = isObject(next.metadata) ? next.metadata : {};
    next.metadata = meta;
    const old = current.metadata;
    if (!this.namespaced) delete meta.namespace;
    else if (!meta.namespace && old.namespace !== undefined) meta.namespace = old.namespace;
    if (meta.name === undefined) meta.name = old.name;
    delete meta.selfLink;
    meta.resourceVersion = current.metadata.resourceVersion;
    if (this.strategy.hasGeneration) meta.generation = old.generation ?? 1;
    else delete meta.generation;

    // Defaults again what mutating admission (or a write of the server's own) left out, as the webhook dispatcher does.
    this.strategy.defaulter?.(next);
    this.strategy.prepareForUpdate?.(next, current, ctx);

    if (!meta.uid) meta.uid = old.uid;
    if (old.creationTimestamp) meta.creationTimestamp = old.creationTimestamp;
    if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
    else if (meta.deletionTimestamp === null) delete meta.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined && (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null)) {
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    }

    const finish = ctx.subresource === '' ? this.strategy.beginUpdate?.(next, current, ctx) : undefined;
    if (this.strategy.hasGeneration && !jsonEqual(specOf(next), specOf(current))) meta.generation = (old.generation ?? 0) + 1;

    const errs: FieldError[] = [...validateObjectMetaUpdate(meta, old), ...(this.strategy.validateUpdate?.(next, current, ctx) ?? [])];
    if (old.deletionTimestamp) {
      const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
      if (added.length) {
        errs.push(forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
      }
    }
    if (errs.length) {
      finish?.(false);
      throw newInvalid(this.kindRef(), meta.name ?? '', errs);
    }
    return { next, finish };
  }

  private pendingFinalizers(obj: KubeObject): string[] {
    return [...(obj.metadata.finalizers ?? []), ...(this.strategy.deletionFinalizers?.(obj) ?? [])];
  }

  /**
   * shouldDeleteDuringUpdate: an update that takes the last finalizer off an object marked for deletion with
   * a zero grace period deletes it. One that never had finalizers (a pod in its grace period, whose kubelet
   * writes its status) is only updated.
   */
  private shouldDeleteDuringUpdate(obj: KubeObject, old: KubeObject): boolean {
    return !!old.metadata.deletionTimestamp && old.metadata.deletionGracePeriodSeconds === 0 && this.pendingFinalizers(old).length > 0 && this.pendingFinalizers(obj).length === 0;
  }

  /**
   * rest.BeforeDelete for kinds with graceful deletion: undefined when the
   * object is deleted (or only marked, for finalizers) without a grace
   * period; 'pending' when a longer or equal grace period is already
   * running (the request changes nothing); otherwise the new deletion
   * timestamp and period. A terminating object's period can only shorten.
   */
  private beforeDelete(current: KubeObject, requested: number | undefined): { deletionTimestamp: string; seconds: number } | 'pending' | undefined {
    if (!this.strategy.checkGracefulDelete) return undefined;
    if (requested !== undefined && requested < 0) requested = 1;
    const meta = current.metadata;
    if (meta.deletionTimestamp) {
      const running = meta.deletionGracePeriodSeconds;
      if (running === undefined || running === null || running === 0) return undefined;
      if (requested === undefined || requested >= running) return 'pending';
      const end = Date.parse(meta.deletionTimestamp) - running * 1000 + requested * 1000;
      return { deletionTimestamp: formatTime(new Date(end)), seconds: requested };
    }
    const seconds = this.strategy.checkGracefulDelete(current, requested);
    return { deletionTimestamp: formatTime(new Date(this.deps.clock.now().getTime() + seconds * 1000)), seconds };
  }

  /**
   * Delete: objects with finalizers are only marked (deletionTimestamp);
   * the last finalizer's removal deletes them in update.
   */
  async delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.storage.get(key);
      if (!kv) throw newNotFound(this.gr, name);
      let current: KubeObject;
      try {
        current = this.decode(kv);
      } catch (e) {
        if (!(e instanceof CorruptObjectError) || !options.ignoreStoreReadErrors) throw e;
        // The unsafe delete (corruptObjectDeleter): remove the unreadable value, ignoring finalizers and preconditions.
        await this.deps.storage.delete(key);
        const meta: ObjectMeta = { name };
        if (this.namespaced) meta.namespace = namespace;
        return { object: { kind: this.type.kind, apiVersion: this.apiVersion, metadata: meta }, deleted: true };
      }
      if (options.ignoreStoreReadErrors) {
        // The option is only for objects storage cannot read; this one reads back cleanly.
        throw newInvalid({ group: this.type.group, kind: this.type.resource }, name, [
          invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is exclusively used to delete corrupt object(s), try again by removing this option'),
        ]);
      }
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== current.metadata.uid) {
        throw newConflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw newConflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`);
      }
      // The mutating phase of a delete may only refuse it (a webhook's patch has nothing to apply to).
      const admitted = this.mutatingAdmission?.admit({ operation: 'DELETE', oldObject: current, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });
      if (admitted) await admitted;
      await this.admission?.validate({ operation: 'DELETE', oldObject: current, dryRun: !!options.dryRun, subresource: options.subresource ?? '', user: this.requestUser });
      const grace = this.beforeDelete(current, options.gracePeriodSeconds);
      if (grace === 'pending') return { object: current, deleted: false };
      // The propagation policy decides which garbage-collector finalizer the object carries (deletionFinalizersForGarbageCollection).
      const policy = options.propagationPolicy ?? this.strategy.defaultPropagationPolicy;
      let finalizers = [...(current.metadata.finalizers ?? [])];
      const gcFinalizer = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
      if (policy) finalizers = finalizers.filter((f) => (f !== 'foregroundDeletion' && f !== 'orphan') || f === gcFinalizer);
      if (gcFinalizer && !finalizers.includes(gcFinalizer)) finalizers.push(gcFinalizer);
      const finalizersChanged = !jsonEqual(finalizers, current.metadata.finalizers ?? []);
      const held = [...finalizers, ...(this.strategy.deletionFinalizers?.(current) ?? [])];
      if (grace) {
        // Graceful deletion (pods): deletionTimestamp is when the grace period ends; a zero period
        // with nothing holding the object is written, then deleted, as the registry does.
        const next = structuredClone(current);
        if (finalizers.length) next.metadata.finalizers = finalizers;
        else delete next.metadata.finalizers;
        next.metadata.deletionTimestamp = grace.deletionTimestamp;
        next.metadata.deletionGracePeriodSeconds = grace.seconds;
        if (options.dryRun) return { object: next, deleted: held.length === 0 && grace.seconds === 0 };
        let written: KeyValue;
        try {
          written = await this.deps.storage.update(key, encodeStored(next), kv.modRevision);
        } catch (e) {
          if (isStorageError(e, 'Conflict') && attempt < 5) continue;
          throw this.interpretWriteError(e, name);
        }
        if (held.length > 0 || grace.seconds > 0) return { object: this.decode(written), deleted: false };
        try {
          const deletedKv = await this.deps.storage.delete(key, written.modRevision);
          const deleted = this.decode(deletedKv);
          this.strategy.afterDelete?.(deleted, this.ctx());
          return { object: deleted, deleted: true };
        } catch (e) {
          // Another actor finished the deletion first (kubernetes#19403): the object is gone either way.
          if (isStorageError(e, 'KeyNotFound') || isStorageError(e, 'Conflict')) return { object: this.decode(written), deleted: true };
          throw this.interpretWriteError(e, name);
        }
      }
      if (held.length > 0) {
        if (current.metadata.deletionTimestamp && !finalizersChanged) {
          return { object: current, deleted: false };
        }
        const next = structuredClone(current);
        if (finalizers.length) next.metadata.finalizers = finalizers;
        else delete next.metadata.finalizers;
        if (!next.metadata.deletionTimestamp) {
          next.metadata.deletionTimestamp = formatTime(this.deps.clock.now());
          next.metadata.deletionGracePeriodSeconds = 0;
          if (this.strategy.hasGeneration) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
          this.strategy.prepareForDelete?.(next, this.ctx());
        }
        if (options.dryRun) return { object: next, deleted: false };
        try {
          const written = await this.deps.storage.update(key, this.encode(next), kv.modRevision);
          this.traceWrite('delete', key, kv.modRevision, written.modRevision, `marked ${key} for deletion (finalizers ${held.join(', ')}): resourceVersion ${kv.modRevision} → ${written.modRevision}`);
          return { object: this.decode(written), deleted: false };
        } catch (e) {
          if (isStorageError(e, 'Conflict') && attempt < 5) continue;
          throw this.interpretWriteError(e, name);
        }
      }
      if (options.dryRun) return { object: current, deleted: true };
      try {
        const deletedKv = await this.deps.storage.delete(key, kv.modRevision);
        this.traceWrite('delete', key, kv.modRevision, deletedKv.modRevision, `deleted ${key}: resourceVersion ${kv.modRevision} → ${deletedKv.modRevision}`);
        const deleted = this.decode(deletedKv);
        this.strategy.afterDelete?.(deleted, this.ctx());
        return { object: deleted, deleted: true };
      } catch (e) {
        if (isStorageError(e, 'Conflict') && attempt < 5) continue;
        throw this.interpretWriteError(e, name);
      }
    }
  }
}

/**
 * From YAML text to a create request: parse one object, find its resource
 * through discovery, and build the collection path, as `kubectl create -f`
 * does. Pure, so every message is checked without a browser.
 */
import { parseAllDocuments } from 'yaml';
import { collectionPath, objectPath, type KubeObject, type ResourceKind, type WriteVerb } from '../../api';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseManifest(text: string): Parsed<KubeObject> {
  const documents = parseAllDocuments(text).filter((d) => d.contents !== null || d.errors.length > 0);
  if (documents.length === 0) return { ok: false, message: 'the manifest is empty' };
  if (documents.length > 1) return { ok: false, message: `the manifest holds ${documents.length} documents; create one object at a time` };
  const document = documents[0]!;
  const error = document.errors[0];
  if (error) return { ok: false, message: `error parsing YAML: ${error.message}` };
  const value: unknown = document.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'the manifest must be a YAML mapping (an object)' };
  }
  const object = value as KubeObject;
  if (typeof object.apiVersion !== 'string' || object.apiVersion === '') {
    return { ok: false, message: "Object 'apiVersion' is missing" };
  }
  if (typeof object.kind !== 'string' || object.kind === '') {
    return { ok: false, message: "Object 'Kind' is missing" };
  }
  return { ok: true, value: object };
}

export interface CreateTarget {
  kind: ResourceKind;
  /** The namespace in the path; undefined for cluster-scoped kinds. */
  namespace: string | undefined;
  path: string;
}

/**
 * Finds where to POST the object: its kind in discovery, and for namespaced
 * kinds its own metadata.namespace or else the selected one.
 */
export function resolveTarget(object: KubeObject, kinds: readonly ResourceKind[], defaultNamespace: string): Parsed<CreateTarget> {
  const apiVersion = object.apiVersion ?? '';
  const kind = kinds.find((k) => k.kind === object.kind && (k.group === '' ? k.version : `${k.group}/${k.version}`) === apiVersion);
  if (!kind) {
    return { ok: false, message: `no matches for kind "${object.kind}" in version "${apiVersion}"` };
  }
  const ownNamespace = object.metadata?.namespace;
  const namespace = kind.namespaced ? (typeof ownNamespace === 'string' && ownNamespace !== '' ? ownNamespace : defaultNamespace) : undefined;
  return { ok: true, value: { kind, namespace, path: collectionPath(kind, namespace) } };
}

/** The request path of a write: the collection for create, the object itself for replace, apply and delete. */
export function writePath(verb: WriteVerb, target: CreateTarget, object: KubeObject): Parsed<string> {
  if (verb === 'create') return { ok: true, value: target.path };
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') return { ok: false, message: 'resource name may not be empty' };
  return { ok: true, value: objectPath(target.kind, target.namespace, name) };
}

/** kubectl's name for a kind in its output: `configmap`, `deployment.apps`. */
export function kubectlType(kind: ResourceKind): string {
  return kind.group === '' ? kind.kind.toLowerCase() : `${kind.kind.toLowerCase()}.${kind.group}`;
}

const PAST_TENSE: Record<WriteVerb, string> = { create: 'created', replace: 'replaced', apply: 'serverside-applied', delete: 'deleted' };

/**
 * The line kubectl prints after a write: `configmap/example created`,
 * `deployment.apps/web serverside-applied`, `configmap "example" deleted`,
 * with ` (server dry run)` when nothing was persisted.
 */
export function describeWritten(kind: ResourceKind, name: string, verb: WriteVerb, dryRun = false): string {
  const line = verb === 'delete' ? `${kubectlType(kind)} "${name}" deleted` : `${kubectlType(kind)}/${name} ${PAST_TENSE[verb]}`;
  return dryRun ? `${line} (server dry run)` : line;
}

/** The line kubectl prints after a create: `configmap/example created`, `deployment.apps/web created`. */
export function describeCreated(kind: ResourceKind, created: KubeObject): string {
  return describeWritten(kind, created.metadata?.name ?? '', 'create');
}

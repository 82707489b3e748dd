/**
 * Who owns which field, read off metadata.managedFields. Each entry's
 * fieldsV1 is a trie (`f:name` for a field, `k:{...}` for a keyed list item,
 * `v:value` for a set item, `i:n` for an index, `.` for the item itself);
 * the entries merge into one trie whose nodes list their owners. Walking the
 * object beside the trie gives every field's owners.
 */
import type { KubeObject } from '../../api';

export interface ManagerEntry {
  manager: string;
  operation: string;
  apiVersion?: string;
  time?: string;
  subresource?: string;
  /** Position in managedFields, which picks the colour. */
  index: number;
}

export interface OwnerTrie {
  owners: ManagerEntry[];
  children: Map<string, OwnerTrie>;
}

type FieldsV1 = { [key: string]: FieldsV1 };

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: FieldsV1;
}

export function managerEntries(object: KubeObject): ManagerEntry[] {
  const entries = (object.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  return entries.map((e, index) => ({
    manager: e.manager ?? '',
    operation: e.operation ?? '',
    apiVersion: e.apiVersion,
    time: e.time,
    subresource: e.subresource,
    index,
  }));
}

/** Merges every managedFields entry into one trie of owners. */
export function ownerTrie(object: KubeObject): OwnerTrie {
  const root: OwnerTrie = { owners: [], children: new Map() };
  const raw = (object.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  managerEntries(object).forEach((entry, i) => addFields(root, raw[i]?.fieldsV1 ?? {}, entry));
  return root;
}

function addFields(node: OwnerTrie, fields: FieldsV1, entry: ManagerEntry): void {
  for (const [key, sub] of Object.entries(fields)) {
    if (key === '.') {
      node.owners.push(entry);
      continue;
    }
    let child = node.children.get(key);
    if (!child) node.children.set(key, (child = { owners: [], children: new Map() }));
    // A leaf ({}) owns the field itself; a non-empty map owns what is inside (and `.` the item itself).
    if (Object.keys(sub).length === 0) child.owners.push(entry);
    else addFields(child, sub, entry);
  }
}

/** The trie node of a map field. */
export function fieldChild(node: OwnerTrie | undefined, name: string): OwnerTrie | undefined {
  return node?.children.get(`f:${name}`);
}

/** The trie node of a list item: by its key fields (k:), its value (v:) or its index (i:). */
export function itemChild(node: OwnerTrie | undefined, item: unknown, index: number): OwnerTrie | undefined {
  if (!node) return undefined;
  for (const [key, child] of node.children) {
    if (key.startsWith('k:')) {
      const fields = parseJson(key.slice(2));
      if (isRecord(fields) && isRecord(item) && Object.entries(fields).every(([k, v]) => JSON.stringify(item[k]) === JSON.stringify(v))) return child;
    } else if (key.startsWith('v:')) {
      if (JSON.stringify(parseJson(key.slice(2))) === JSON.stringify(item)) return child;
    } else if (key === `i:${index}`) {
      return child;
    }
  }
  return undefined;
}

/** `manager (Apply, 2026-01-01T00:00:00Z)`: what hovering a field shows for each owner. */
export function describeOwner(e: ManagerEntry): string {
  const parts = [e.operation, e.subresource ? `subresource ${e.subresource}` : undefined, e.apiVersion, e.time].filter(Boolean);
  return `${e.manager} (${parts.join(', ')})`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

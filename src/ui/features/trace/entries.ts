/**
 * The details of the server's fieldManager and storage trace entries, read
 * defensively (they arrive as JSON in a header): undefined when an entry
 * does not have the expected shape, so the panel falls back to the raw view.
 */
import type { TraceEntry } from '../../api';

export interface OwnershipChange {
  manager: string;
  operation: string;
  subresource?: string;
  gained: string[];
  lost: string[];
}

export interface FieldManagerAction {
  manager: string;
  operation: string;
  changes: OwnershipChange[];
  conflicts: { field: string; message: string }[];
}

export interface StorageWrite {
  operation: string;
  key: string;
  before?: string;
  after?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function fieldManagerAction(entry: TraceEntry): FieldManagerAction | undefined {
  const d = entry.details;
  if (!isRecord(d) || typeof d.manager !== 'string' || typeof d.operation !== 'string') return undefined;
  const changes = (Array.isArray(d.changes) ? d.changes : []).filter(isRecord).map((c) => ({
    manager: text(c.manager) ?? '',
    operation: text(c.operation) ?? '',
    subresource: text(c.subresource),
    gained: strings(c.gained),
    lost: strings(c.lost),
  }));
  const conflicts = (Array.isArray(d.conflicts) ? d.conflicts : []).filter(isRecord).map((c) => ({ field: text(c.field) ?? '', message: text(c.message) ?? '' }));
  return { manager: d.manager, operation: d.operation, changes, conflicts };
}

export function storageWrite(entry: TraceEntry): StorageWrite | undefined {
  const d = entry.details;
  if (!isRecord(d) || typeof d.key !== 'string' || typeof d.operation !== 'string') return undefined;
  return { operation: d.operation, key: d.key, before: text(d.resourceVersionBefore), after: text(d.resourceVersionAfter) };
}

/**
 * Wire shapes of the meta.k8s.io/v1 Table representation and of printers.
 * Objects arrive as decoded JSON (the shared KubeObject shape), so each
 * printer reads its kind-specific fields defensively.
 */

import type { KubeObject, ObjectMeta } from '../api/types';

export type { KubeObject, ObjectMeta };

/** A cell is a JSON scalar; kube's printers emit strings, int64s and booleans. */
export type TableCell = string | number | boolean | null;

/** metav1.TableColumnDefinition: every field is always serialized (no omitempty upstream). */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  /** OpenAPI format; `name` marks the column holding the object name. */
  format: string;
  description: string;
  /** 0 = always shown; higher values are shown by `kubectl get -o wide`. */
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
  /** PartialObjectMetadata (includeObject=Metadata), the object (Object), or null (None). */
  object: PartialObjectMetadata | KubeObject | null;
}

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** metav1.TableOptions.includeObject. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

export interface ToTableOptions {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** Reference time for every age column (the server's injected clock). */
  now: Date;
  /** Defaults to Metadata, as kube-apiserver does. */
  includeObject?: IncludeObjectPolicy;
  /**
   * List metadata of the list being converted. Omit it when converting a
   * single object (GET or one watch event): the Table then carries that
   * object's resourceVersion, as kube-apiserver does.
   */
  listMeta?: TableListMeta;
  /**
   * metav1.TableOptions.noHeaders: leave columnDefinitions empty. A watch
   * sends definitions with its first event only and sets this afterwards.
   */
  noHeaders?: boolean;
  /**
   * For custom resources: the CRD version's additionalPrinterColumns. When
   * given (even empty), the custom-resource table is built instead of a
   * built-in printer or the default table.
   */
  printerColumns?: readonly CustomResourceColumnDefinition[];
}

/** apiextensions.k8s.io/v1 CustomResourceColumnDefinition. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What a printer needs besides the object. */
export interface PrintContext {
  now: Date;
}

export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

/** Column definitions plus the row function for one kind (kube's TableHandler pair). */
export interface Printer {
  columns: TableColumnDefinition[];
  /** Cells for every column, wide ones included: the server always prints wide. */
  row(obj: KubeObject, ctx: PrintContext): PrintedRow;
  /** Row order for a whole list, when the printer defines one (FlowSchemas). */
  sortList?(objs: KubeObject[]): KubeObject[];
}

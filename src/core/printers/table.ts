/**
 * Conversion of objects to a meta.k8s.io/v1 Table: the resource's printer
 * (or the default Name / Created At convertor) produces the rows, then each
 * row's object is replaced according to includeObject, as the apiserver's
 * response transformation does.
 */

import { column, doc } from './columns';
import { parseTimestamp } from './duration';
import { customResourcePrinter } from './customresource';
import { printerFor } from './registry';
import type {
  CustomResourceColumnDefinition,
  KubeObject,
  PartialObjectMetadata,
  Printer,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
  ToTableOptions,
} from './types';

/** rest.NewDefaultTableConvertor's columns. */
export function defaultTableColumns(): TableColumnDefinition[] {
  return [
    column('Name', 'string', doc('meta.v1.ObjectMeta.name'), { format: 'name' }),
    column('Created At', 'date', doc('meta.v1.ObjectMeta.creationTimestamp')),
  ];
}

/** creationTimestamp in UTC, second precision; an unset one prints as Go's zero time. */
function createdAt(obj: KubeObject): string {
  const ms = parseTimestamp(obj.metadata?.creationTimestamp);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

const defaultPrinter: Printer = {
  columns: defaultTableColumns(),
  row(obj) {
    return { cells: [obj.metadata?.name ?? '', createdAt(obj)] };
  },
};

/**
 * Column definitions of a resource's Table (for the first event of a Table
 * watch). Pass a custom resource's printer columns to get its CRD columns.
 */
export function tableColumnsFor(
  group: string,
  resource: string,
  printerColumns?: readonly CustomResourceColumnDefinition[],
): TableColumnDefinition[] {
  const printer = printerColumns ? customResourcePrinter(printerColumns) : (printerFor(group, resource) ?? defaultPrinter);
  return printer.columns.map((c) => ({ ...c }));
}

/** True when the resource has a custom printer rather than the default Name / Created At table. */
export function hasCustomPrinter(group: string, resource: string): boolean {
  return printerFor(group, resource) !== undefined;
}

function partialObjectMetadata(obj: KubeObject): PartialObjectMetadata {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
}

/** The full object, with apiVersion and kind filled in as the encoder would. */
function fullObject(obj: KubeObject, options: ToTableOptions): KubeObject {
  const apiVersion = options.group === '' ? options.version : `${options.group}/${options.version}`;
  return { ...obj, apiVersion: obj.apiVersion || apiVersion, kind: obj.kind || options.kind };
}

function tableMetadata(objects: KubeObject[], listMeta: TableListMeta | undefined): TableListMeta {
  const metadata: TableListMeta = {};
  // A single object's Table carries that object's resourceVersion.
  const source = listMeta ?? (objects.length === 1 ? { resourceVersion: objects[0].metadata?.resourceVersion } : {});
  if (source.resourceVersion) metadata.resourceVersion = source.resourceVersion;
  if (source.continue) metadata.continue = source.continue;
  if (source.remainingItemCount !== undefined) metadata.remainingItemCount = source.remainingItemCount;
  return metadata;
}

/**
 * Converts objects of one resource to a Table. Rows keep the input order
 * (except for kinds whose printer orders lists, such as FlowSchemas); every
 * row carries all cells, wide ones included, and clients hide columns with
 * priority > 0 unless asked for wide output.
 */
export function toTable(objects: KubeObject[], options: ToTableOptions): Table {
  const printer = options.printerColumns
    ? customResourcePrinter(options.printerColumns)
    : (printerFor(options.group, options.resource) ?? defaultPrinter);
  const includeObject = options.includeObject ?? 'Metadata';
  const ordered = printer.sortList ? printer.sortList(objects) : objects;
  const ctx = { now: options.now };

  const rows = ordered.map((obj): TableRow => {
    const printed = printer.row(obj, ctx);
    const object =
      includeObject === 'Metadata'
        ? partialObjectMetadata(obj)
        : includeObject === 'Object'
          ? fullObject(obj, options)
          : null;
    // Key order follows kube's JSON: cells, conditions, object.
    return printed.conditions
      ? { cells: printed.cells, conditions: printed.conditions.map((c) => ({ ...c })), object }
      : { cells: printed.cells, object };
  });

  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: tableMetadata(objects, options.listMeta),
    columnDefinitions: options.noHeaders ? [] : printer.columns.map((c) => ({ ...c })),
    rows,
  };
}

/**
 * Server-side printing: the meta.k8s.io/v1 Table representation that
 * `kubectl get` requests with `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`.
 *
 * Each resource with a printer (pods, deployments, services, nodes, ...) has
 * the same column definitions, cell values and `-o wide` (priority 1) columns
 * as kube-apiserver's pkg/printers/internalversion; other resources get the
 * default two-column table (Name, Created At), and custom resources a Name
 * column plus their CRD's additionalPrinterColumns. Ages follow
 * duration.HumanDuration against an injected clock. Rows carry a
 * PartialObjectMetadata, the whole object, or nothing, per includeObject.
 *
 * Files: table.ts (conversion), registry.ts (resource -> printer), one file
 * per group of kinds (pods, workloads, core, networking, storage, rbac,
 * cluster, customresource), duration.ts, quantity.ts and format.ts (cell formatting),
 * columns.ts and descriptions.json (column definitions).
 */

export { defaultTableColumns, hasCustomPrinter, tableColumnsFor, toTable } from './table';
export { fieldDescriptions } from './columns';
export { printedResources } from './registry';
export { customResourcePrinter, DEFAULT_CUSTOM_RESOURCE_COLUMNS } from './customresource';
export { humanDuration, timestampSince } from './duration';
export { formatQuantity } from './quantity';
export type {
  CustomResourceColumnDefinition,
  IncludeObjectPolicy,
  KubeObject,
  ObjectMeta,
  PartialObjectMetadata,
  Table,
  TableCell,
  TableColumnDefinition,
  TableListMeta,
  TableRow,
  TableRowCondition,
  ToTableOptions,
} from './types';

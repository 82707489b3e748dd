/**
 * The one factory for react-query keys. Keys are hierarchical, so
 * invalidating `queryKeys.lists()` refreshes every list on screen.
 */
import type { ResourceKind } from './resources';

const root = ['kubesim'] as const;

export const queryKeys = {
  all: root,
  discovery: () => [...root, 'discovery'] as const,
  lists: () => [...root, 'list'] as const,
  /** A collection: namespace undefined means all namespaces (or a cluster-scoped resource). */
  list: (kind: Pick<ResourceKind, 'group' | 'version' | 'resource'>, namespace?: string, labelSelector?: string, fieldSelector?: string) =>
    [...root, 'list', kind.group, kind.version, kind.resource, namespace ?? '', labelSelector ?? '', fieldSelector ?? ''] as const,
  /** The server's Table of a collection (the columns `kubectl get` prints) at a list's resourceVersion. */
  table: (kind: Pick<ResourceKind, 'group' | 'version' | 'resource'>, namespace: string | undefined, labelSelector: string, resourceVersion: string) =>
    [...root, 'table', kind.group, kind.version, kind.resource, namespace ?? '', labelSelector, resourceVersion] as const,
  objects: () => [...root, 'object'] as const,
  object: (path: string) => [...root, 'object', path] as const,
  openapi: (groupVersionPath: string) => [...root, 'openapi', groupVersionPath] as const,
};

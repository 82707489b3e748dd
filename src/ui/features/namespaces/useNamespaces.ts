import { useWatchedList, type KubeObject, type ResourceKind } from '../../api';

export const NAMESPACES: ResourceKind = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  verbs: ['get', 'list', 'watch'],
};

export type NamespaceObject = KubeObject & { status?: { phase?: string } };

/** All namespaces, kept current by a watch. */
export function useNamespaces() {
  return useWatchedList<NamespaceObject>(NAMESPACES, undefined);
}

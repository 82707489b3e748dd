import { useWatchedList, type ResourceKind } from '../../api';

/** Lists one kind, in a namespace or across all of them (namespace null), with a label selector, kept current by a watch. */
export function useResourceList(kind: ResourceKind | undefined, namespace: string | null, labelSelector = '') {
  return useWatchedList(kind, kind?.namespaced && namespace !== null ? namespace : undefined, labelSelector);
}

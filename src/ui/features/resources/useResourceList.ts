import { useWatchedList, type ResourceKind } from '../../api';

/** Lists one kind, in a namespace or across all of them (namespace null), kept current by a watch. */
export function useResourceList(kind: ResourceKind | undefined, namespace: string | null) {
  return useWatchedList(kind, kind?.namespaced && namespace !== null ? namespace : undefined);
}

import { useQuery } from '@tanstack/react-query';
import { COMMON_KINDS, discoverResourceKinds, queryKeys, resourceKey, useApiClient, type ResourceKind } from '../../api';
import { useWorkbench } from '../../store';

export interface ResourceKinds {
  kinds: readonly ResourceKind[];
  /** False while discovery loads or when it failed and the common kinds stand in. */
  discovered: boolean;
  error: unknown;
}

/** The listable kinds, from discovery, with a short built-in list as fallback. */
export function useResourceKinds(): ResourceKinds {
  const client = useApiClient();
  const { data, error } = useQuery({
    queryKey: queryKeys.discovery(),
    queryFn: ({ signal }) => discoverResourceKinds(client, signal),
    staleTime: 60_000,
  });
  return data && data.length > 0 ? { kinds: data, discovered: true, error } : { kinds: COMMON_KINDS, discovered: false, error };
}

/** The kind chosen in the store, resolved against the known kinds. */
export function useSelectedKind(kinds: readonly ResourceKind[]): ResourceKind | undefined {
  const key = useWorkbench((s) => s.selectedKindKey);
  return kinds.find((k) => resourceKey(k) === key) ?? COMMON_KINDS.find((k) => resourceKey(k) === key);
}

/**
 * Discovery as kubectl's legacy path does it: GET /api/v1 for the core group,
 * GET /apis for the groups, then each group's preferred version. Pure merging
 * is separate from fetching so it can be checked on its own.
 */
import type { ApiClient } from './client';
import type { ResourceKind } from './resources';
import { parseApiVersion } from './resources';
import type { APIGroupList, APIResourceList } from './types';

/** The listable top-level resources (no subresources), sorted by kind then group. */
export function resourceKindsFrom(lists: readonly APIResourceList[]): ResourceKind[] {
  const kinds: ResourceKind[] = [];
  for (const list of lists) {
    const gv = parseApiVersion(list.groupVersion);
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      kinds.push({
        group: r.group ?? gv.group,
        version: r.version ?? gv.version,
        resource: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        verbs: r.verbs,
      });
    }
  }
  return kinds.sort((a, b) => a.kind.localeCompare(b.kind) || a.group.localeCompare(b.group));
}

/** The group/versions to read: each group's preferred version (or its first). */
export function preferredGroupVersions(groups: APIGroupList): string[] {
  return groups.groups.flatMap((g) => {
    const gv = g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion;
    return gv ? [gv] : [];
  });
}

/** Fetches discovery. A group that fails is skipped, as kubectl reports and continues; the core group must answer. */
export async function discoverResourceKinds(client: ApiClient, signal?: AbortSignal): Promise<ResourceKind[]> {
  const [coreList, groups] = await Promise.all([
    client.get<APIResourceList>('/api/v1', { signal }),
    client.get<APIGroupList>('/apis', { signal }).catch((): APIGroupList => ({ kind: 'APIGroupList', groups: [] })),
  ]);
  const groupLists = await Promise.all(
    preferredGroupVersions(groups).map((gv) => client.get<APIResourceList>(`/apis/${gv}`, { signal }).catch(() => undefined)),
  );
  return resourceKindsFrom([coreList, ...groupLists.filter((l): l is APIResourceList => l !== undefined)]);
}

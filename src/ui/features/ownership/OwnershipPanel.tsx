/**
 * Field ownership of the object open in Resources: managers with colours,
 * the field tree, and after a conflicting apply the conflicts with one-click
 * resolutions (force, drop from my manifest, adopt the live value).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { parse } from 'yaml';
import { ApiError, objectPath, queryKeys, resourceKey, useApiClient, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { describeWritten } from '../editor/manifest';
import { adoptLiveValues, conflictsOf, dropFields } from './conflicts';
import { describeOwner, managerEntries, ownerTrie } from './fieldOwners';
import { FieldTree, managerColour } from './FieldTree';

type Resolution = 'force' | 'drop' | 'adopt';

export function OwnershipPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  const selected = useWorkbench((s) => s.selectedObject);
  const conflict = useWorkbench((s) => s.applyConflict);
  const setConflict = useWorkbench((s) => s.setApplyConflict);
  const setDraft = useWorkbench((s) => s.setManifestDraft);
  const kind = selected ? kinds.find((k) => resourceKey(k) === selected.kindKey) : undefined;
  const path = kind && selected ? objectPath(kind, kind.namespaced ? selected.namespace : undefined, selected.name) : undefined;
  const object = useQuery({
    queryKey: queryKeys.object(path ?? ''),
    queryFn: ({ signal }) => client.get<KubeObject>(path!, { signal }),
    enabled: path !== undefined,
  });
  const conflicts = useMemo(() => (conflict && conflict.path === path ? conflictsOf(conflict.status) : []), [conflict, path]);
  const mine = useMemo(() => (conflict ? (parse(conflict.manifest) as unknown) : undefined), [conflict]);

  const resolve = useMutation({
    mutationFn: async (resolution: Resolution) => {
      if (!conflict || !object.data) throw new Error('no conflict to resolve');
      const manifest =
        resolution === 'drop' ? dropFields(conflict.manifest, conflicts) : resolution === 'adopt' ? adoptLiveValues(conflict.manifest, conflicts, object.data) : conflict.manifest;
      const result = await client.write('apply', conflict.path, manifest, { fieldManager: conflict.fieldManager || undefined, force: resolution === 'force' });
      return { manifest, result };
    },
    onSuccess: ({ manifest }) => {
      setDraft(manifest);
      setConflict(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.objects() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.lists() });
    },
  });

  if (!selected || !kind || !path) {
    return (
      <section className="panel" data-testid="ownership-panel">
        <p className="muted">Open an object in Resources (or write one in the Editor) to see who owns its fields.</p>
      </section>
    );
  }
  const managers = object.data ? managerEntries(object.data) : [];
  return (
    <section className="panel ownership-panel" aria-labelledby="ownership-heading" data-testid="ownership-panel">
      <h2 id="ownership-heading">
        Field ownership of {kind.kind} <code>{selected.namespace ? `${selected.namespace}/${selected.name}` : selected.name}</code>
      </h2>
      {object.error && <StatusError error={object.error} testId="ownership-error" />}
      {managers.length > 0 && (
        <ul className="managers" aria-label="Managers" data-testid="managers">
          {managers.map((m) => (
            <li key={m.index} data-testid="manager" data-manager={m.manager}>
              <span className="owner-dot" style={{ background: managerColour(m) }} aria-hidden="true" /> {describeOwner(m)}
            </li>
          ))}
        </ul>
      )}
      {conflicts.length > 0 && (
        <div className="conflicts" role="region" aria-label="Apply conflicts" data-testid="conflicts">
          <StatusError error={new ApiError(conflict!.status)} />
          <p>
            Resolve as <code>{conflict!.fieldManager}</code>:
          </p>
          <div className="actions">
            <button type="button" onClick={() => resolve.mutate('force')} disabled={resolve.isPending} data-testid="resolve-force">
              Force: take the fields over
            </button>
            <button type="button" onClick={() => resolve.mutate('drop')} disabled={resolve.isPending} data-testid="resolve-drop">
              Drop the fields from my manifest
            </button>
            <button type="button" onClick={() => resolve.mutate('adopt')} disabled={resolve.isPending} data-testid="resolve-adopt">
              Adopt the live values
            </button>
          </div>
        </div>
      )}
      {resolve.isSuccess && (
        <p className="success" role="status" data-testid="resolve-result">
          {describeWritten(kind, selected.name, 'apply')}
        </p>
      )}
      {resolve.isError && <StatusError error={resolve.error} testId="resolve-error" />}
      {object.data && <FieldTree object={object.data as Record<string, unknown>} trie={ownerTrie(object.data)} conflicts={conflicts} mine={mine} />}
    </section>
  );
}

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { isApiError, queryKeys, resourceKey, useApiClient, type KubeObject, type ResourceKind, type WriteVerb } from '../../api';
import { useWorkbench } from '../../store';
import { describeWritten, parseManifest, resolveTarget, writePath } from './manifest';

export interface Written {
  verb: WriteVerb;
  object: KubeObject;
  kind: ResourceKind;
  namespace: string | undefined;
  summary: string;
  warnings: string[];
}

/**
 * Sends the manifest as create (POST, JSON), replace (PUT, JSON) or
 * server-side apply (PATCH with the YAML text itself, as kubectl sends it),
 * with the editor's field manager, force, dry run and fieldValidation.
 * Errors are ApiErrors (from the server) or plain Errors (bad YAML, unknown kind).
 */
export function useWrite(kinds: readonly ResourceKind[]) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ verb, manifest }: { verb: WriteVerb; manifest: string }): Promise<Written> => {
      const { fieldManager, force, dryRun, fieldValidation, selectedNamespace, setApplyConflict } = useWorkbench.getState();
      const parsed = parseManifest(manifest);
      if (!parsed.ok) throw new Error(parsed.message);
      const target = resolveTarget(parsed.value, kinds, selectedNamespace ?? 'default');
      if (!target.ok) throw new Error(target.message);
      const path = writePath(verb, target.value, parsed.value);
      if (!path.ok) throw new Error(path.message);
      const body = verb === 'apply' ? manifest : parsed.value;
      try {
        const { object, warnings } = await client.write(verb, path.value, body, {
          fieldManager: fieldManager.trim() || undefined,
          force,
          dryRun,
          fieldValidation: fieldValidation || undefined,
        });
        if (verb === 'apply') setApplyConflict(null);
        const { kind, namespace } = target.value;
        return { verb, object, kind, namespace, warnings, summary: describeWritten(kind, object.metadata?.name ?? '', verb, dryRun) };
      } catch (error) {
        if (verb === 'apply' && isApiError(error) && error.code === 409 && error.reason === 'Conflict') {
          setApplyConflict({ manifest, path: path.value, fieldManager: fieldManager.trim(), status: error.status });
          // The live object changed under us: the conflict view must compare with what is stored now.
          void queryClient.invalidateQueries({ queryKey: queryKeys.objects() });
        }
        throw error;
      }
    },
    onSuccess: ({ kind, namespace, object }) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.objects() });
      const { selectKind, selectNamespace, selectObject, dryRun } = useWorkbench.getState();
      if (dryRun) return;
      // Show the written object where it lives.
      selectKind(resourceKey(kind));
      if (namespace !== undefined) selectNamespace(namespace);
      selectObject({ kindKey: resourceKey(kind), namespace, name: object.metadata?.name ?? '' });
    },
  });
}

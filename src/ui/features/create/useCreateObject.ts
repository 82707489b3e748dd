import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys, useApiClient, type KubeObject, type ResourceKind } from '../../api';
import { describeCreated, parseManifest, resolveTarget } from './manifest';

/** The field manager recorded in managedFields for objects the workbench creates. */
export const FIELD_MANAGER = 'kubesim-workbench';

export interface Created {
  object: KubeObject;
  kind: ResourceKind;
  namespace: string | undefined;
  summary: string;
}

/** Creates the object in a YAML manifest; errors are ApiErrors (from the server) or plain Errors (bad YAML). */
export function useCreateObject(kinds: readonly ResourceKind[], defaultNamespace: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (manifest: string): Promise<Created> => {
      const parsed = parseManifest(manifest);
      if (!parsed.ok) throw new Error(parsed.message);
      const target = resolveTarget(parsed.value, kinds, defaultNamespace);
      if (!target.ok) throw new Error(target.message);
      const { kind, namespace, path } = target.value;
      const object = await client.create(path, parsed.value, { fieldManager: FIELD_MANAGER });
      return { object, kind, namespace, summary: describeCreated(kind, object) };
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.lists() }),
  });
}

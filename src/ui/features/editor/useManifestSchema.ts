import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { JSONSchema } from 'monaco-yaml';
import { queryKeys, useApiClient } from '../../api';
import { kindSchema, manifestType, openApiPathKey, type OpenApiDocument, type OpenApiRoot } from './schema';

/** The schema for the manifest's apiVersion and kind, from /openapi/v3 (each document fetched once, by its hashed URL). */
export function useManifestSchema(manifest: string): { schema: JSONSchema | undefined; id: string | undefined } {
  const client = useApiClient();
  const type = manifestType(manifest);
  const root = useQuery({
    queryKey: queryKeys.openapi(''),
    queryFn: ({ signal }) => client.get<OpenApiRoot>('/openapi/v3', { signal }),
    staleTime: Infinity,
  });
  const url = type ? root.data?.paths[openApiPathKey(type.apiVersion)]?.serverRelativeURL : undefined;
  const document = useQuery({
    queryKey: queryKeys.openapi(url ?? ''),
    queryFn: ({ signal }) => client.get<OpenApiDocument>(url!, { signal }),
    enabled: url !== undefined,
    staleTime: Infinity,
  });
  const id = type ? `${type.apiVersion}/${type.kind}` : undefined;
  const schema = useMemo(() => {
    if (!id || !document.data) return undefined;
    const slash = id.lastIndexOf('/');
    return kindSchema(document.data, id.slice(0, slash), id.slice(slash + 1));
  }, [id, document.data]);
  return { schema, id: schema ? id : undefined };
}

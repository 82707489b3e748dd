/**
 * The options of each verb, as metav1's CreateOptions, GetOptions,
 * ListOptions... with their JSON names, and how a client sends them: as the
 * query parameters kube-apiserver reads (client-go's parameter codec), except
 * DeleteOptions, which go in the request body as client-go sends them.
 */

/** `dryRun: ['All']`: the request runs every stage but storage. */
export type DryRun = readonly 'All'[];

/** How the server treats unknown and duplicate fields (metav1's fieldValidation). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface CreateOptions {
  dryRun?: DryRun;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
}

export type UpdateOptions = CreateOptions;

export interface PatchOptions extends CreateOptions {
  /** Apply only: take over fields other managers own instead of failing with a Conflict. */
  force?: boolean;
}

/** Server-side apply: the field manager is required, as client-go's ApplyOptions make it. */
export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: DryRun;
}

export interface GetOptions {
  resourceVersion?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  dryRun?: DryRun;
}

/** The patch types of k8s.io/apimachinery/pkg/types, by their media types. */
export const PatchType = {
  JSON: 'application/json-patch+json',
  Merge: 'application/merge-patch+json',
  StrategicMerge: 'application/strategic-merge-patch+json',
  Apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

type QueryOptions = CreateOptions | PatchOptions | ApplyOptions | GetOptions | ListOptions;

/**
 * The query string for options ('' for none): names sorted as Go's
 * url.Values encodes them, a list as one parameter per value, and unset,
 * empty and false values left out as client-go's omitempty leaves them.
 */
export function queryString(options: QueryOptions | undefined, extra?: string): string {
  let query = extra ?? '';
  if (options) {
    const names = Object.keys(options);
    if (names.length > 1) names.sort();
    for (const name of names) {
      const value = (options as Record<string, unknown>)[name];
      if (value === undefined || value === null || value === '' || value === false) continue;
      if (Array.isArray(value)) for (const v of value) query += `&${name}=${encodeURIComponent(String(v))}`;
      else query += `&${name}=${encodeURIComponent(String(value))}`;
    }
  }
  return query === '' ? '' : `?${query.slice(1)}`;
}

/** DeleteOptions as the body client-go sends with a delete (meta/v1 DeleteOptions). */
export function deleteOptionsBody(options: DeleteOptions): string {
  return JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...options });
}

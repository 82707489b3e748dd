/**
 * The workbench's way to the API server: an HTTP client that keeps whole
 * Status errors, resource paths, discovery, and the react-query key factory.
 */
export { ApiError, ResponseDecodeError, createApiClient, isApiError, statusFrom, traceOf, warningsOf } from './client';
export { BAD_PREFIX_MESSAGE, isProtobufResponse, protobufBodyProblem } from './protobufGuard';
export type { ApiClient, CreateOptions, Exchange, FetchFn, TraceEntry, WriteOptions, WriteResult, WriteVerb } from './client';
export { ApiClientProvider, useApiClient } from './context';
export { discoverResourceKinds, preferredGroupVersions, resourceKindsFrom } from './discovery';
export { queryKeys } from './queryKeys';
export { useWatchedList } from './useWatchedList';
export { WatchError, applyWatchEvent, readWatchEvents, watchCollection, type WatchEvent } from './watch';
export {
  COMMON_KINDS,
  apiVersionOf,
  collectionPath,
  objectPath,
  parseApiVersion,
  resourceKey,
} from './resources';
export type { GroupVersion, ResourceKind } from './resources';
export type * from './types';

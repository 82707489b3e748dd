/**
 * kubesim's core: a Kubernetes API server as one function from a web-standard
 * Request to a Response. Hosts (the service worker in src/sw, the Node server
 * in server/) only translate their transport and hand in a storage backend.
 */
export { createApiServer } from './apiserver';
export type { ApiServer, ApiServerOptions } from './apiserver';
export type { AdmissionWebhookTransport } from './admission/webhook';
export type { Storage } from './storage/interface';
export { createMemoryStorage } from './storage/memory';
export { FakeClock, realClock, seededRandom, cryptoRandom } from './util/clock';
export type { Clock, RandomSource } from './util/clock';
export { generateClusterCA, type ClusterSigningCA } from './controllers/certificateAuthority';
export { createClient, type ClientOptions, type DynamicClient, type GroupVersionResource, type NamespaceableResourceInterface, type RequestHandler, type ResourceInterface } from './client/dynamic';
export { PatchType, type ApplyOptions, type CreateOptions, type DeleteOptions, type DryRun, type FieldValidation, type GetOptions, type ListOptions, type PatchOptions, type Preconditions, type UpdateOptions } from './client/options';
export { Watch, type WatchEvent, type WatchEventType } from './client/watch';
export { StatusError, isStatusError, isNotFound, isAlreadyExists, isConflict, isInvalid, type Status, type StatusReason, type StatusDetails, type StatusCause } from './errors';
export { LightResponse, nativeResponse } from './http/lightResponse';

/**
 * Which deferred data (util/deferredData.ts) a request reads, decided from
 * its path, verb and media types before it is dispatched, so that the
 * readers deep in the pipeline stay synchronous. A read in JSON (get, list,
 * watch, discovery, /version) needs none of it: that is what the first
 * answer of a freshly started service worker is.
 */
import type { RequestInfo } from './requestInfo';

export interface RequestData {
  /**
   * The built-in kinds' OpenAPI schemas: every write (field validation,
   * managedFields, strategic merge patch, policy type checking) and /openapi.
   */
  definitions: boolean;
  /** The protobuf descriptors: protobuf bodies, and CBOR ones (its encoder orders fields by them). */
  protobufDescriptors: boolean;
  /** The printers' column descriptions: Tables (`kubectl get`). */
  columnDescriptions: boolean;
}

const READS = new Set(['get', 'list', 'watch']);
const BINARY_MEDIA = /protobuf|cbor/i;
const TABLE = /;\s*as=Table/i;

export function dataNeededBy(request: Request, info: RequestInfo): RequestData {
  const openapi = !info.isResourceRequest && (info.path === '/openapi' || info.path.startsWith('/openapi/'));
  const definitions = info.isResourceRequest ? !READS.has(info.verb) : openapi;
  const accept = request.headers.get('accept') ?? '';
  const media = `${accept} ${request.headers.get('content-type') ?? ''}`;
  // /openapi/v2's protobuf is gnostic's openapi.v2.Document, written without the Kubernetes descriptors.
  return { definitions, protobufDescriptors: !openapi && BINARY_MEDIA.test(media), columnDescriptions: TABLE.test(accept) };
}

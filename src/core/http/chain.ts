/**
 * The handler chain (k8s.io/apiserver/pkg/server/config.go DefaultBuildHandlerChain),
 * built in one place and wrapped innermost first, so the order reads bottom-up:
 * a request meets requestInfo, then authentication, impersonation and
 * authorization, and reaches the API handler last. Plain HTTP filters live in
 * http/filters, API-aware ones in http/apifilters.
 */
import { withCompression } from './filters/compression';
import { withTraceHeader } from './filters/trace';
import { withAuthentication, type AuthenticationConfig } from './apifilters/authentication';
import { withAuthorization } from './apifilters/authorization';
import { withImpersonation } from './apifilters/impersonation';
import { withMetrics } from './apifilters/metrics';
import type { ApiServerMetrics } from '../ops/apiserverMetrics';
import { withRequestInfo } from './apifilters/requestInfo';
import type { Authorizer } from '../auth/authorizer/types';
import { withCborServed } from './request/context';

export type Handler = (request: Request) => Promise<Response>;

export interface ChainOptions {
  /** APIResponseCompression. */
  compression: boolean;
  authentication: AuthenticationConfig;
  /** Decides every request after impersonation, and checks the `impersonate` verb itself. */
  authorizer: Authorizer;
  /** Request counts, latencies and the in-flight gauge for /metrics. */
  metrics?: ApiServerMetrics;
  /** CBORServingAndStorage: errors from any filter may be written in CBOR. */
  cbor?: boolean;
}

export function buildHandlerChain(apiHandler: Handler, options: ChainOptions): Handler {
  let handler = apiHandler;
  handler = withAuthorization(handler, options.authorizer);
  handler = withImpersonation(handler, options.authorizer);
  handler = withAuthentication(handler, options.authentication);
  handler = withMetrics(handler, options.metrics);
  const served = handler;
  handler = (request) => {
    withCborServed(request, options.cbor === true);
    return served(request);
  };
  handler = withRequestInfo(handler);
  handler = withTraceHeader(handler);
  handler = withCompression(handler, options.compression);
  // Filters that need no turn of their own are plain functions; whatever one throws still reaches the host as a rejection.
  const chain = handler;
  return (request) => {
    try {
      return chain(request);
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/**
 * withMetrics: the in-flight gauge around every request (WithMaxInFlightLimit's
 * watermark) and, for resource requests, apiserver_request_total and
 * apiserver_request_duration_seconds once the response is ready
 * (MonitorRequest in k8s.io/apiserver/pkg/endpoints/metrics).
 */
import { requestInfoFrom } from '../request/context';
import type { Handler } from '../chain';
import type { ApiServerMetrics } from '../../ops/apiserverMetrics';

/** Read once: `performance` is a lazy global in Node, a getter call on every lookup. */
const clock = globalThis.performance;

export function withMetrics(handler: Handler, metrics: ApiServerMetrics | undefined): Handler {
  if (!metrics) return handler;
  // Not async: one then() on the handler's promise, where an async wrapper would add turns of its own.
  return (request) => {
    const info = requestInfoFrom(request);
    const started = clock.now();
    const done = metrics.startRequest(request, info);
    let response: Promise<Response>;
    try {
      response = handler(request);
    } catch (err) {
      done();
      throw err;
    }
    return response.then(
      (r) => {
        done();
        if (info?.isResourceRequest) metrics.observeRequest(request, info, r.status, (clock.now() - started) / 1000);
        return r;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  };
}

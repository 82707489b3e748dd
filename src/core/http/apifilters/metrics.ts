/**
 * withMetrics: the in-flight gauge around every request (WithMaxInFlightLimit's
 * watermark) and, for resource requests, apiserver_request_total and
 * apiserver_request_duration_seconds once the response is ready
 * (MonitorRequest in k8s.io/apiserver/pkg/endpoints/metrics).
 */
import { requestInfoFrom } from '../request/context';
import type { Handler } from '../chain';
import type { ApiServerMetrics } from '../../ops/apiserverMetrics';

export function withMetrics(handler: Handler, metrics: ApiServerMetrics | undefined): Handler {
  if (!metrics) return handler;
  return async (request) => {
    const info = requestInfoFrom(request);
    const started = performance.now();
    const done = metrics.startRequest(request, info);
    try {
      const response = await handler(request);
      if (info?.isResourceRequest) metrics.observeRequest(request, info, response.status, (performance.now() - started) / 1000);
      return response;
    } finally {
      done();
    }
  };
}

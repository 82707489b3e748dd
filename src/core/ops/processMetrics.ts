/**
 * Metrics kube-apiserver keeps in its process-wide (legacy) registry and
 * records from deep inside libraries: CEL compilation and evaluation of CRD
 * validation rules. One process is one API server there; here every server
 * in the process exposes the same series, as a second apiserver binary
 * sharing the registry would.
 */
import { Histogram } from './metrics';

/** client_golang's DefBuckets, which these histograms use. */
const defBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const celCompilationDuration = new Histogram({ name: 'apiserver_cel_compilation_duration_seconds', help: 'CEL compilation time in seconds.', buckets: defBuckets });
export const celEvaluationDuration = new Histogram({ name: 'apiserver_cel_evaluation_duration_seconds', help: 'CEL evaluation time in seconds.', buckets: defBuckets });

export const processMetrics = [celCompilationDuration, celEvaluationDuration];

/** Runs fn and observes its duration in seconds. */
export function timed<T>(h: Histogram, fn: () => T): T {
  const started = performance.now();
  try {
    return fn();
  } finally {
    h.observe([], (performance.now() - started) / 1000);
  }
}

/**
 * What PodSecurity counts (k8s.io/pod-security-admission/metrics): the
 * pod_security_evaluations_total, _exemptions_total and _errors_total labels
 * as kube's recorder derives them from a request; the counters themselves
 * live with the server's other metrics.
 */
import type { AdmissionAttributes } from '../attributes';
import type { LevelVersion } from './api';

/** The counters, by label values; `by` 0 only makes a series. */
export interface PodSecuritySink {
  /** decision, policy_level, policy_version, mode, request_operation, resource, subresource */
  evaluation(labels: readonly string[], by?: number): void;
  /** evaluation() on one series, its labels resolved once (every pod write counts one). */
  evaluationSeries?(labels: readonly string[]): (by?: number) => void;
  /** request_operation, resource, subresource */
  exemption(labels: readonly string[], by?: number): void;
  /** fatal, request_operation, resource, subresource */
  error(labels: readonly string[], by?: number): void;
}

export interface PodSecurityRecorder {
  recordEvaluation(decision: 'allow' | 'deny', policy: LevelVersion, mode: 'enforce' | 'audit' | 'warn', attrs: AdmissionAttributes): void;
  recordExemption(attrs: AdmissionAttributes): void;
  recordError(fatal: boolean, attrs: AdmissionAttributes): void;
}

const resourceLabel = (attrs: AdmissionAttributes): string =>
  attrs.resource.group === '' && attrs.resource.resource === 'pods' ? 'pod' : attrs.resource.group === '' && attrs.resource.resource === 'namespaces' ? 'namespace' : 'controller';

const requestLabels = (attrs: AdmissionAttributes): string[] => [attrs.operation.toLowerCase(), resourceLabel(attrs), attrs.subresource];

/**
 * `serverMinor`: a pinned version newer than the server counts as "future".
 * The series kube's recorder caches exist from the start, at 0.
 */
export function newPodSecurityRecorder(sink: PodSecuritySink, serverMinor: number): PodSecurityRecorder {
  for (const op of ['create', 'update']) {
    sink.evaluation(['allow', 'privileged', 'latest', 'enforce', op, 'pod', ''], 0);
    for (const resource of ['pod', 'controller']) sink.exemption([op, resource, ''], 0);
  }
  const evaluations = new Map<string, (by?: number) => void>();
  return {
    recordEvaluation(decision, policy, mode, attrs) {
      // Privileged is always effectively latest.
      const version = policy.version.latest || policy.level === 'privileged' ? 'latest' : policy.version.minor <= serverMinor ? `v1.${policy.version.minor}` : 'future';
      if (!sink.evaluationSeries) return sink.evaluation([decision, policy.level, version, mode, ...requestLabels(attrs)]);
      const key = `${decision}/${policy.level}/${version}/${mode}/${attrs.operation}/${attrs.resource.group}/${attrs.resource.resource}/${attrs.subresource}`;
      let series = evaluations.get(key);
      if (!series) evaluations.set(key, (series = sink.evaluationSeries([decision, policy.level, version, mode, ...requestLabels(attrs)])));
      series();
    },
    recordExemption: (attrs) => sink.exemption(requestLabels(attrs)),
    recordError: (fatal, attrs) => sink.error([String(fatal), ...requestLabels(attrs)]),
  };
}

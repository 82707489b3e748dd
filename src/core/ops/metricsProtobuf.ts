/**
 * The Prometheus protobuf exposition: length-delimited io.prometheus.client
 * MetricFamily messages (schema in metrics.proto, its protobufjs JSON form in
 * metricsProto.json). Histograms carry their classic buckets and, with the
 * NativeHistograms gate, the native (sparse exponential) buckets as spans and
 * deltas alongside, so a scraper can read either.
 */
import { Root, type INamespace, type Type } from 'protobufjs/light.js';
import { Counter, Gauge, Histogram, nativeZeroThreshold, type HistogramState, type Metric } from './metrics';
import descriptor from './metricsProto.json';

export const protobufContentType = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

let metricFamily: Type | undefined;
function familyType(): Type {
  return (metricFamily ??= Root.fromJSON(descriptor as unknown as INamespace).lookupType('io.prometheus.client.MetricFamily'));
}

const metricTypes = { counter: 0, gauge: 1, histogram: 4 } as const;

interface Span {
  offset: number;
  length: number;
}

/**
 * Spans and delta-encoded counts of native buckets, as client_golang writes
 * them: consecutive indexes share a span, and gaps of up to two empty buckets
 * are filled with zeros rather than opening a new span.
 */
export function nativeSpans(buckets: Map<number, number>): { spans: Span[]; deltas: number[] } {
  const keys = [...buckets.keys()].sort((a, b) => a - b);
  const spans: Span[] = [];
  const deltas: number[] = [];
  let prevKey = 0;
  let prevCount = 0;
  keys.forEach((k, i) => {
    const count = buckets.get(k)!;
    if (i === 0) spans.push({ offset: k, length: 0 });
    else {
      const gap = k - prevKey - 1;
      if (gap > 2) spans.push({ offset: gap, length: 0 });
      else {
        for (let g = 0; g < gap; g++) {
          deltas.push(-prevCount);
          prevCount = 0;
          spans[spans.length - 1]!.length += 1;
        }
      }
    }
    deltas.push(count - prevCount);
    prevCount = count;
    prevKey = k;
    spans[spans.length - 1]!.length += 1;
  });
  return { spans, deltas };
}

function histogramMessage(h: Histogram, s: HistogramState, native: boolean): Record<string, unknown> {
  const msg: Record<string, unknown> = {
    sampleCount: s.count,
    sampleSum: s.sum,
    bucket: h.buckets.map((le, i) => ({ cumulativeCount: s.counts[i], upperBound: le })),
  };
  if (native) {
    const { spans, deltas } = nativeSpans(s.native);
    msg['schema'] = s.schema;
    msg['zeroThreshold'] = nativeZeroThreshold;
    msg['zeroCount'] = s.zeroCount;
    // An empty native histogram still says it is one: a no-op span, as client_golang writes.
    msg['positiveSpan'] = spans.length || s.zeroCount ? spans : [{ offset: 0, length: 0 }];
    msg['positiveDelta'] = deltas;
  }
  return msg;
}

function metricMessages(m: Metric, native: boolean): Record<string, unknown>[] {
  const labels = (values: readonly string[]) => m.labels.map((name, i) => ({ name, value: values[i] }));
  if (m instanceof Histogram) return m.states().map((s) => ({ label: labels(s.values), histogram: histogramMessage(m, s.state, native) }));
  if (m instanceof Counter) return m.states().map((s) => ({ label: labels(s.values), counter: { value: s.state.value } }));
  if (m instanceof Gauge) return m.states().map((s) => ({ label: labels(s.values), gauge: { value: s.state.value } }));
  return [];
}

/** Encodes the families, each length-delimited, skipping families without series as the text format does. */
export function encodeProtobufExposition(families: { metric: Metric; help: string }[], options: { nativeHistograms: boolean }): Uint8Array {
  const type = familyType();
  const parts: Uint8Array[] = [];
  for (const { metric, help } of families) {
    const metrics = metricMessages(metric, options.nativeHistograms);
    if (!metrics.length) continue;
    parts.push(type.encodeDelimited(type.fromObject({ name: metric.name, help, type: metricTypes[metric.type], metric: metrics })).finish());
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether Accept asks for the protobuf exposition (proto and encoding parameters, when given, must name delimited MetricFamily). */
export function acceptsProtobuf(accept: string | null): boolean {
  for (const clause of (accept ?? '').split(',')) {
    const [type, ...params] = clause.split(';').map((p) => p.trim());
    if (type?.toLowerCase() !== 'application/vnd.google.protobuf') continue;
    const p = Object.fromEntries(params.map((x) => x.split('=').map((y) => y.trim()) as [string, string]));
    if (p['q'] === '0') continue;
    if ((p['proto'] === undefined || p['proto'] === 'io.prometheus.client.MetricFamily') && (p['encoding'] === undefined || p['encoding'] === 'delimited')) return true;
  }
  return false;
}

/**
 * The Prometheus protobuf exposition: length-delimited io.prometheus.client
 * MetricFamily messages (schema in metrics.proto), written field by field
 * with protobufjs' minimal Writer (its reflection runtime would add tens of
 * KiB to the service worker for these nine small messages). Histograms carry their classic buckets and, with the
 * NativeHistograms gate, the native (sparse exponential) buckets as spans and
 * deltas alongside, so a scraper can read either.
 */
import { Writer } from 'protobufjs/minimal.js';
import { Counter, Gauge, Histogram, nativeZeroThreshold, type HistogramState, type Metric } from './metrics';

export const protobufContentType = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

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

// Tags (field number << 3 | wire type) of the io.prometheus.client messages written here (metrics.proto, proto2:
// every set field is written, zeros included; repeated scalars unpacked).
const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const tag = (field: number, wire: number) => (field << 3) | wire;

function writeHistogram(w: Writer, h: Histogram, s: HistogramState, native: boolean): void {
  w.uint32(tag(1, VARINT)).uint64(s.count); // sample_count
  w.uint32(tag(2, FIXED64)).double(s.sum); // sample_sum
  const counts = Histogram.cumulativeCounts(s);
  h.buckets.forEach((le, i) => {
    w.uint32(tag(3, BYTES)).fork(); // bucket
    w.uint32(tag(1, VARINT)).uint64(counts[i]!); // cumulative_count
    w.uint32(tag(2, FIXED64)).double(le); // upper_bound
    w.ldelim();
  });
  if (!native) return;
  const { spans, deltas } = nativeSpans(s.native);
  w.uint32(tag(5, VARINT)).sint32(s.schema); // schema
  w.uint32(tag(6, FIXED64)).double(nativeZeroThreshold); // zero_threshold
  w.uint32(tag(7, VARINT)).uint64(s.zeroCount); // zero_count
  // An empty native histogram still says it is one: a no-op span, as client_golang writes.
  for (const span of spans.length || s.zeroCount ? spans : [{ offset: 0, length: 0 }]) {
    w.uint32(tag(12, BYTES)).fork(); // positive_span
    w.uint32(tag(1, VARINT)).sint32(span.offset);
    w.uint32(tag(2, VARINT)).uint32(span.length);
    w.ldelim();
  }
  for (const d of deltas) w.uint32(tag(13, VARINT)).sint64(d); // positive_delta
}

/** The Metric messages (field 4 of MetricFamily) of one family: one per series. */
function writeMetrics(w: Writer, m: Metric, native: boolean): void {
  const series = (values: readonly string[], body: () => void) => {
    w.uint32(tag(4, BYTES)).fork();
    m.labels.forEach((name, i) => {
      w.uint32(tag(1, BYTES)).fork(); // label
      w.uint32(tag(1, BYTES)).string(name);
      w.uint32(tag(2, BYTES)).string(values[i]!);
      w.ldelim();
    });
    body();
    w.ldelim();
  };
  const value = (field: number, v: number) => {
    w.uint32(tag(field, BYTES)).fork(); // gauge (2) or counter (3)
    w.uint32(tag(1, FIXED64)).double(v);
    w.ldelim();
  };
  if (m instanceof Histogram) {
    for (const s of m.states()) series(s.values, () => {
      w.uint32(tag(7, BYTES)).fork(); // histogram
      writeHistogram(w, m, s.state, native);
      w.ldelim();
    });
  } else if (m instanceof Counter) for (const s of m.states()) series(s.values, () => value(3, s.state.value));
  else if (m instanceof Gauge) for (const s of m.states()) series(s.values, () => value(2, s.state.value));
}

const hasSeries = (m: Metric) => (m instanceof Histogram || m instanceof Counter || m instanceof Gauge) && m.states().length > 0;

/** Encodes the families, each length-delimited, skipping families without series as the text format does. */
export function encodeProtobufExposition(families: { metric: Metric; help: string }[], options: { nativeHistograms: boolean }): Uint8Array {
  const w = Writer.create();
  for (const { metric, help } of families) {
    if (!hasSeries(metric)) continue;
    w.fork();
    w.uint32(tag(1, BYTES)).string(metric.name);
    w.uint32(tag(2, BYTES)).string(help);
    w.uint32(tag(3, VARINT)).int32(metricTypes[metric.type]);
    writeMetrics(w, metric, options.nativeHistograms);
    w.ldelim();
  }
  return w.finish();
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

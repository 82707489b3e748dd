/** /metrics in the protobuf exposition, decoded with protobufjs from metrics.proto (io.prometheus.client). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../testing/client';
import { Histogram, MetricsRegistry, nativeBucketIndex, nativeMaxBuckets } from './metrics';
import { encodeProtobufExposition, nativeSpans } from './metricsProtobuf';
import descriptor from './metricsProto.json';

const protoPath = fileURLToPath(new URL('./metrics.proto', import.meta.url));
const root = protobuf.loadSync(protoPath);
const MetricFamily = root.lookupType('io.prometheus.client.MetricFamily');
const accept = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3';

interface Decoded {
  name: string;
  help: string;
  type: string;
  metric: { label?: { name: string; value: string }[]; counter?: { value: number }; gauge?: { value: number }; histogram?: Record<string, any> }[];
}

function decodeAll(bytes: Uint8Array): Decoded[] {
  const reader = protobuf.Reader.create(bytes);
  const out: Decoded[] = [];
  while (reader.pos < reader.len) {
    out.push(MetricFamily.toObject(MetricFamily.decodeDelimited(reader), { enums: String, longs: Number, defaults: false }) as Decoded);
  }
  return out;
}

/** Absolute counts by native bucket index, from spans and deltas. */
function nativeCounts(h: Record<string, any>): Map<number, number> {
  const out = new Map<number, number>();
  let index = 0;
  let count = 0;
  let d = 0;
  // The first span's offset is the starting index; each later one's is the gap after the previous span.
  for (const span of (h['positiveSpan'] ?? []) as { offset?: number; length?: number }[]) {
    index += span.offset ?? 0;
    for (let j = 0; j < (span.length ?? 0); j++) {
      count += h['positiveDelta'][d++];
      out.set(index, count);
      index += 1;
    }
  }
  return out;
}

async function scrapeProto(options: Parameters<typeof newTestServer>[0]) {
  const t = await newTestServer(options);
  await t.request('GET', '/api/v1/namespaces');
  await t.request('GET', '/api/v1/namespaces/default');
  const r = await t.request('GET', '/metrics', { headers: { accept } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited');
  return decodeAll(new Uint8Array(await r.arrayBuffer()));
}

describe('protobuf exposition', () => {
  it('the bundled descriptor is metrics.proto', () => {
    expect(descriptor).toEqual(root.toJSON());
    expect(readFileSync(protoPath, 'utf8')).toContain('package io.prometheus.client;');
  });

  it('[AC-METRICS-011][AC-METRICS-020][AC-METRICS-024] with NativeHistograms: classic buckets and native spans side by side', async () => {
    const families = await scrapeProto({ featureGates: { NativeHistograms: true } });
    expect(families.map((f) => f.name)).toEqual([...families.map((f) => f.name)].sort());
    const total = families.find((f) => f.name === 'apiserver_request_total')!;
    expect(total.type).toBe('COUNTER');
    expect(total.help).toBe('[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    expect(total.metric.find((m) => m.label!.some((l) => l.name === 'verb' && l.value === 'LIST'))!.counter!.value).toBe(1);
    const feature = families.find((f) => f.name === 'kubernetes_feature_enabled')!;
    expect(feature.type).toBe('GAUGE');
    expect(feature.metric.find((m) => m.label!.some((l) => l.value === 'NativeHistograms'))!.gauge!.value).toBe(1);
    const duration = families.find((f) => f.name === 'apiserver_request_duration_seconds')!;
    expect(duration.type).toBe('HISTOGRAM');
    for (const m of duration.metric) {
      const h = m.histogram!;
      expect(h['bucket']).toHaveLength(23);
      expect(h['bucket'][0].upperBound).toBe(0.005);
      expect(h['schema']).toBe(3);
      expect(h['zeroThreshold']).toBe(2 ** -128);
      const counts = nativeCounts(h);
      expect([...counts.values()].reduce((a, b) => a + b, 0) + (h['zeroCount'] ?? 0)).toBe(h['sampleCount']);
      expect(counts.size).toBeLessThanOrEqual(nativeMaxBuckets);
    }
  });

  it('[AC-LIM-001] every native histogram in /metrics holds at most 160 buckets', async () => {
    const families = await scrapeProto({ featureGates: { NativeHistograms: true } });
    const natives = families.filter((f) => f.type === 'HISTOGRAM').flatMap((f) => f.metric.map((m) => m.histogram!)).filter((h) => h['schema'] !== undefined);
    expect(natives.length).toBeGreaterThan(0);
    for (const h of natives) expect(nativeCounts(h).size + (h['negativeSpan'] ? nativeCounts({ positiveSpan: h['negativeSpan'], positiveDelta: h['negativeDelta'] }).size : 0)).toBeLessThanOrEqual(160);
  });

  it('[AC-METRICS-020] without the gate (its 1.36 default) protobuf histograms are classic only', async () => {
    const families = await scrapeProto({});
    const h = families.find((f) => f.name === 'apiserver_request_duration_seconds')!.metric[0]!.histogram!;
    expect(h['bucket']).toHaveLength(23);
    expect(h['schema']).toBeUndefined();
    expect(h['positiveSpan']).toBeUndefined();
  });

  it('[AC-METRICS-019] the text exposition has only classic series, even with native histograms on', async () => {
    const t = await newTestServer({ featureGates: { NativeHistograms: true } });
    await t.request('GET', '/api/v1/namespaces');
    const text = await (await t.request('GET', '/metrics', { headers: { accept: 'text/plain' } })).text();
    const series = text.split('\n').filter((l) => l.startsWith('apiserver_request_duration_seconds')).map((l) => l.split(/[{ ]/)[0]);
    expect(new Set(series)).toEqual(new Set(['apiserver_request_duration_seconds_bucket', 'apiserver_request_duration_seconds_sum', 'apiserver_request_duration_seconds_count']));
  });

  it('[AC-LIM-001] native buckets: exact indexes, spans with small gaps filled, at most 160 buckets by halving the resolution', () => {
    // Schema 3: bucket 0 is (2^-1/8, 1], bucket 8 is (2^7/8, 2].
    expect([1, 2, 1.0000001, 0.5, 4].map((v) => nativeBucketIndex(v, 3))).toEqual([0, 8, 1, -8, 16]);
    expect(nativeSpans(new Map([[-2, 1], [0, 3], [5, 2]]))).toEqual({ spans: [{ offset: -2, length: 3 }, { offset: 4, length: 1 }], deltas: [1, -1, 3, -1] });
    const r = new MetricsRegistry();
    const h = r.register(new Histogram({ name: 'wide_seconds', help: 'h', buckets: [1] }));
    for (let i = 0; i < 1000; i++) h.observe([], 1.05 ** i / 1000);
    h.observe([], 0);
    const decoded = decodeAll(encodeProtobufExposition([{ metric: h, help: '[ALPHA] h' }], { nativeHistograms: true }))[0]!.metric[0]!.histogram!;
    expect(decoded['schema']).toBeLessThan(3);
    const counts = nativeCounts(decoded);
    expect(counts.size).toBeLessThanOrEqual(nativeMaxBuckets);
    expect(decoded['zeroCount']).toBe(1);
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(1000);
    // Every observation sits in the bucket its index names at the final schema.
    const base = 2 ** (2 ** -decoded['schema']);
    for (const v of [1.05 ** 10 / 1000, 1.05 ** 500 / 1000]) {
      const i = nativeBucketIndex(v, decoded['schema']);
      expect(base ** (i - 1) < v && v <= base ** i * (1 + 1e-12)).toBe(true);
      expect(counts.get(i)).toBeGreaterThan(0);
    }
  });
});

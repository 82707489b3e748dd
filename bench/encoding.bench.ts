/**
 * Response encodings side by side: encode and decode of a 1,000-item PodList in
 * JSON, protobuf and CBOR, each as a ratio to JSON measured in the same process.
 * JSON is timed with its UTF-8 step (a response body is bytes), which is what the
 * server does for it; the bare JSON.stringify/parse figures are shown for scale.
 *
 * Run: npx tsx bench/encoding.bench.ts [items=1000] [rounds=7]
 */
import { isDeepStrictEqual } from 'node:util';
import { cborSerializer } from '../src/core/http/serializers/cborSerializer';
import { jsonSerializer } from '../src/core/http/serializers/json';
import { protobufSerializer } from '../src/core/http/serializers/protobufSerializer';
import { pod } from '../src/core/http/serializers/protobuf/fixtures.test-data';

const count = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 7);

/** A PodList as the server lists it: typed items without kind and apiVersion, each with its own name, uid and resourceVersion. */
function podList(n: number): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...item } = pod;
  const items = Array.from({ length: n }, (_, i) => {
    const copy = structuredClone(item) as { metadata: Record<string, unknown> };
    copy.metadata = { ...copy.metadata, name: `web-${i.toString(36)}-7d9f8c6b5-x${i}`, uid: `6a1f4a52-7c8e-4d8e-9a43-${String(i).padStart(12, '0')}`, resourceVersion: String(1000 + i) };
    return copy;
  });
  return { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(1000 + n) }, items };
}

/** CPU milliseconds per call (user + system of this process), best of `rounds` after a warm-up. */
function measure(fn: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round <= rounds; round++) {
    const start = process.cpuUsage();
    let calls = 0;
    const until = performance.now() + 150;
    do {
      fn();
      calls++;
    } while (performance.now() < until);
    const used = process.cpuUsage(start);
    const ms = (used.user + used.system) / 1000 / calls;
    if (round > 0) best = Math.min(best, ms);
  }
  return best;
}

const list = podList(count);
const codecs = [
  ['JSON', jsonSerializer],
  ['protobuf', protobufSerializer],
  ['CBOR', cborSerializer],
] as const;

const bodies = new Map(codecs.map(([name, s]) => [name, s.encode(list)]));
for (const [name, s] of codecs) {
  // Every encoding must give the same list back before it is timed.
  if (!isDeepStrictEqual(s.decode(bodies.get(name)!), JSON.parse(JSON.stringify(list)))) throw new Error(`${name} does not round-trip the list`);
}

const results = codecs.map(([name, s]) => {
  const body = bodies.get(name)!;
  return { name, bytes: body.length, encode: measure(() => s.encode(list)), decode: measure(() => s.decode(body)) };
});
const json = results[0]!;
const text = JSON.stringify(list);
const bare = { encode: measure(() => JSON.stringify(list)), decode: measure(() => JSON.parse(text)) };

const pad = (s: string, n: number) => s.padEnd(n);
console.log(`PodList of ${count} Pods (${(json.bytes / count).toFixed(0)} B per Pod in JSON); times are CPU ms per call, best of ${rounds}`);
console.log(`${pad('encoding', 10)}${pad('bytes', 12)}${pad('size/JSON', 11)}${pad('encode ms', 11)}${pad('enc/JSON', 10)}${pad('decode ms', 11)}dec/JSON`);
for (const r of results) {
  console.log(
    `${pad(r.name, 10)}${pad(r.bytes.toLocaleString('en'), 12)}${pad((r.bytes / json.bytes).toFixed(2), 11)}${pad(r.encode.toFixed(2), 11)}${pad((r.encode / json.encode).toFixed(2), 10)}${pad(r.decode.toFixed(2), 11)}${(r.decode / json.decode).toFixed(2)}`,
  );
}
console.log(`(JSON without the UTF-8 step: JSON.stringify ${bare.encode.toFixed(2)} ms, JSON.parse ${bare.decode.toFixed(2)} ms.) Ratios above 1 are slower than JSON.`);

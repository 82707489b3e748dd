/**
 * Protobuf codec benchmark: size of the bundled descriptor, cold start, and
 * encode/decode of a Pod against the JSON baseline run beside it
 * (JSON.stringify/JSON.parse, with and without the UTF-8 step a response needs).
 *
 * Run: npx tsx bench/protobuf.bench.ts [iterations]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { decodeProtobuf, encodeProtobuf } from '../src/core/http/serializers/protobuf';
import { deployment, pod, podList } from '../src/core/http/serializers/protobuf/fixtures.test-data';

const generated = join(dirname(fileURLToPath(import.meta.url)), '../src/core/http/serializers/protobuf/generated');
const iterations = Number(process.argv[2] ?? 5000);

function fileSizes(name: string): string {
  const bytes = readFileSync(join(generated, name));
  return `${name}: ${bytes.length.toLocaleString('en')} B, gzip ${gzipSync(bytes, { level: 9 }).length.toLocaleString('en')} B`;
}

/**
 * CPU nanoseconds per call (user + system time of this process, so other load on
 * the machine counts less than with wall time), best of 7 rounds after a warm-up.
 */
function measure(fn: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 8; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) fn();
    const used = process.cpuUsage(start);
    const ns = ((used.user + used.system) * 1000) / iterations;
    if (round > 0) best = Math.min(best, ns);
  }
  return best;
}

const coldStart = process.hrtime.bigint();
encodeProtobuf(pod);
const coldMs = Number(process.hrtime.bigint() - coldStart) / 1e6;

console.log('descriptor');
console.log(`  ${fileSizes('descriptor.json')}`);
console.log(`  ${fileSizes('kinds.json')}`);
console.log(`  first Pod encode (plans compiled on demand): ${coldMs.toFixed(2)} ms`);

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
for (const [name, obj] of [['Pod', pod], ['Deployment', deployment], ['PodList (2 items)', podList]] as const) {
  const json = JSON.stringify(obj);
  const jsonBytes = utf8Encoder.encode(json);
  const pb = encodeProtobuf(obj);
  const encPb = measure(() => encodeProtobuf(obj));
  const encJson = measure(() => JSON.stringify(obj));
  const encJsonBytes = measure(() => utf8Encoder.encode(JSON.stringify(obj)));
  const decPb = measure(() => decodeProtobuf(pb));
  const decJson = measure(() => JSON.parse(json));
  const decJsonBytes = measure(() => JSON.parse(utf8Decoder.decode(jsonBytes)));
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
  console.log(`${name}: protobuf ${pb.length} B, JSON ${jsonBytes.length} B (size ratio ${(pb.length / jsonBytes.length).toFixed(2)})`);
  console.log(`  encode  protobuf ${us(encPb)} | JSON.stringify ${us(encJson)} (ratio ${(encPb / encJson).toFixed(2)}) | stringify+UTF-8 ${us(encJsonBytes)} (ratio ${(encPb / encJsonBytes).toFixed(2)})`);
  console.log(`  decode  protobuf ${us(decPb)} | JSON.parse ${us(decJson)} (ratio ${(decPb / decJson).toFixed(2)}) | UTF-8+parse ${us(decJsonBytes)} (ratio ${(decPb / decJsonBytes).toFixed(2)})`);
}

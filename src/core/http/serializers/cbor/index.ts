/**
 * Kubernetes CBOR (`application/cbor`, `application/cbor-seq` watches), both
 * directions between bytes and an object's JSON form.
 *
 * - encode.ts: what kube-apiserver writes (self-described tag, byte strings,
 *   deterministic key order, []byte fields in tag 22).
 * - decode.ts: what kube-apiserver's decode mode accepts, into JSON values.
 */
export { SELF_DESCRIBED_CBOR, encodeCbor, encodeCborWatchEvent } from './encode';
export { CborDecodeError, decodeCbor, decodeCborSequence } from './decode';

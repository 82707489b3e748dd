/** A serializer turns objects into bytes and back for one media type. */
export interface Serializer {
  /** The media type written in Content-Type (`application/json`). */
  readonly mediaType: string;
  /** Whether the encoding is text (Content-Type gets no charset; used for pretty printing). */
  readonly binary: boolean;
  encode(obj: unknown, options?: { pretty?: boolean }): Uint8Array;
  /** Decodes one object; throws a StatusError (400) describing malformed input. */
  decode(body: Uint8Array): unknown;
  /** Encodes one watch event frame (JSON: one line; protobuf: a length-prefixed WatchEvent; CBOR: one sequence item). */
  encodeWatchEvent?(event: unknown): Uint8Array;
  /** Whether this serializer can represent the given object (protobuf: built-in kinds only). */
  supports?(obj: { apiVersion?: unknown; kind?: unknown }): boolean;
}

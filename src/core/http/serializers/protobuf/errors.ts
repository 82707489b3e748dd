/**
 * Errors of the protobuf codec. The HTTP layer turns a ProtobufDecodeError into a
 * 400 (malformed body, missing or unknown kind) or 415 Status; an encode error is a
 * programmer mistake (the caller should have asked `supportsProtobuf` first).
 */

/** Why a body could not be decoded; lets the caller pick the Status reason. */
export type ProtobufDecodeErrorReason =
  | 'BadPrefix' // not a Kubernetes protobuf envelope (wrong or missing magic bytes)
  | 'Malformed' // truncated or invalid wire data
  | 'MissingKind' // the envelope names no kind or no apiVersion
  | 'UnknownKind'; // the kind has no protobuf message (custom resource, unknown type)

export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
  constructor(
    readonly reason: ProtobufDecodeErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON value the message cannot hold; `path` grows as the error unwinds (".spec", "[0]"). */
export class ProtobufEncodeError extends Error {
  override readonly name = 'ProtobufEncodeError';
  readonly path: string[] = [];
  constructor(readonly detail: string) {
    super(detail);
  }

  /** Prepends a path segment and refreshes the message. */
  within(segment: string): this {
    this.path.unshift(segment);
    this.message = `${this.path.join('')}: ${this.detail}`;
    return this;
  }
}

/** "expected a string, got 7": the detail of a type mismatch. */
export function mismatch(expected: string, got: unknown): ProtobufEncodeError {
  return new ProtobufEncodeError(`expected ${expected}, got ${JSON.stringify(got)}`);
}

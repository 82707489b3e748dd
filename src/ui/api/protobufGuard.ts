/**
 * The workbench asks for JSON, yet a body labelled
 * `application/vnd.kubernetes.protobuf` can still arrive (from a proxy, or a
 * server that ignores Accept). A Kubernetes client must reject such a body
 * when it lacks the `k8s\0` magic prefix: an incompatible change of the format
 * is signalled by changing the prefix. This client, having no protobuf
 * decoder, reports an enveloped body it cannot read as well.
 */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** "k8s\0". */
const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** client-go's words for a body without the prefix. */
export const BAD_PREFIX_MESSAGE = `provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`;

export function isProtobufResponse(response: Response): boolean {
  const type = response.headers.get('Content-Type') ?? '';
  return type.split(';')[0]!.trim().toLowerCase() === PROTOBUF_MEDIA_TYPE;
}

/** Why a protobuf body cannot be used: a missing prefix, or an envelope this JSON client cannot decode. */
export function protobufBodyProblem(bytes: Uint8Array): string {
  const prefixed = bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
  if (!prefixed) return BAD_PREFIX_MESSAGE;
  return `the server answered ${PROTOBUF_MEDIA_TYPE} to a request for application/json`;
}

/** The text of a response body, or the problem with it when it is protobuf. */
export async function responseText(response: Response): Promise<{ text: string } | { problem: string }> {
  if (!isProtobufResponse(response)) return { text: await response.text() };
  return { problem: protobufBodyProblem(new Uint8Array(await response.arrayBuffer())) };
}

/**
 * The protobuf serializer (`application/vnd.kubernetes.protobuf`) over the
 * generated codec; built-in kinds only, never custom resources.
 */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

export function supportsProtobufKind(_apiVersion: string, _kind: string): boolean {
  return false;
}

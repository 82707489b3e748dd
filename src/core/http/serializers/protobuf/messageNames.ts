/**
 * Which message encodes a kind, from the generated kind table alone. Apart
 * from the codec because every request asks it (may this answer be protobuf?)
 * while the codec is a part the service worker loads on the first protobuf
 * request (src/sw/chunkLoader.ts).
 */
import { kindMessages } from './generated';

/**
 * meta/v1 kinds every built-in group version registers (metav1.AddToGroupVersion), so
 * a group's ListOptions has a message even where the OpenAPI lists only DeleteOptions.
 */
const META_KINDS_IN_EVERY_GROUP = new Set([
  'WatchEvent', 'DeleteOptions', 'ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions',
]);

/** The message full name of a kind, or undefined when it has none (custom resources). */
export function messageNameFor(apiVersion: string, kind: string): string | undefined {
  const name = kindMessages[`${apiVersion}/${kind}`];
  if (name) return name;
  if (META_KINDS_IN_EVERY_GROUP.has(kind) && kindMessages[`${apiVersion}/DeleteOptions`]) {
    return `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`;
  }
  return undefined;
}

/**
 * A scenario as a URL fragment (`#scenario=<deflate-raw, base64url>`), so a
 * link carries the whole scenario and no server ever sees it. Uses the
 * platform's CompressionStream.
 */
export const FRAGMENT_KEY = 'scenario';

async function pipe(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The fragment (without '#') that carries this scenario text. */
export async function scenarioFragment(text: string): Promise<string> {
  return `${FRAGMENT_KEY}=${toBase64Url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')))}`;
}

/** The scenario text in a fragment, or undefined when the fragment carries none. */
export async function scenarioFromFragment(fragment: string): Promise<string | undefined> {
  const value = new URLSearchParams(fragment.replace(/^#/, '')).get(FRAGMENT_KEY);
  if (!value) return undefined;
  return new TextDecoder().decode(await pipe(fromBase64Url(value), new DecompressionStream('deflate-raw')));
}

/**
 * Reads a pods/log body as it arrives. The body is text/plain; with `follow`
 * it stays open and grows as the container writes, and ends when the
 * container does. Chunks are decoded as a stream, so a character split across
 * two chunks comes out whole. A failure is the server's Status (an ApiError),
 * as kubectl prints it.
 */
import { ApiError, statusFrom, type ApiClient } from '../../../api';

export interface PodLogReader {
  /** The server answered 200: the body follows (a follow stream may stay silent for a while). */
  onOpen(): void;
  /** Each decoded piece of the body. */
  onText(text: string): void;
}

/**
 * GETs the log at path, calling the reader as the body arrives, until it
 * ends (resolves) or signal aborts (resolves too: the reader is cancelled,
 * which closes the stream on the server).
 */
export async function readPodLog(client: ApiClient, path: string, signal: AbortSignal, { onOpen, onText }: PodLogReader): Promise<void> {
  const response = await client.fetch(path, { headers: { Accept: 'application/json, */*' }, signal });
  if (!response.ok) throw new ApiError(await statusFrom(response));
  onOpen();
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      const text = decoder.decode(value, { stream: true });
      if (text) onText(text);
    }
    const rest = decoder.decode();
    if (rest && !signal.aborted) onText(rest);
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}

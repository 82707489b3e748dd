/**
 * Starts the core at most once per worker lifetime, on first use. The browser
 * stops idle workers and starts them again on the next fetch; all cluster
 * state is in IndexedDB, so a fresh start simply reopens it. A failed start
 * is forgotten, so the next request tries again.
 */

export function lazily<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => {
    started ??= start().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
}

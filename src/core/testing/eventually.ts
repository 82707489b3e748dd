/**
 * Polls `fn` until `ok` holds of its answer (controllers and watches act on
 * their own turns): the answer that satisfied it, or an error naming `what`
 * and the last answer seen after `tries` polls 2 ms apart.
 */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string, tries = 500): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await fn();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

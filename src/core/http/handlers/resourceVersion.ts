/**
 * resourceVersion parameters of get, list and watch (the spec's "Version
 * semantics" tables): parsing, validation of the combinations, continue
 * tokens, and waiting for a revision the store has not reached yet.
 */
import { forbidden, newBadRequest, newResourceExpired, newTooLargeResourceVersion, notSupported, type FieldError } from '../../errors';
import type { Storage } from '../../storage/interface';
import type { Clock } from '../../util/clock';
import { newInvalidOptions } from './common';

/** How long a read waits for a resourceVersion the store has not reached (the watch cache's blockTimeout). */
export const tooLargeResourceVersionWaitMs = 3000;

export function parseResourceVersion(rv: string | null): number | undefined {
  if (rv === null || rv === '') return undefined;
  if (!/^\d+$/.test(rv)) throw newBadRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  return Number(rv);
}

export interface ListParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit: number;
  continueToken?: string;
}

/** ListOptions validation, with kube-apiserver's 422 messages. */
export function validateListParams(url: URL, isWatch: boolean): ListParams {
  const q = url.searchParams;
  const rv = q.get('resourceVersion') ?? undefined;
  const match = q.get('resourceVersionMatch') ?? undefined;
  const cont = q.get('continue') || undefined;
  const limitStr = q.get('limit');
  const limit = limitStr ? Number(limitStr) : 0;
  if (limitStr && (!/^-?\d+$/.test(limitStr))) throw newBadRequest(`invalid value for limit: ${limitStr}`);
  const errs: FieldError[] = [];
  if (match) {
    if (!rv) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  const sendInitialEvents = q.get('sendInitialEvents');
  if (sendInitialEvents !== null && sendInitialEvents !== '') {
    if (!isWatch) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    else if (match !== 'NotOlderThan') {
      errs.push(forbidden('resourceVersionMatch', "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
  } else if (isWatch && match) {
    errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
  }
  if (errs.length) throw newInvalidOptions('ListOptions', errs);
  return { resourceVersion: rv, resourceVersionMatch: match, limit: limit > 0 ? limit : 0, continueToken: cont };
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export function encodeContinue(revision: number, start: string): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    const b64 = token.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    throw newBadRequest('continue key is not valid: illegal base64 data at input byte 0');
  }
  const t = parsed as Partial<ContinueToken>;
  if (t.v !== 'meta.k8s.io/v1') throw newBadRequest('continue key is not valid: server does not recognize this encoded key');
  if (typeof t.rv !== 'number' || typeof t.start !== 'string' || t.rv <= 0) throw newBadRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (t.start.includes('..') || t.start.startsWith('/')) throw newBadRequest('continue key is not valid: key must be relative and not contain ..');
  return t as ContinueToken;
}

export const expiredContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export const expiredListMessage = 'The resourceVersion for the provided list is too old.';

export function expiredContinue() {
  return newResourceExpired(expiredContinueMessage);
}

/**
 * Waits (briefly, on the injected clock) until the store reaches revision,
 * then 504 `Too large resource version` with Retry-After, as the watch cache does.
 */
export async function waitForRevision(storage: Storage, clock: Clock, revision: number, signal?: AbortSignal): Promise<void> {
  const current = await storage.currentRevision();
  if (revision <= current) return;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let unsubscribe: (() => void) | undefined;
  const reached = new Promise<boolean>((resolve) => {
    void storage
      .watch('', current, (e) => {
        if (e.revision >= revision) resolve(true);
      })
      .then((u) => {
        unsubscribe = u;
        if (stop.signal.aborted) u();
      });
  });
  try {
    const ok = await Promise.race([reached, clock.sleep(tooLargeResourceVersionWaitMs, stop.signal).then(() => false)]);
    if (!ok) throw newTooLargeResourceVersion(revision, await storage.currentRevision(), 1);
  } finally {
    stop.abort();
    unsubscribe?.();
    signal?.removeEventListener('abort', onAbort);
  }
}

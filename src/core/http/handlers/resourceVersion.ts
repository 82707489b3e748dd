/**
 * resourceVersion parameters of get, list and watch (the spec's "Version
 * semantics" tables): parsing, ListOptions validation with kube-apiserver's
 * messages, continue tokens, the expiry errors, and waiting for a revision
 * the store has not reached yet.
 */
import {
  fieldErrorString,
  forbidden,
  goQuote,
  invalid,
  newBadRequest,
  newResourceExpired,
  newTooLargeResourceVersion,
  notSupported,
  type FieldError,
  type StatusError,
} from '../../errors';
import type { Storage } from '../../storage/interface';
import type { Clock } from '../../util/clock';
import { newInvalidOptions } from './common';
import { boolParam, optionalBoolParam } from '../queryParams';

/** How long a read waits for a resourceVersion the store has not reached (the watch cache's blockTimeout). */
export const tooLargeResourceVersionWaitMs = 3000;
/** Retry-After sent with `Too large resource version`. */
export const tooLargeResourceVersionRetrySeconds = 1;

const maxUint64 = 2n ** 64n - 1n;
const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;

/** "" and "0" are both "no particular version" (undefined); anything else must be a uint64. */
export function parseResourceVersion(rv: string | null | undefined): number | undefined {
  if (rv === null || rv === undefined || rv === '' || rv === '0') return undefined;
  const problem = !/^\d+$/.test(rv) ? 'invalid syntax' : BigInt(rv) > maxUint64 ? 'value out of range' : undefined;
  if (problem) {
    const err = invalid('resourceVersion', rv, `strconv.ParseUint: parsing ${goQuote(rv)}: ${problem}`);
    throw newBadRequest(`invalid resource version: ${fieldErrorString(err)}`);
  }
  return Number(rv);
}


export interface ListParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** 0 = no limit. */
  limit: number;
  continueToken?: string;
  /** Watch only: the streaming-list flag, after kube's defaulting. */
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
  /** Watch only: the requested duration, if any. */
  timeoutSeconds?: number;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const s = q.get(name);
  if (s === null || s === '') return undefined;
  if (!/^[-+]?\d+$/.test(s)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  // The query decodes into int64 fields: Go's ParseInt refuses what does not fit.
  const n = BigInt(s);
  if (n < minInt64 || n > maxInt64) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(s);
}

/**
 * Decodes ListOptions from the query and validates them (ValidateListOptions,
 * 422 Invalid with kube-apiserver's field errors). For watches the streaming
 * list defaults apply first (SetListOptionsDefaults with WatchList on): a
 * watch with no resourceVersion or "0" and neither sendInitialEvents nor
 * resourceVersionMatch is a streaming list from "now" or "any".
 */
export function validateListParams(url: URL, isWatch: boolean): ListParams {
  const q = url.searchParams;
  const rv = q.get('resourceVersion') ?? undefined;
  let match = q.get('resourceVersionMatch') || undefined;
  const cont = q.get('continue') || undefined;
  const limit = intParam(q, 'limit') ?? 0;
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  let sendInitialEvents = optionalBoolParam(q, 'sendInitialEvents');
  const allowWatchBookmarks = boolParam(q, 'allowWatchBookmarks');

  const errs: FieldError[] = [];
  if (isWatch) {
    if (sendInitialEvents === undefined && !match && (!rv || rv === '0')) {
      sendInitialEvents = true;
      match = 'NotOlderThan';
    }
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (sendInitialEvents === undefined) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (cont) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!rv) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (cont) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitialEvents !== undefined) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length) throw newInvalidOptions('ListOptions', errs);
  return {
    resourceVersion: rv,
    resourceVersionMatch: match,
    limit: limit > 0 ? limit : 0,
    continueToken: cont,
    sendInitialEvents,
    allowWatchBookmarks,
    timeoutSeconds: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds : undefined,
  };
}

/** A decoded continue token: the snapshot revision (-1 = latest) and the key suffix to resume from. */
export interface ContinueToken {
  rv: number;
  start: string;
}

function base64UrlEncode(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** kube's continue token: unpadded base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"<key suffix>"}. */
export function encodeContinue(revision: number, start: string): string {
  return base64UrlEncode(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start }));
}

function invalidContinue(detail: string): StatusError {
  return newBadRequest(`invalid continue token: continue key is not valid${detail}`);
}

/** DecodeContinue, with the 400s the store answers for a bad token. */
export function decodeContinue(token: string): ContinueToken {
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0 || token.length % 4 === 1) throw invalidContinue(`: illegal base64 data at input byte ${bad >= 0 ? bad : token.length - 1}`);
  let parsed: unknown;
  try {
    const b64 = token.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    throw invalidContinue(': invalid character in encoded key');
  }
  const t = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown };
  if (t.v !== 'meta.k8s.io/v1') throw invalidContinue(': server does not recognize this encoded key');
  if (typeof t.rv !== 'number' || !Number.isInteger(t.rv) || t.rv === 0) throw invalidContinue(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof t.start !== 'string' || t.start === '') throw invalidContinue(': encoded start key empty (version meta.k8s.io/v1)');
  // The key must stay inside the collection: no traversal, no absolute or unclean paths.
  const key = t.start.startsWith('/') ? t.start : '/' + t.start;
  if (key.split('/').some((seg, i) => i > 0 && (seg === '..' || seg === '.' || seg === '')) && key !== '/') {
    throw invalidContinue(`: ${t.start}`);
  }
  return { rv: t.rv, start: key.slice(1) };
}

export const expiredListMessage = 'The resourceVersion for the provided list is too old.';
export const expiredContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** 410 for a list at a compacted revision. */
export function expiredList(): StatusError {
  return newResourceExpired(expiredListMessage);
}

/**
 * 410 for a continue token whose snapshot is gone. Like the etcd3 store it
 * carries, in the Status's metadata.continue, a token that resumes at the
 * latest revision (rv -1) from the same key, for clients that accept an
 * inconsistent remainder.
 */
export function expiredContinue(start: string): StatusError {
  const err = newResourceExpired(expiredContinueMessage);
  err.status.metadata = { continue: encodeContinue(-1, start) };
  return err;
}

/** `too old resource version: <requested> (<oldest available>)`, the watch cache's 410 message. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return newResourceExpired(`too old resource version: ${requested} (${oldest})`);
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
  let resolveReached!: (ok: boolean) => void;
  const reached = new Promise<boolean>((resolve) => {
    resolveReached = resolve;
  });
  try {
    unsubscribe = await storage.watch('', current, (e) => {
      if (e.revision >= revision) resolveReached(true);
    });
    if ((await storage.currentRevision()) >= revision) return;
    const ok = await Promise.race([reached, clock.sleep(tooLargeResourceVersionWaitMs, stop.signal).then(() => false)]);
    if (!ok) throw newTooLargeResourceVersion(revision, await storage.currentRevision(), tooLargeResourceVersionRetrySeconds);
  } finally {
    stop.abort();
    unsubscribe?.();
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * kubesim's operator endpoints under `/debug/kubesim/`, a path no Kubernetes
 * API uses. Like kube-apiserver's `/debug/*` paths they are non-resource URLs
 * behind authorization (with RBAC only `nonResourceURLs: ["*"]` holders such
 * as cluster-admin reach them):
 *
 * - `GET /debug/kubesim/clock`: the server time and whether the clock is fake;
 *   `POST /debug/kubesim/clock?advance=90s` moves a fake clock forward (grace
 *   periods, progress deadlines, watch history windows and token expiry then
 *   happen on demand).
 * - `GET /debug/kubesim/storage/<key>`: the raw stored value of a key;
 *   `PUT /debug/kubesim/storage/<key>`: writes the request body as the raw
 *   stored value of an etcd-style key (`/registry/configmaps/default/x`), so an
 *   object storage cannot decode can be made on purpose, as a lost encryption
 *   key or a bad write leaves it in etcd.
 * - `POST /debug/kubesim/hold-write?phase=before-commit|after-commit&key=<prefix>`:
 *   the next write of a key under the prefix waits before (or after) the
 *   backend commits it, so a test can stop the host at that point;
 *   `GET` shows whether a write is held, `DELETE` lets it go on.
 */
import { formatTime } from '../api/types';
import { newBadRequest, newRouteMethodNotAllowed } from '../errors';
import { writeObject, writeText } from '../http/responseWriter';
import { jsonSerializer } from '../http/serializers/json';
import { parseGoDuration } from '../http/serializers/protobuf/goDuration';
import type { Storage } from '../storage/interface';
import { FakeClock, type Clock } from '../util/clock';
import type { HeldWrites } from './heldWrites';

export const kubesimDebugPrefix = '/debug/kubesim/';

export interface KubesimDebugDeps {
  clock: Clock;
  storage: Storage;
  heldWrites?: HeldWrites;
}

/** Answers a request under /debug/kubesim/, or undefined for other paths. */
export async function serveKubesimDebug(request: Request, url: URL, deps: KubesimDebugDeps): Promise<Response | undefined> {
  if (!url.pathname.startsWith(kubesimDebugPrefix)) return undefined;
  const rest = url.pathname.slice(kubesimDebugPrefix.length);
  if (rest === 'clock') return clock(request, url, deps.clock);
  if (rest.startsWith('storage/')) return storageWrite(request, `/${rest.slice('storage/'.length)}`, deps.storage);
  if (rest === 'hold-write' && deps.heldWrites) return holdWrite(request, url, deps.heldWrites);
  return writeText(404, '404 page not found\n');
}

async function clock(request: Request, url: URL, clock: Clock): Promise<Response> {
  const fake = clock instanceof FakeClock;
  if (request.method === 'POST') {
    if (!fake) throw newBadRequest('the server clock is real; start the server with --fake-clock to advance it');
    const advance = url.searchParams.get('advance') ?? '';
    let ns: bigint;
    try {
      ns = parseGoDuration(advance);
    } catch (e) {
      throw newBadRequest(`advance: ${(e as Error).message}`);
    }
    if (ns < 0n) throw newBadRequest(`advance: a clock only moves forward, got ${JSON.stringify(advance)}`);
    clock.advance(Number(ns / 1_000_000n));
    // Let what the clock woke (grace periods ending, deadlines) run before answering.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  } else if (request.method !== 'GET') {
    throw newRouteMethodNotAllowed();
  }
  return writeObject(jsonSerializer, 200, { now: formatTime(clock.now()), fake }, { pretty: true });
}

async function storageWrite(request: Request, key: string, storage: Storage): Promise<Response> {
  if (!key.startsWith('/registry/') || key.endsWith('/')) throw newBadRequest(`not a storage key: ${JSON.stringify(key)}`);
  if (request.method === 'GET') {
    // The stored bytes as they are, readable or not.
    const kv = await storage.get(key);
    return kv ? writeText(200, kv.value) : writeText(404, '404 page not found\n');
  }
  if (request.method !== 'PUT') throw newRouteMethodNotAllowed();
  const value = await request.text();
  const current = await storage.get(key);
  const kv = current ? await storage.update(key, value, current.modRevision) : await storage.create(key, value);
  return writeObject(jsonSerializer, 200, { key, revision: kv.modRevision }, { pretty: true });
}

function holdWrite(request: Request, url: URL, held: HeldWrites): Response {
  if (request.method === 'POST') {
    const phase = url.searchParams.get('phase');
    const key = url.searchParams.get('key') ?? '';
    if (phase !== 'before-commit' && phase !== 'after-commit') throw newBadRequest('phase must be before-commit or after-commit');
    if (!key.startsWith('/registry/')) throw newBadRequest(`not a storage key prefix: ${JSON.stringify(key)}`);
    held.arm(phase, key);
  } else if (request.method === 'DELETE') {
    held.release();
  } else if (request.method !== 'GET') {
    throw newRouteMethodNotAllowed();
  }
  return writeObject(jsonSerializer, 200, held.state(), { pretty: true });
}

/**
 * Shared pieces of the reliability suites: a raw HTTP client (paths are sent
 * exactly as given, so `..` and `%2F` reach the server unnormalised), a
 * checksum of the whole store, the shape check for a kube `Status`, and the
 * figures each suite records for scripts/reliability-report.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Storage } from '../../src/core';
import { resourcePrefix } from '../../src/core/registry/generic/keys';

export interface RawRequest {
  method: string;
  /** The request target as sent on the wire: path and query, never normalised. */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * One request over a kept-alive connection. A 200 to a watch is not read to its
 * end: the connection is dropped once the headers arrived.
 */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      if (res.statusCode === 200 && /[?&]watch=(1|true)/.test(req.path)) {
        res.destroy();
        done();
        return;
      }
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', done);
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : Buffer.from(req.body));
  });
}

export interface KubeStatus {
  kind: string;
  apiVersion: string;
  status: string;
  message: string;
  reason?: string;
  code: number;
  details?: Record<string, unknown>;
}

/** Asserts the response is a failure `Status` whose code is the HTTP status, and returns it. */
export function expectStatus(res: RawResponse, context: string): KubeStatus {
  const type = String(res.headers['content-type'] ?? '');
  expect(type, `${context}: content-type of a ${res.status}: ${res.body.toString('utf8', 0, 300)}`).toMatch(/^application\/json\b/);
  const status = JSON.parse(res.body.toString('utf8')) as KubeStatus;
  expect(status, context).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: res.status });
  expect(typeof status.message, context).toBe('string');
  return status;
}

/** The Leases the control plane renews on its own clock (kube-apiserver's identity, leader election, node heartbeats). */
const heartbeatLeases = resourcePrefix('coordination.k8s.io', 'leases');

/**
 * sha256 over every key, value and modification revision in the backend but
 * the heartbeat Leases, which the control plane rewrites every few seconds
 * whatever the requests do (the store's revision moves with them).
 */
export async function storeChecksum(storage: Storage): Promise<{ keys: number; sha256: string }> {
  const revision = await storage.currentRevision();
  const { kvs } = await storage.range('/', { revision });
  const hash = createHash('sha256');
  let keys = 0;
  for (const kv of kvs) {
    if (kv.key.startsWith(heartbeatLeases)) continue;
    hash.update(`\0${kv.key}\0${kv.modRevision}\0${kv.value}`);
    keys++;
  }
  return { keys, sha256: hash.digest('hex') };
}

/** Where suites leave their figures (build/ is not committed); the report script reads them. */
export const figuresDir = process.env.KUBESIM_RELIABILITY_DIR ?? fileURLToPath(new URL('../../build/reliability', import.meta.url));

/** Records one suite's figures with the command that reproduces them. */
export function recordFigures(name: string, figures: Record<string, unknown>, command: string): void {
  mkdirSync(figuresDir, { recursive: true });
  writeFileSync(join(figuresDir, `${name}.json`), JSON.stringify({ name, date: new Date().toISOString(), command, ...figures }, null, 2) + '\n');
}

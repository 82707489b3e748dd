/**
 * The HTTP side of webhook authorization: a kubeconfig-format file names the
 * remote service (clusters[].cluster.server, certificate-authority[-data])
 * and the API server's credentials towards it (users[].user client
 * certificate and key, or token), through the current context. Reviews are
 * POSTed as JSON; a non-2xx answer or unparsable body is an error (the
 * authorizer then follows its failurePolicy).
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import type { ReviewTransport } from '../src/core/auth/authorizer/webhook';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
/** The `cluster` or `user` of the named clusters[]/users[] entry (the first when no context names one). */
function entry(list: unknown, name: unknown, key: 'cluster' | 'user'): Json {
  const items = Array.isArray(list) ? list.map(obj) : [];
  const item = typeof name === 'string' ? items.find((i) => i['name'] === name) : items[0];
  return obj(item?.[key]);
}

export function kubeconfigTransport(path: string): ReviewTransport {
  const doc = obj(parse(readFileSync(path, 'utf8')));
  const contexts = Array.isArray(doc['contexts']) ? doc['contexts'].map(obj) : [];
  const current = contexts.find((c) => c['name'] === doc['current-context']) ?? contexts[0];
  const ctx = obj(current?.['context']);
  const cluster = entry(doc['clusters'], ctx['cluster'], 'cluster');
  const user = entry(doc['users'], ctx['user'], 'user');
  const base = dirname(path);
  const file = (p: unknown) => (typeof p === 'string' && p ? readFileSync(isAbsolute(p) ? p : join(base, p)) : undefined);
  const data = (d: unknown) => (typeof d === 'string' && d ? Buffer.from(d, 'base64') : undefined);
  const server = String(cluster['server'] ?? '');
  if (!server) throw new Error(`${path}: no cluster server`);
  const url = new URL(server);
  const ca = data(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']);
  const cert = data(user['client-certificate-data']) ?? file(user['client-certificate']);
  const key = data(user['client-key-data']) ?? file(user['client-key']);
  const token = typeof user['token'] === 'string' ? user['token'] : undefined;

  return (review, signal) => new Promise((resolve, reject) => {
    const body = JSON.stringify(review);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (token) headers['authorization'] = `Bearer ${token}`;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers, ca, cert, key, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new Error(`the server responded with the status code ${res.statusCode}: ${text.slice(0, 200)}`));
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(new Error(`malformed response: ${(e as Error).message}`));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

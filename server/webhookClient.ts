/**
 * The host's client for --authentication-token-webhook-config-file: a
 * kubeconfig whose current context names the remote service (server URL and
 * its CA) and the API server's client certificate for it.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';

interface Named<T> { name: string; [k: string]: unknown; cluster?: T; user?: T; context?: T }
type Entry = Record<string, string | undefined>;

function fileOrData(base: string, entry: Entry, key: string): string | undefined {
  const data = entry[`${key}-data`];
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[key];
  return file ? readFileSync(resolve(base, file), 'utf8') : undefined;
}

export function webhookCall(path: string): (review: Record<string, unknown>) => Promise<{ status: number; body: unknown }> {
  const config = parse(readFileSync(path, 'utf8')) as { clusters?: Named<Entry>[]; users?: Named<Entry>[]; contexts?: Named<Entry>[]; 'current-context'?: string };
  const base = dirname(path);
  const contextName = config['current-context'];
  if (!contextName) throw new Error(`invalid configuration in ${path}: no current-context is set`);
  const context = config.contexts?.find((c) => c.name === contextName)?.context;
  if (!context) throw new Error(`invalid configuration in ${path}: context "${contextName}" not found`);
  const cluster = config.clusters?.find((c) => c.name === context['cluster'])?.cluster;
  if (!cluster?.['server']) throw new Error(`invalid configuration in ${path}: cluster "${context['cluster']}" has no server`);
  const user = config.users?.find((u) => u.name === context['user'])?.user ?? {};
  const url = new URL(cluster['server']);
  const tls = { ca: fileOrData(base, cluster, 'certificate-authority'), cert: fileOrData(base, user, 'client-certificate'), key: fileOrData(base, user, 'client-key') };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return (review) => new Promise((resolvePromise, reject) => {
    const body = JSON.stringify(review);
    const req = send(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) }, ...(url.protocol === 'https:' ? tls : {}), timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolvePromise({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url.href}: timeout`)));
    req.on('error', reject);
    req.end(body);
  });
}

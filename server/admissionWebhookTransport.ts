/**
 * The host's transport for admission webhooks: POSTs over node:http(s),
 * trusting the webhook's caBundle (the system roots without one) and naming
 * the service's DNS name in TLS, and reports wire failures in the words of
 * Go's net/http, as kube-apiserver's messages carry them.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AdmissionWebhookTransport } from '../src/core';

interface NodeError extends Error {
  code?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

const unknownAuthority = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']);

/** Go's wording of a dial or TLS failure. */
export function goNetError(e: NodeError, url: URL): string {
  const hostPort = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (e.code === 'ECONNREFUSED') return `dial tcp ${e.address && e.port ? `${e.address}:${e.port}` : hostPort}: connect: connection refused`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `dial tcp: lookup ${url.hostname}: no such host`;
  if (e.code === 'ECONNRESET') return 'EOF';
  if (e.code && unknownAuthority.has(e.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: certificate is not valid for ${url.hostname}`;
  if (e.code === 'CERT_HAS_EXPIRED') return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  return e.message;
}

export const admissionWebhookTransport: AdmissionWebhookTransport = (call) => new Promise((resolve, reject) => {
  const url = new URL(call.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': String(Buffer.byteLength(call.body)) };
  const tls = url.protocol === 'https:' ? { ...(call.caBundle ? { ca: call.caBundle } : {}), ...(call.serverName ? { servername: call.serverName } : {}) } : {};
  const req = send(url, { method: 'POST', headers, signal: call.signal, ...tls }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', (e: NodeError) => reject(new Error(goNetError(e, url))));
  });
  req.on('error', (e: NodeError) => reject(new Error(goNetError(e, url))));
  req.end(call.body);
});

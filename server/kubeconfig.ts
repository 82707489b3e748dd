/**
 * A cluster from a kubeconfig, for `kubesim run --kubeconfig`: the current
 * context's cluster (server, certificate-authority[-data],
 * insecure-skip-tls-verify, tls-server-name) and user (token, tokenFile,
 * client-certificate[-data] and client-key[-data], username and password),
 * with relative file paths read next to the kubeconfig as client-go reads
 * them. Credential plugins (exec, auth-provider) are not run.
 */
import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface ClusterConnection {
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  /** The Authorization header value (Bearer token or Basic credentials). */
  authorization?: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The named entry's `cluster` / `user` / `context` (clientcmd looks them up by name). */
function named(list: unknown, name: string | undefined, key: string): Json | undefined {
  const item = (Array.isArray(list) ? list.map(obj) : []).find((i) => i['name'] === name);
  return item ? obj(item[key]) : undefined;
}

export async function readKubeconfig(path: string): Promise<ClusterConnection> {
  const doc = obj(parseYaml(await readFile(path, 'utf8')));
  const contextName = str(doc['current-context']);
  const context = named(doc['contexts'], contextName, 'context');
  if (!context) throw new Error(`${path}: no context named by current-context ${JSON.stringify(contextName ?? '')}`);
  const cluster = named(doc['clusters'], str(context['cluster']), 'cluster');
  const server = str(cluster?.['server']);
  if (!cluster || !server) throw new Error(`${path}: no server for the cluster ${JSON.stringify(context['cluster'] ?? '')} of the current context`);
  const user = named(doc['users'], str(context['user']), 'user') ?? {};
  if (user['exec'] !== undefined || user['auth-provider'] !== undefined) {
    throw new Error(`${path}: the user ${JSON.stringify(context['user'])} needs a credential plugin (exec or auth-provider), which kubesim run does not run; use a token or a client certificate`);
  }
  const base = dirname(path);
  // Inline data wins over a file, as in client-go's TLS config.
  const pem = async (data: unknown, file: unknown): Promise<Buffer | undefined> => {
    if (str(data)) return Buffer.from(str(data)!, 'base64');
    const p = str(file);
    return p ? readFile(isAbsolute(p) ? p : join(base, p)) : undefined;
  };
  const connection: ClusterConnection = {
    server,
    ca: await pem(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: await pem(user['client-certificate-data'], user['client-certificate']),
    key: await pem(user['client-key-data'], user['client-key']),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster['tls-server-name']),
  };
  if (!connection.cert !== !connection.key) throw new Error(`${path}: the user needs both a client certificate and its key`);
  const tokenFile = str(user['tokenFile']);
  const token = str(user['token']) ?? (tokenFile ? (await readFile(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile), 'utf8')).trim() : undefined);
  if (token) connection.authorization = `Bearer ${token}`;
  else if (str(user['username'])) connection.authorization = `Basic ${Buffer.from(`${user['username'] as string}:${str(user['password']) ?? ''}`).toString('base64')}`;
  return connection;
}

/** Sends web Requests to the cluster over HTTP(S) with the connection's TLS settings and credentials; answers web Responses. */
export function clusterFetch(connection: ClusterConnection): (request: Request) => Promise<Response> {
  const tls = new URL(connection.server).protocol === 'https:';
  return async (request) => {
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string | string[]> = {};
    // Web Headers join repeated fields with ", "; a cluster reads each Impersonate-Group (and -Extra-) field as one value.
    request.headers.forEach((value, name) => (headers[name] = name === 'impersonate-group' || name.startsWith('impersonate-extra-') ? value.split(', ') : value));
    if (connection.authorization && !request.headers.has('authorization')) headers['authorization'] = connection.authorization;
    if (body) headers['content-length'] = String(body.length);
    const options = {
      method: request.method,
      headers,
      ...(tls
        ? {
            ca: connection.ca,
            cert: connection.cert,
            key: connection.key,
            rejectUnauthorized: !connection.insecureSkipTLSVerify,
            servername: connection.tlsServerName,
          }
        : {}),
    };
    const incoming = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (tls ? httpsRequest : httpRequest)(url, options, resolve);
      req.on('error', reject);
      req.end(body);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, v);
    }
    const status = incoming.statusCode ?? 500;
    const nullBody = status === 204 || status === 304;
    return new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: incoming.statusMessage, headers: responseHeaders });
  };
}

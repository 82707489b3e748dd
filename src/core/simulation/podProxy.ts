/**
 * kube-apiserver's proxy (pods/proxy, services/proxy) to a simulated pod:
 * the request as the proxy writes it to the backend (HTTP/1.1, the path
 * after `proxy`, the query, the client's headers less the hop-by-hop ones),
 * answered by the socket listening at the address in the pod's network
 * (clusterNetwork.ts), and the answer turned back into a Response. An
 * address no simulated pod holds is left to the caller; a port nothing
 * listens on is the refused dial the proxy transport reports.
 */
import { newServiceUnavailable } from '../errors';
import { splitHostPort, unreachableBackend, type BackendLocation } from '../registry/core/podLocation';
import { podHostIP, type ClusterNetwork } from './clusterNetwork';
import { parseHttpResponse } from './httpMessage';

/** Headers a proxy does not pass on (net/http/httputil's hopHeaders). */
const hopHeaders = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** A request's headers the proxy sets itself (Host, the body's length) or keeps from the backend (the client's credentials for the API server). */
const ownRequestHeaders = new Set(['host', 'authorization', 'content-length']);

const decoder = new TextDecoder();

/** The HTTP/1.1 request the proxy sends the backend. */
export async function backendRequestText(request: Request, loc: BackendLocation, path: string, search: string, clientIP: string): Promise<string> {
  const lines = [`${request.method} ${path || '/'}${search} HTTP/1.1`, `Host: ${loc.hostPort}`];
  request.headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (!hopHeaders.has(lower) && !ownRequestHeaders.has(lower) && lower !== 'x-forwarded-for') lines.push(`${name}: ${value}`);
  });
  lines.push(`X-Forwarded-For: ${clientIP}`);
  const body = request.body ? decoder.decode(await request.arrayBuffer()) : '';
  if (body) lines.push(`Content-Length: ${new TextEncoder().encode(body).byteLength}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** The backend's answer as a Response: undefined when it is not an HTTP/1.x response. */
export function parseBackendResponse(text: string): Response | undefined {
  const parsed = parseHttpResponse(text);
  if (!parsed) return undefined;
  const headers = new Headers();
  for (const line of parsed.headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    if (!hopHeaders.has(name.toLowerCase())) headers.append(name, line.slice(colon + 1).trim());
  }
  const { status } = parsed;
  const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  return new Response(noBody ? null : parsed.body, { status, statusText: parsed.statusLine.split(' ').slice(2).join(' '), headers });
}

/**
 * Proxies the request to the simulated pod at loc, at the server's time now:
 * undefined when no simulated pod holds loc's address.
 */
export async function proxyToSimulatedPod(network: ClusterNetwork, loc: BackendLocation, request: Request, path: string, search: string, now: number, clientIP = '127.0.0.1'): Promise<Response | undefined> {
  const { host, port } = splitHostPort(loc.hostPort);
  const pod = network.podByIP(host);
  if (!pod) return undefined;
  const listener = network.listenerAt(pod.metadata.uid ?? '', port, now);
  if (!listener) throw unreachableBackend('proxy', loc);
  // The simulated servers speak plain HTTP: a TLS client's first bytes get no handshake back.
  if (loc.scheme === 'https') throw newServiceUnavailable('error trying to reach service: tls: first record does not look like a TLS handshake');
  // The API server dials from its node's address (the pod's node's, in a one-node view of it).
  const answer = parseBackendResponse(listener.respond(await backendRequestText(request, loc, path, search, clientIP), now, podHostIP(pod)));
  // The reverse proxy's error for a connection closed without an answer.
  if (!answer) throw newServiceUnavailable('error trying to reach service: EOF');
  return answer;
}

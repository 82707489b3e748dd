/**
 * The network tools of a simulated image, with busybox's output (curl's for
 * curl): nslookup against the cluster DNS, the clients wget, curl and nc
 * that connect through kube-proxy's routing (kubeProxy.ts), and the servers
 * httpd and `nc -l` that listen in the pod while their container runs,
 * answering from the serving process's own files. A connection that nothing
 * answers costs its timeout on the process's clock.
 */
import { ClusterNetwork, type Listener, type PodNetwork } from './clusterNetwork';
import { answerBytes, exchangeHash, reverseName, wireLength, asksDns, clusterDnsIP, clusterDnsServers, dnsQuery, dnsReverse, dnsSrv, isIPv4, resolveAddresses, resolveHost, resolvConfOf, type DnsAnswer, type DnsExchange, type DnsQuestionType } from './clusterDns';
import type { KubeObject } from '../api/types';
import { connect, policySource } from './kubeProxy';
import { policyAllows } from './networkPolicy';
import { bindNslookup, isBindNslookup } from './bindNslookup';
import { httpDate, parseHttpResponse } from './httpMessage';
import { readAll, readFile, resolvePath, writeFile, type Run, type ToolContext } from './containerTools';
import { filesAt } from './containerFiles';
import type { FsEntry } from './containerView';

/** Linux gives up on a SYN nothing answers after its retries (tcp_syn_retries=6: 1+2+...+64 s). */
const synTimeoutMs = 127_000;
/** A libc resolver's wait on a server that never answers (resolv.conf's defaults: timeout:5, attempts:2). */
const resolverTimeoutMs = 10_000;
/** The curl of curlimages/curl. */
const curlVersion = '8.11.1';

const decoder = new TextDecoder();

/** A pod network for a process that has none (a view built without the cluster): nothing resolves, nothing answers. */
export function networkOf(ctx: ToolContext): PodNetwork {
  return ctx.network ?? { cluster: new ClusterNetwork(), namespace: '', podName: '', podUID: '', container: '', startedAt: '' };
}

/** The cluster DNS servers the pod's queries reach: the ready ones NetworkPolicies (on either end) let them through to. */
function reachableDnsServers(net: PodNetwork): { ip: string; pod: KubeObject }[] {
  const source = policySource(net);
  return clusterDnsServers(net.cluster).filter(({ ip, pod }) => policyAllows(net.cluster, source, { ip, pod, port: 53, protocol: 'UDP' }));
}

/** Whether the pod's DNS queries reach a cluster DNS server. */
export const dnsReachable = (net: PodNetwork): boolean => reachableDnsServers(net).length > 0;

/**
 * Tells the CoreDNS pod that takes a question (kube-proxy's pick among those the pod reaches, the same
 * for the same question at the same time) what it was asked and answered: its DNS listener hears the
 * exchange, which its log plugin writes down.
 */
export function reportDnsQuery(ctx: ToolContext, qname: string, qtype: DnsQuestionType, answer: DnsAnswer | { rcode: 'NXDOMAIN' | 'NOERROR' }, options: { answerBytes?: number; edns?: boolean } = {}): void {
  const net = ctx.network;
  if (!net) return;
  const servers = reachableDnsServers(net);
  if (!servers.length) return;
  const at = ctx.now();
  const from = policySource(net).ip;
  const bytes = options.answerBytes ?? ('addresses' in answer ? answerBytes(qname, qtype, answer) : 0);
  const exchange: DnsExchange = { from, qtype, qname: qname.replace(/\.$/, ''), rcode: answer.rcode, answerBytes: bytes, edns: options.edns ?? false };
  const server = servers[exchangeHash(exchange, at) % servers.length]!;
  net.cluster.listenerAt(server.pod.metadata.uid ?? '', 53, at)?.respond(JSON.stringify(exchange), at, from);
}

/** getaddrinfo from the process's pod: a lookup whose queries are dropped waits out the resolver's timeout, then fails. */
export function* resolve(ctx: ToolContext, host: string): Run<string | undefined> {
  const net = networkOf(ctx);
  const reachable = !asksDns(ctx.files, host) || dnsReachable(net);
  const ip = resolveHost(net.cluster, ctx.files, host, reachable, (q, answer) => reportDnsQuery(ctx, q, 'A', answer));
  if (!reachable && resolvConfOf(ctx.files).nameservers.includes(clusterDnsIP)) yield { kind: 'sleep', ms: resolverTimeoutMs };
  return ip;
}

/** A TLS server an HTTPS client reaches: the API server, or a node's kubelet. */
type TlsServer = { kind: 'apiserver' } | { kind: 'kubelet'; node: string };
type Dial = { kind: 'connected'; ip: string; respond(request: string): string; tls?: TlsServer; serviceMs?: number } | { kind: 'unresolved' } | { kind: 'refused'; ip: string } | { kind: 'timeout'; ip: string; ms: number };

/** Resolves and connects as a client does. */
function* dial(ctx: ToolContext, host: string, port: number, timeoutMs: number | undefined): Run<Dial> {
  yield { kind: 'observe' };
  const ip = yield* resolve(ctx, host);
  if (!ip) return { kind: 'unresolved' };
  return yield* dialAddress(ctx, ip, port, timeoutMs);
}

/** Connects to a resolved address; a lost SYN waits out the timeout (the tool's, or the kernel's when it is shorter). */
function* dialAddress(ctx: ToolContext, ip: string, port: number, timeoutMs: number | undefined): Run<Exclude<Dial, { kind: 'unresolved' }>> {
  const net = networkOf(ctx);
  const at = ctx.now();
  const c = connect(net, ip, port, at);
  if (c.kind === 'connected') {
    const { tls, node } = c.listener;
    const server: TlsServer | undefined = tls === 'apiserver' ? { kind: 'apiserver' } : tls === 'kubelet' ? { kind: 'kubelet', node: node ?? '' } : undefined;
    return { kind: 'connected', ip, respond: (request) => c.listener.respond(request, at, ctx.network?.podIP), ...(server ? { tls: server } : {}), ...(c.listener.serviceMs ? { serviceMs: c.listener.serviceMs } : {}) };
  }
  if (c.kind === 'refused') return { kind: 'refused', ip };
  const ms = Math.min(timeoutMs ?? Infinity, synTimeoutMs);
  yield { kind: 'sleep', ms };
  return { kind: 'timeout', ip, ms };
}

// ---- HTTP

interface Url {
  https: boolean;
  /** host[:port] as written. */
  hostPort: string;
  host: string;
  port: number;
  path: string;
}

function parseUrl(url: string): Url | { bad: string } {
  let rest = url;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url);
  let defaultPort = 80;
  let https = false;
  if (scheme) {
    const s = scheme[1]!.toLowerCase();
    if (s === 'https') {
      defaultPort = 443;
      https = true;
    }
    else if (s !== 'http') return { bad: s };
    rest = url.slice(scheme[0].length);
  }
  const slash = rest.search(/[/?#]/);
  const hostPort = slash < 0 ? rest : rest.slice(0, slash);
  let path = slash < 0 ? '/' : rest.slice(slash);
  if (!path.startsWith('/')) path = '/' + path;
  const hp = /^(.*?)(?::(\d+))?$/.exec(hostPort)!;
  return { https, hostPort, host: hp[1]!, port: hp[2] ? Number(hp[2]) : defaultPort, path: path.replace(/#.*/, '') };
}

/** Splits leading options, short (`-qO-`, `-O file`) and long (`--timeout=5`, `--timeout 5`), from operands wherever they are. */
function parseOptions(args: string[], shortValues: string, longValues: Set<string>): { flags: Set<string>; values: Map<string, string>; all: Map<string, string[]>; operands: string[]; bad?: string; missing?: string } {
  const flags = new Set<string>();
  /** Each option's last value, and every value of one given more than once (curl's -H). */
  const all = new Map<string, string[]>();
  const values = new Map<string, string>();
  const put = (k: string, v: string) => {
    values.set(k, v);
    all.set(k, [...(all.get(k) ?? []), v]);
  };
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (longValues.has(name)) {
        const v = eq < 0 ? args[++i] : a.slice(eq + 1);
        if (v === undefined) return { flags, values, all, operands, missing: name };
        put(name, v);
      } else flags.add(name);
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      operands.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const f = a[j]!;
      if (shortValues.includes(f)) {
        const v = a.slice(j + 1) || args[++i];
        if (v === undefined) return { flags, values, all, operands, missing: f };
        put(f, v);
        break;
      }
      flags.add(f);
    }
  }
  return { flags, values, all, operands };
}

// ---- nslookup

/**
 * busybox nslookup: A and AAAA questions to the first nameserver, a name
 * with no dot asked in each search domain (not as it is: no ndots); each
 * reply printed as it comes (here in the order asked), an NXDOMAIN as `**
 * server can't find` (which makes the exit code 1, even when another
 * question was answered), an empty answer as `*** Can't find ...: No
 * answer`; cluster answers are authoritative (no `Non-authoritative
 * answer:`).
 */
export function* nslookup(args: string[], ctx: ToolContext): Run<number> {
  if (isBindNslookup(ctx)) return yield* bindNslookup(args, ctx);
  if (olderBusybox(ctx.view.image.busybox, 29)) return yield* resolverNslookup(args, ctx);
  const operands = args.filter((a) => !a.startsWith('-'));
  const name = operands[0];
  if (!name) {
    ctx.err('BusyBox v1.37.0 multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n\nQuery DNS about HOST\n\nQUERY_TYPE: soa,ns,a,aaaa,cname,mx,txt,any,ptr,srv\n');
    return 1;
  }
  yield { kind: 'observe' };
  const net = networkOf(ctx).cluster;
  const conf = resolvConfOf(ctx.files);
  const servers = operands[1] !== undefined ? [operands[1]] : conf.nameservers.length ? conf.nameservers : ['127.0.0.1'];
  // Only the cluster DNS answers (when no NetworkPolicy drops the queries); each other server is waited on for the 5 s timeout.
  const server = servers.find((s) => s === clusterDnsIP);
  if (!server || !dnsReachable(networkOf(ctx))) {
    yield { kind: 'sleep', ms: 5000 * servers.length };
    ctx.out(';; connection timed out; no servers could be reached\n\n');
    return 1;
  }
  let out = `Server:\t\t${server}\nAddress:\t${server}:53\n\n`;
  let failed = false;
  const show = (qname: string, a: DnsAnswer, type: 'A' | 'AAAA' | 'PTR') => {
    reportDnsQuery(ctx, qname, type, a);
    if (a.rcode === 'NXDOMAIN') {
      out += `** server can't find ${qname}: NXDOMAIN\n\n`;
      failed = true;
      return;
    }
    let records = '';
    if (a.ptr) records += `${qname}\tname = ${a.ptr}\n`;
    if (a.cname) {
      records += `${qname}\tcanonical name = ${a.cname}\n`;
      if (type !== 'PTR') {
        const target = dnsQuery(net, a.cname, type);
        if (target.rcode === 'NOERROR') for (const ip of target.addresses) records += `Name:\t${a.cname}\nAddress: ${ip}\n`;
      }
    }
    for (const ip of a.addresses) records += `Name:\t${qname}\nAddress: ${ip}\n`;
    out += (records || `*** Can't find ${qname}: No answer\n`) + '\n';
  };
  const queryType = nslookupQueryType(args);
  if (queryType === 'SRV') {
    const srv = dnsSrv(net, name);
    reportDnsQuery(ctx, name, 'SRV', srv, { answerBytes: srvAnswerBytes(name, srv) });
    if (srv.rcode === 'NXDOMAIN') {
      out += `** server can't find ${name}: NXDOMAIN\n\n`;
      failed = true;
    } else out += (srv.records.map((r) => `${name}\tservice = ${r.priority} ${r.weight} ${r.port} ${r.target}\n`).join('') || `*** Can't find ${name}: No answer\n`) + '\n';
  } else if (isIPv4(name)) show(reverseName(name), dnsReverse(net, name), 'PTR');
  else {
    const names = !name.includes('.') && conf.search.length ? conf.search.map((d) => `${name}.${d}`) : [name];
    for (const type of ['A', 'AAAA'] as const) for (const q of names) show(q, dnsQuery(net, q, type), type);
  }
  ctx.out(out);
  return failed ? 1 : 0;
}

/** The question type an nslookup command line asks for (`-type=srv`, `-q=`, `-query=`), upper case; undefined: none given. */
export const nslookupQueryType = (args: readonly string[]): string | undefined => /^-(?:type|q|query)=(\w+)$/i.exec(args.find((a) => /^-(?:type|q|query)=/i.test(a)) ?? '')?.[1]?.toUpperCase();

/** An SRV answer's records on the wire: priority, weight and port, then the target. */
export const srvAnswerBytes = (qname: string, srv: ReturnType<typeof dnsSrv>): number => (srv.rcode === 'NXDOMAIN' ? 0 : srv.records.reduce((n, r) => n + wireLength(qname) + 16 + wireLength(r.target), 0));

/** Whether a busybox release is older than 1.<minor>. */
const olderBusybox = (release: string | undefined, minor: number): boolean => {
  const v = /^1\.(\d+)\./.exec(release ?? '');
  return !!v && Number(v[1]) < minor;
};

/**
 * busybox nslookup before 1.29 (busybox:1.28, which the StatefulSet and DNS
 * debugging pages run because it resolves as libc does): getaddrinfo
 * through the search list and ndots, each address with its reverse name;
 * the server printed the same way first. A name nothing answers is
 * `can't resolve`, exit 1.
 */
function* resolverNslookup(args: string[], ctx: ToolContext): Run<number> {
  if (!args[0] || args[0].startsWith('-') || args.length > 2) {
    ctx.err(`BusyBox v${ctx.view.image.busybox} (2018-05-22 17:00:17 UTC) multi-call binary.\n\nUsage: nslookup [HOST] [SERVER]\n\nQuery the nameserver for the IP address of the given HOST\noptionally using a specified DNS server\n`);
    return 1;
  }
  yield { kind: 'observe' };
  const net = networkOf(ctx);
  const conf = resolvConfOf(ctx.files);
  const server = args[1] ?? conf.nameservers[0] ?? '127.0.0.1';
  const reachable = server === clusterDnsIP && dnsReachable(net);
  const reverse = (ip: string) => {
    const a = reachable ? dnsReverse(net.cluster, ip) : undefined;
    if (a) reportDnsQuery(ctx, reverseName(ip), 'PTR', a);
    return a?.rcode === 'NOERROR' && a.ptr ? ` ${a.ptr}` : '';
  };
  const addressLines = (ips: string[]) => ips.map((ip, i) => `Address ${i + 1}: ${ip}${reverse(ip)}\n`).join('');
  if (!reachable) yield { kind: 'sleep', ms: 10_000 };
  ctx.out(`${'Server:'.padEnd(10)} ${server}\n${addressLines([server])}\n`);
  const ips = resolveAddresses(net.cluster, ctx.files, args[0], reachable, (q, answer) => reportDnsQuery(ctx, q, 'A', answer));
  if (!ips.length) {
    ctx.err(`nslookup: can't resolve '${args[0]}'\n`);
    return 1;
  }
  ctx.out(`${'Name:'.padEnd(10)} ${args[0]}\n${addressLines(ips)}`);
  return 0;
}

// ---- wget

/**
 * busybox's progress line for a finished transfer on a stderr that is no
 * terminal (bb_progress_update: no carriage return, an 80-column width's
 * 31-star bar, the size scaled by 1024 past 99999, a line end).
 */
function progressLine(name: string, size: number): string {
  let n = size;
  let scale = 0;
  while (n >= 100000) {
    n = Math.floor(n / 1024);
    scale++;
  }
  return `${name.slice(0, 20).padEnd(20)}100% |${'*'.repeat(31)}|${String(n).padStart(6)}${' kMGTPEZY'[scale]}  0:00:00 ETA\n`;
}

const baseName = (path: string) => {
  const p = path.replace(/[?#].*/, '');
  return p.slice(p.lastIndexOf('/') + 1) || 'index.html';
};

/** busybox wget: one URL over HTTP/1.1, -q, -O FILE|-, -T SEC, -S, --spider. */
export function* wget(args: string[], ctx: ToolContext): Run<number> {
  const o = parseOptions(args, 'OTUPYo', new Set(['output-document', 'timeout', 'user-agent', 'header', 'directory-prefix', 'proxy', 'output-file', 'post-data', 'post-file']));
  if (o.missing) {
    ctx.err(`wget: option requires an argument -- '${o.missing}'\n`);
    return 1;
  }
  const quiet = o.flags.has('q') || o.flags.has('quiet');
  const spider = o.flags.has('spider') || o.flags.has('s');
  const serverResponse = o.flags.has('S') || o.flags.has('server-response');
  const timeout = o.values.get('T') ?? o.values.get('timeout');
  const timeoutMs = timeout !== undefined ? Number(timeout) * 1000 : undefined;
  const url = o.operands[0];
  if (!url) {
    ctx.err('BusyBox v1.37.0 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[-P DIR] [-U AGENT] [-T SEC] URL...\n\nRetrieve files via HTTP or FTP\n');
    return 1;
  }
  const u = parseUrl(url);
  if ('bad' in u) {
    ctx.err(`wget: not an http or ftp url: ${url.slice(0, url.indexOf(':'))}\n`);
    return 1;
  }
  const d = yield* dial(ctx, u.host, u.port, timeoutMs);
  if (d.kind === 'unresolved') {
    ctx.err(`wget: bad address '${u.hostPort}'\n`);
    return 1;
  }
  if (!quiet) ctx.err(`Connecting to ${u.hostPort} (${d.ip}:${u.port})\n`);
  if (d.kind === 'refused') {
    ctx.err(`wget: can't connect to remote host (${d.ip}): Connection refused\n`);
    return 1;
  }
  if (d.kind === 'timeout') {
    ctx.err(timeoutMs !== undefined && timeoutMs <= synTimeoutMs ? 'wget: download timed out\n' : `wget: can't connect to remote host (${d.ip}): Connection timed out\n`);
    return 1;
  }
  const agent = o.values.get('U') ?? o.values.get('user-agent') ?? 'Wget';
  const post = o.values.get('post-data');
  // --spider asks with GET too, and reads no body.
  const method = post !== undefined ? 'POST' : 'GET';
  const headers = [`Host: ${u.hostPort}`, `User-Agent: ${agent}`, ...(o.all.get('header') ?? []), ...(post !== undefined ? ['Content-Type: application/x-www-form-urlencoded'] : [])];
  let response: string;
  if (u.https && d.tls) {
    // busybox's own TLS checks no certificate, and says so.
    if (!o.flags.has('no-check-certificate')) ctx.err('wget: note: TLS certificate validation not implemented\n');
    const answer = yield* tlsRequest(ctx, d.tls, apiRequestOf(method, u, headers.slice(1), post), 'HTTP/1.1');
    if (answer === undefined) {
      ctx.err('wget: error getting response: Connection reset by peer\n');
      return 1;
    }
    response = answer;
  } else {
    response = d.respond(`${method} ${u.path} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n${post ?? ''}`);
    // The server's own work on the request takes its time.
    if (d.serviceMs) yield { kind: 'sleep', ms: d.serviceMs };
  }
  const r = parseHttpResponse(response);
  if (!r) {
    ctx.err(response ? `wget: server returned error: ${response.split(/\r?\n/)[0]}\n` : 'wget: error getting response: Connection reset by peer\n');
    return 1;
  }
  if (serverResponse) ctx.err([r.statusLine, ...r.headerLines].map((l) => `  ${l}\n`).join(''));
  // 200-204 are success (and 300-303 redirects, which busybox httpd never sends).
  if (r.status > 204) {
    ctx.err(`wget: server returned error: ${r.statusLine}\n`);
    return 1;
  }
  if (spider) {
    if (!quiet) ctx.err('remote file exists\n');
    return 0;
  }
  const target = o.values.get('O') ?? o.values.get('output-document');
  const size = new TextEncoder().encode(r.body).length;
  if (target === '-') {
    if (!quiet) ctx.err('writing to stdout\n');
    ctx.out(r.body);
    if (!quiet) ctx.err(progressLine('-', size) + 'written to stdout\n');
    return 0;
  }
  const name = target ?? baseName(u.path);
  const path = resolvePath(ctx.cwd, name);
  if (path === '/dev/null') {
    if (!quiet) ctx.err(`saving to '${name}'\n` + progressLine(name, size) + `'${name}' saved\n`);
    return 0;
  }
  // Without -O, busybox will not overwrite a file.
  if (target === undefined && ctx.files.has(path)) {
    ctx.err(`wget: can't open '${name}': File exists\n`);
    return 1;
  }
  if (!quiet) ctx.err(`saving to '${name}'\n`);
  const failed = writeFile(ctx.files, path, r.body, false);
  if (failed) {
    ctx.err(`wget: can't open '${name}': ${failed === 'nonexistent directory' ? 'No such file or directory' : failed}\n`);
    return 1;
  }
  if (!quiet) ctx.err(progressLine(name, size) + `'${name}' saved\n`);
  return 0;
}

// ---- HTTPS to the API server and the kubelets

/** Where a pod's service account token and the cluster's CA are mounted. */
const serviceAccountCA = '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt';

/**
 * A request a process makes over TLS of the API server or a node's kubelet
 * (kubeletAuth.ts), answered as the client reads it: the status line (`HTTP/2 200 ` as curl negotiates it over
 * ALPN, `HTTP/1.1 200 OK` for busybox), the headers (lowercase in HTTP/2)
 * and the body; undefined when no such server is reachable from here. It is
 * made once the server clock has reached the process's.
 *
 * A process replayed after the host restarted made its requests before then
 * already: a write it replays is sent as a dry run, answered as the server
 * would answer it now and changing nothing, so a restart never repeats what
 * a pod did; a read is answered as the server is now.
 */
function* tlsRequest(ctx: ToolContext, server: TlsServer, request: Request, version: 'HTTP/2' | 'HTTP/1.1'): Run<string | undefined> {
  const cluster = networkOf(ctx).cluster;
  const api = cluster.apiServer;
  const kubelet = cluster.kubelet;
  const send = server.kind === 'apiserver' ? api : kubelet && ((r: Request) => kubelet(server.node, r));
  if (!send) return undefined;
  yield { kind: 'observe', exact: true };
  const replayed = server.kind === 'apiserver' && ctx.replayedUntil !== undefined && ctx.now() < ctx.replayedUntil && request.method !== 'GET' && request.method !== 'HEAD';
  return yield {
    kind: 'await',
    start: async () => {
      const response = await send(replayed ? await asDryRun(request) : request);
      const headers: string[] = [];
      response.headers.forEach((value, name) => headers.push(`${version === 'HTTP/2' ? name.toLowerCase() : name.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase())}: ${value}`));
      const body = await response.text();
      if (!headers.some((h) => /^content-length:/i.test(h))) headers.push(`${version === 'HTTP/2' ? 'content-length' : 'Content-Length'}: ${new TextEncoder().encode(body).length}`);
      const status = version === 'HTTP/2' ? `HTTP/2 ${response.status} ` : `HTTP/1.1 ${response.status} ${response.statusText || statusTexts[response.status] || ''}`;
      return `${status}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
    },
  };
}

/** The same write with `dryRun=All` in its query. */
async function asDryRun(request: Request): Promise<Request> {
  const url = new URL(request.url);
  url.searchParams.set('dryRun', 'All');
  const body = await request.text();
  return new Request(url, { method: request.method, headers: request.headers, ...(body ? { body } : {}) });
}

/** The reason phrases of the statuses the API server answers with (Go's http.StatusText). */
const statusTexts: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 410: 'Gone', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/** A Request for the API server from a client's method, URL parts, header lines and body. */
function apiRequestOf(method: string, u: Url, headerLines: readonly string[], body: string | undefined): Request {
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return new Request(`https://${u.hostPort}${u.path}`, { method, headers, ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}) });
}

// ---- curl

/** curl: one URL, -s -S -o -O -i -I -v -f -m --connect-timeout -X -H; its errors as `curl: (N) ...`. */
export function* curl(args: string[], ctx: ToolContext): Run<number> {
  // Options that take a value, whether or not this curl acts on it (--cacert, --cert: the TLS files a client names).
  const o = parseOptions(args, 'omXHAwduebcFTxKEr', new Set(['output', 'max-time', 'connect-timeout', 'request', 'header', 'user-agent', 'write-out', 'data', 'user', 'cacert', 'capath', 'cert', 'key', 'cert-type', 'key-type', 'resolve', 'connect-to', 'data-raw', 'data-binary', 'data-urlencode', 'json', 'cookie', 'cookie-jar', 'referer', 'proxy', 'retry', 'retry-delay', 'retry-max-time', 'output-dir', 'config', 'interface', 'form', 'upload-file', 'range', 'oauth2-bearer']));
  if (o.missing) {
    ctx.err(`curl: option ${o.missing.length > 1 ? '--' : '-'}${o.missing}: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n`);
    return 2;
  }
  const has = (short: string, long: string) => o.flags.has(short) || o.flags.has(long);
  const silent = has('s', 'silent');
  const showError = has('S', 'show-error');
  const verbose = has('v', 'verbose');
  const include = has('i', 'include');
  const headOnly = has('I', 'head');
  const fail = has('f', 'fail');
  const fail2 = (code: number, message: string): number => {
    if (!silent || showError) ctx.err(`curl: (${code}) ${message}\n`);
    return code;
  };
  const url = o.operands[0];
  if (!url) {
    // Run bare, curl only points at its help; given options but no URL, it says so first.
    ctx.err(`${args.length ? 'curl: no URL specified\n' : ''}curl: try 'curl --help' or 'curl --manual' for more information\n`);
    return 2;
  }
  const u = parseUrl(url);
  if ('bad' in u) return fail2(1, `Protocol "${u.bad}" not supported`);
  const maxTime = o.values.get('m') ?? o.values.get('max-time');
  const connectTimeout = o.values.get('connect-timeout');
  const limits = [maxTime, connectTimeout].filter((v): v is string => v !== undefined).map((v) => Number(v) * 1000);
  const timeoutMs = limits.length ? Math.min(...limits) : undefined;
  yield { kind: 'observe' };
  const net = networkOf(ctx);
  const ip = yield* resolve(ctx, u.host);
  if (verbose && ip) ctx.err(`* Host ${u.host}:${u.port} was resolved.\n* IPv6: (none)\n* IPv4: ${ip}\n*   Trying ${ip}:${u.port}...\n`);
  if (!ip) {
    if (verbose) ctx.err(`* Could not resolve host: ${u.host}\n* closing connection #0\n`);
    return fail2(6, `Could not resolve host: ${u.host}`);
  }
  const d = yield* dialAddress(ctx, ip, u.port, timeoutMs);
  if (d.kind === 'refused') {
    if (verbose) ctx.err(`* connect to ${ip} port ${u.port} from ${podAddress(net)} port ${ephemeralPort(ctx)} failed: Connection refused\n* Failed to connect to ${u.host} port ${u.port} after 0 ms: Couldn't connect to server\n* closing connection #0\n`);
    return fail2(7, `Failed to connect to ${u.host} port ${u.port} after 0 ms: Couldn't connect to server`);
  }
  if (d.kind === 'timeout') {
    if (timeoutMs !== undefined && timeoutMs <= synTimeoutMs) return fail2(28, maxTime !== undefined && Number(maxTime) * 1000 === timeoutMs ? `Connection timed out after ${d.ms} milliseconds` : `Failed to connect to ${u.host} port ${u.port} after ${d.ms} ms: Timeout was reached`);
    return fail2(28, `Failed to connect to ${u.host} port ${u.port} after ${d.ms} ms: Couldn't connect to server`);
  }
  const data = ['d', 'data', 'data-raw', 'data-binary'].flatMap((k) => o.all.get(k) ?? []);
  const body = data.length ? data.join('&') : undefined;
  const method = o.values.get('X') ?? o.values.get('request') ?? (headOnly ? 'HEAD' : body !== undefined ? 'POST' : 'GET');
  const hostHeader = u.port === (u.https ? 443 : 80) ? u.host : `${u.host}:${u.port}`;
  const headers = [`Host: ${hostHeader}`, `User-Agent: ${o.values.get('A') ?? o.values.get('user-agent') ?? `curl/${curlVersion}`}`, 'Accept: */*'];
  headers.push(...[...(o.all.get('H') ?? []), ...(o.all.get('header') ?? [])]);
  if (body !== undefined && !headers.some((h) => /^content-type:/i.test(h))) headers.push('Content-Type: application/x-www-form-urlencoded');
  let response: string;
  if (u.https) {
    // Only the API server and the kubelets speak TLS here; a plain HTTP server's answer is no TLS record.
    if (!d.tls) return fail2(35, 'OpenSSL/3.3.2: error:0A00010B:SSL routines::wrong version number');
    const untrusted = serverUntrusted(ctx, d.tls, has('k', 'insecure'), o.values.get('cacert'));
    if (untrusted) {
      const code = fail2(untrusted.code, untrusted.message);
      if (untrusted.code === 60 && (!silent || showError)) ctx.err('More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\nestablish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the webpage mentioned above.\n');
      return code;
    }
    if (verbose) ctx.err(`* Connected to ${u.host} (${ip}) port ${u.port}\n* using HTTP/2\n${[`${method} ${u.path} HTTP/2`, ...headers].map((l) => `> ${l}\n`).join('')}> \n* Request completely sent off\n`);
    const answer = yield* tlsRequest(ctx, d.tls, apiRequestOf(method, u, headers.slice(1), body), 'HTTP/2');
    if (answer === undefined) return fail2(56, 'Failure when receiving data from the peer');
    response = answer;
  } else {
    const requestLines = [`${method} ${u.path} HTTP/1.1`, ...headers];
    if (verbose) ctx.err(`* Connected to ${u.host} (${ip}) port ${u.port}\n* using HTTP/1.x\n${requestLines.map((l) => `> ${l}\n`).join('')}> \n* Request completely sent off\n`);
    response = d.respond(requestLines.join('\r\n') + '\r\n\r\n' + (body ?? ''));
    if (d.serviceMs) yield { kind: 'sleep', ms: d.serviceMs };
  }
  const r = parseHttpResponse(response);
  if (!r) return fail2(1, 'Received HTTP/0.9 when not allowed');
  if (verbose) ctx.err(`${[r.statusLine, ...r.headerLines].map((l) => `< ${l}\n`).join('')}< \n`);
  if (fail && r.status >= 400) {
    if (verbose) ctx.err(`* The requested URL returned error: ${r.status}\n* closing connection #0\n`);
    return fail2(22, `The requested URL returned error: ${r.status}`);
  }
  const text = (include || headOnly ? r.head : '') + (headOnly ? '' : r.body);
  const target = o.values.get('o') ?? o.values.get('output') ?? (has('O', 'remote-name') ? baseName(u.path) : undefined);
  const path = target !== undefined && target !== '-' ? resolvePath(ctx.cwd, target) : undefined;
  if (path === undefined) ctx.out(text);
  else if (path !== '/dev/null') {
    const failed = writeFile(ctx.files, path, text, false);
    if (failed) return fail2(23, `Failure writing output to destination, passed ${text.length} returned 0`);
  }
  const writeOut = o.values.get('w') ?? o.values.get('write-out');
  if (writeOut !== undefined) ctx.out(curlWriteOut(writeOut, { http_code: String(r.status).padStart(3, '0'), response_code: String(r.status), size_download: String(new TextEncoder().encode(r.body).length), remote_ip: d.ip, remote_port: String(u.port), url_effective: url }));
  if (verbose) ctx.err(`* shutting down connection #0\n`);
  return 0;
}

/** curl's --write-out: `%{variable}` from the transfer (an unknown one is empty), `\n` and `\t` escapes, `%%`. */
function curlWriteOut(format: string, vars: Record<string, string>): string {
  return format.replace(/%\{([a-z_]+)\}|%%|\\([nrt\\])/g, (m, name: string | undefined, esc: string | undefined) => {
    if (name !== undefined) return vars[name] ?? '';
    if (m === '%%') return '%';
    return esc === 'n' ? '\n' : esc === 'r' ? '\r' : esc === 't' ? '\t' : '\\';
  });
}

/**
 * Why curl does not trust the server's certificate, if it does not. The API
 * server's is signed by the cluster's CA, which is no system CA, so only `-k`
 * or `--cacert` naming that CA (the service account's ca.crt, or a copy of
 * it) lets the handshake through; a kubelet's is self-signed (kubeadm's
 * default), so only `-k` does.
 */
function serverUntrusted(ctx: ToolContext, server: TlsServer, insecure: boolean, cacert: string | undefined): { code: number; message: string } | undefined {
  if (insecure) return undefined;
  const unknownIssuer = { code: 60, message: 'SSL certificate problem: unable to get local issuer certificate' };
  const bundle = cacert === undefined ? undefined : readFile(ctx.files, resolvePath(ctx.cwd, cacert));
  if (cacert !== undefined && bundle === undefined) return { code: 77, message: `error setting certificate file: ${cacert}` };
  // A kubelet serves a certificate of its own making, with its self-signed CA in the chain: no CA bundle vouches for it.
  if (server.kind === 'kubelet') return { code: 60, message: 'SSL certificate problem: self-signed certificate in certificate chain' };
  if (bundle === undefined) return unknownIssuer;
  const ca = readFile(ctx.files, serviceAccountCA);
  return ca !== undefined && bundle.includes(ca.trim()) ? undefined : unknownIssuer;
}

const podAddress = (net: PodNetwork): string => {
  const pod = net.cluster.podByUID(net.podUID);
  const status = (pod?.['status'] ?? {}) as Record<string, unknown>;
  return typeof status['podIP'] === 'string' ? status['podIP'] : '0.0.0.0';
};
/** A client's source port, from the clock (deterministic for a replayed process). */
const ephemeralPort = (ctx: ToolContext): number => 32768 + (ctx.now() % 28232);

// ---- nc

/** How often a waiting `nc -l` looks for its connection (it runs at most a second ahead of the server clock anyway). */
const acceptPollMs = 100;

/**
 * busybox nc: a client (`nc [-z] [-v] [-w SEC] HOST PORT`) that sends its
 * input and prints what comes back, or a server (`nc -l -p PORT`) that
 * accepts one connection, sends it its input, prints what it received and
 * exits; a second client is refused.
 */
export function* nc(args: string[], ctx: ToolContext): Run<number> {
  const o = parseOptions(args, 'pwseioq', new Set());
  if (o.missing) {
    ctx.err(`nc: option requires an argument -- '${o.missing}'\n`);
    return 1;
  }
  // -v once reports an open port and errors other than a refusal; -vv refusals too.
  const verbosity = args.filter((a) => /^-[a-z]+$/.test(a)).reduce((n, a) => n + (a.match(/v/g)?.length ?? 0), 0);
  const verbose = verbosity > 0;
  const localPort = o.values.get('p');
  if (localPort !== undefined && !(Number.isInteger(Number(localPort)) && Number(localPort) >= 1 && Number(localPort) <= 65535)) {
    ctx.err(`nc: bad local port '${localPort}'\n`);
    return 1;
  }
  if (o.flags.has('l')) {
    // The port is -p's; without it the kernel picks one (an operand is the peer to accept, not the port).
    const port = localPort !== undefined ? Number(localPort) : ephemeralPort(ctx);
    const net = networkOf(ctx);
    const reply = yield* readAll(ctx);
    // busybox accepts one connection and closes the listening socket (with -k too: only -e's program is served again and again).
    const listener: Listener = {
      podUID: net.podUID,
      container: net.container,
      startedAt: net.startedAt,
      port,
      since: ctx.now(),
      owner: ctx.files,
      addresses: ['::'],
      respond: (request, at) => {
        listener.accepted ??= { at, request };
        listener.closedAt ??= at;
        return reply;
      },
    };
    if (!net.cluster.listen(listener)) {
      ctx.err('nc: bind: Address already in use\n');
      return 1;
    }
    if (verbose) ctx.err(`listening on [::]:${port} ...\n`);
    // It prints what its client sent and ends with the connection; the process sees the accept when it next looks at the cluster.
    for (;;) {
      yield { kind: 'observe' };
      const accepted = listener.accepted;
      if (accepted) {
        if (accepted.at > ctx.now()) yield { kind: 'sleep', ms: accepted.at - ctx.now() };
        ctx.out(accepted.request);
        return 0;
      }
      yield { kind: 'sleep', ms: acceptPollMs };
      // Each look counts against a step budget, so a process run with no server clock to wait for (present unknown) still stops.
      yield { kind: 'tick' };
    }
  }
  const [host, portText] = o.operands;
  if (!host || !portText) {
    ctx.err('BusyBox v1.37.0 multi-call binary.\n\nUsage: nc [OPTIONS] HOST PORT  - connect\nnc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen\n');
    return 1;
  }
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    ctx.err(`nc: bad port '${portText}'\n`);
    return 1;
  }
  const w = o.values.get('w');
  const d = yield* dial(ctx, host, port, w !== undefined ? Number(w) * 1000 : undefined);
  if (d.kind === 'unresolved') {
    ctx.err(`nc: bad address '${host}'\n`);
    return 1;
  }
  // -vv ends with what went each way.
  const summary = (sent: string, received: string) => {
    if (verbosity > 1) ctx.err(`sent ${new TextEncoder().encode(sent).length}, rcvd ${new TextEncoder().encode(received).length}\n`);
  };
  if (d.kind !== 'connected') {
    if (verbosity > 1 || (verbose && d.kind === 'timeout')) ctx.err(`nc: ${host} (${d.ip}:${port}): ${d.kind === 'refused' ? 'Connection refused' : 'Connection timed out'}\n`);
    summary('', '');
    return 1;
  }
  if (verbose) ctx.err(`${host} (${d.ip}:${port}) open\n`);
  if (o.flags.has('z')) {
    // It connects and closes at once: a server still takes that connection (an `nc -l` ends with it).
    d.respond('');
    summary('', '');
    return 0;
  }
  const sent = yield* readAll(ctx);
  const received = d.respond(sent);
  ctx.out(received);
  summary(sent, received);
  return 0;
}

// ---- httpd

const mimeTypes: Record<string, string> = { html: 'text/html', htm: 'text/html', txt: 'text/plain', css: 'text/css', js: 'application/javascript', json: 'application/json', xml: 'text/xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml' };

/** busybox httpd's send_headers: an HTTP/1.0 status line, then Date and Connection, the type, a file's headers. */
function headers(status: number, reason: string, at: number, extra: string[]): string {
  return [`HTTP/1.0 ${status} ${reason}`, `Date: ${httpDate(at)}`, 'Connection: close', ...extra].map((l) => l + '\r\n').join('') + '\r\n';
}

function errorPage(status: number, reason: string, text: string, at: number): string {
  const body = `<HTML><HEAD><TITLE>${status} ${reason}</TITLE></HEAD>\n<BODY><H1>${status} ${reason}</H1>\n${text}\n</BODY></HTML>\n`;
  return headers(status, reason, at, ['Content-type: text/html']) + body;
}

/** busybox httpd's answer to a request, from the serving process's files under its home (their time: the server's start). */
export function httpdRespond(files: ReadonlyMap<string, FsEntry>, home: string, request: string, at: number, startedAt: number): string {
  const line = request.split(/\r?\n/)[0] ?? '';
  const m = /^([A-Z]+) (\S+)(?: HTTP\/\d\.\d)?$/.exec(line);
  if (!m) return errorPage(400, 'Bad Request', 'Unsupported method', at);
  const [, method, target] = m as unknown as [string, string, string];
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return errorPage(501, 'Not Implemented', 'The requested method is not recognized', at);
  let path: string;
  try {
    path = decodeURIComponent(target.replace(/[?#].*/, ''));
  } catch {
    return errorPage(400, 'Bad Request', 'Unsupported method', at);
  }
  let file = resolvePath(home, '.' + path);
  if (files.get(file)?.type === 'dir') file = `${file === '/' ? '' : file}/index.html`;
  const e = files.get(file);
  if (e?.type !== 'file') return errorPage(404, 'Not Found', 'The requested URL was not found', at);
  const ext = file.slice(file.lastIndexOf('/') + 1).includes('.') ? file.slice(file.lastIndexOf('.') + 1).toLowerCase() : '';
  const head = headers(200, 'OK', at, [`Content-type: ${mimeTypes[ext] ?? 'application/octet-stream'}`, 'Accept-Ranges: bytes', `Last-Modified: ${httpDate(Math.floor(startedAt / 1000) * 1000)}`, `Content-Length: ${e.content.byteLength}`]);
  return head + (method === 'HEAD' ? '' : decoder.decode(e.content));
}

/**
 * busybox httpd: serves its home directory on a port; -f stays in the
 * foreground (its socket closes when its process ends), otherwise it forks
 * a daemon that serves until its container ends, and returns at once.
 */
export function* httpd(args: string[], ctx: ToolContext): Run<number> {
  const o = parseOptions(args, 'phcrmeduPU', new Set());
  if (o.missing) {
    ctx.err(`httpd: option requires an argument -- '${o.missing}'\n`);
    return 1;
  }
  // -p [IP:]PORT: bound to that address only when one is given.
  const bound = /^(.*):[^:]*$/.exec(o.values.get('p') ?? '')?.[1];
  const portText = (o.values.get('p') ?? '80').replace(/^.*:/, '');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    ctx.err(`httpd: invalid port number '${portText}'\n`);
    return 1;
  }
  const home = resolvePath(ctx.cwd, o.values.get('h') ?? '.');
  if (ctx.files.get(home)?.type !== 'dir') {
    ctx.err(`httpd: can't change directory to '${o.values.get('h') ?? '.'}': No such file or directory\n`);
    return 1;
  }
  const net = networkOf(ctx);
  const files = ctx.files;
  const since = ctx.now();
  const daemon = !o.flags.has('f');
  const listening = net.cluster.listen({ podUID: net.podUID, container: net.container, startedAt: net.startedAt, port, since, owner: files, addresses: bound ? [bound] : ['::'], respond: (request, at) => httpdRespond(filesAt(files, at), home, request, at, since), ...(daemon ? { daemon } : {}) });
  if (!listening) {
    ctx.err('httpd: bind: Address already in use\n');
    return 1;
  }
  if (daemon) return 0;
  yield { kind: 'sleep', ms: Infinity };
  return 0;
}

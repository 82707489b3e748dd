/**
 * dig (BIND 9.18's, from bind9-dnsutils and Alpine's bind-tools) against the
 * cluster DNS: `dig web.default.svc.cluster.local`, `dig +short ...`,
 * `dig @10.96.0.10 ...`, `dig -x 10.96.0.1`, `+search` for the resolv.conf
 * search list (which dig, unlike the resolver, does not use unless told).
 * CoreDNS answers as the kubernetes plugin does (authoritative, TTL 30, the
 * zone's SOA with an NXDOMAIN); a server that is not the cluster DNS, or one
 * a NetworkPolicy keeps the queries from, times out three times.
 */
import { clusterDnsIP, clusterDomain, reverseName, wireLength, dnsQuery, dnsReverse, dnsSrv, isIPv4, resolvConfOf, type DnsAnswer } from './clusterDns';
import { strftime, type Run, type ToolContext } from './containerTools';
import { dnsReachable, reportDnsQuery, srvAnswerBytes } from './networkTools';
import { stringHash } from '../util/stringHash';

/** Debian bookworm's and Alpine's BIND, unless the image ships its own. */
const version = '9.18.33-1~deb12u2-Debian';
const ttl = 30;

/** A stable query id for the question at the time (dig's is random; a replayed process must say the same). */
const queryId = (name: string, at: number): number => stringHash(name, at) % 65536;


const soa = `${clusterDomain}.\t\t${ttl}\tIN\tSOA\tns.dns.${clusterDomain}. hostmaster.${clusterDomain}. 1732896000 7200 1800 86400 ${ttl}`;

type QueryType = 'A' | 'AAAA' | 'PTR' | 'SRV';

interface Record_ {
  name: string;
  type: 'A' | 'CNAME' | 'PTR' | 'SRV';
  data: string;
}

function records(qname: string, answer: DnsAnswer, type: QueryType): Record_[] {
  if (answer.rcode === 'NXDOMAIN') return [];
  const out: Record_[] = [];
  if (answer.ptr) out.push({ name: qname, type: 'PTR', data: `${answer.ptr}.` });
  if (answer.cname) out.push({ name: qname, type: 'CNAME', data: `${answer.cname}.` });
  if (type === 'A') for (const ip of answer.addresses) out.push({ name: qname, type: 'A', data: ip });
  return out;
}

const queryType = (t: string): QueryType => ({ AAAA: 'AAAA', SRV: 'SRV', PTR: 'PTR' } as Record<string, QueryType>)[t.toUpperCase()] ?? 'A';

export function* dig(args: string[], ctx: ToolContext): Run<number> {
  let server: string | undefined;
  let type: QueryType = 'A';
  let short = false;
  let search = false;
  let reverse: string | undefined;
  let name: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('@')) server = a.slice(1);
    else if (a === '+short') short = true;
    else if (a === '+search') search = true;
    else if (a.startsWith('+')) continue;
    else if (a === '-x') reverse = args[++i];
    else if (a === '-t') type = queryType(args[++i] ?? 'A');
    else if (/^(a|aaaa|srv)$/i.test(a) && (name !== undefined || a.toUpperCase() === 'SRV')) type = queryType(a);
    else name ??= a;
  }
  if (reverse !== undefined) {
    if (!isIPv4(reverse)) {
      ctx.err(`dig: '${reverse}' is not a legal IPv4 address\n`);
      return 1;
    }
    type = 'PTR';
    name = reverseName(reverse);
  }
  const conf = resolvConfOf(ctx.files);
  const target = server ?? conf.nameservers[0] ?? '127.0.0.1';
  const asked = name ?? '.';
  const header = `\n; <<>> DiG ${ctx.view.image.bind ?? version} <<>> ${args.join(' ')}\n;; global options: +cmd\n`;
  yield { kind: 'observe' };
  if (target !== clusterDnsIP || (ctx.network && !dnsReachable(ctx.network))) {
    // Three tries of five seconds each, then dig gives up.
    yield { kind: 'sleep', ms: 15_000 };
    ctx.out(`;; communications error to ${target}#53: timed out\n`.repeat(3));
    if (!short) ctx.out(`${header};; no servers could be reached\n\n`);
    return 9;
  }
  const net = ctx.network!.cluster;
  const question = name === undefined ? '' : name.replace(/\.$/, '');
  // +search: the resolv.conf search list for a name with fewer dots than ndots, as the resolver would.
  const candidates = search && !asked.endsWith('.') && question.split('.').length - 1 < conf.ndots ? [...conf.search.map((d) => `${question}.${d}`), question] : [question];
  let qname = candidates[candidates.length - 1]!;
  let answer: DnsAnswer = { rcode: 'NXDOMAIN' };
  let rrs: Record_[] = [];
  /** The targets' addresses, which an SRV answer carries in its additional section. */
  let additional: Record_[] = [];
  for (const c of candidates) {
    qname = c;
    if (type === 'SRV') {
      const srv = dnsSrv(net, c);
      answer = srv.rcode === 'NXDOMAIN' ? srv : { rcode: 'NOERROR', addresses: [] };
      rrs = srv.rcode === 'NXDOMAIN' ? [] : srv.records.map((r) => ({ name: c, type: 'SRV' as const, data: `${r.priority} ${r.weight} ${r.port} ${r.target}.` }));
      additional = srv.rcode === 'NXDOMAIN' ? [] : [...new Set(srv.records.map((r) => r.target))].flatMap((t) => records(t, dnsQuery(net, t, 'A'), 'A'));
      reportDnsQuery(ctx, c, 'SRV', srv, { answerBytes: srvAnswerBytes(c, srv), edns: true });
    } else {
      answer = type === 'PTR' ? dnsReverse(net, reverse!) : dnsQuery(net, c, type);
      rrs = records(c, answer, type);
      reportDnsQuery(ctx, c, type, answer, { edns: true });
    }
    if (answer.rcode === 'NOERROR') break;
  }
  // A CNAME's target is looked up too when it is in the cluster's zone.
  if (answer.rcode === 'NOERROR' && answer.cname && type === 'A') rrs.push(...records(answer.cname, dnsQuery(net, answer.cname, 'A'), 'A'));
  if (short) {
    for (const r of rrs) ctx.out(`${r.data}\n`);
    return 0;
  }
  const at = ctx.now();
  const authority = answer.rcode === 'NXDOMAIN' ? 1 : 0;
  const size = 12 + wireLength(qname) + 4 + [...rrs, ...additional].reduce((n, r) => n + 12 + (r.type === 'A' ? 4 : wireLength(r.data)), 0) + authority * 60 + 39;
  let out = header;
  out += `;; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: ${answer.rcode}, id: ${queryId(qname, at)}\n`;
  out += `;; flags: qr aa rd; QUERY: 1, ANSWER: ${rrs.length}, AUTHORITY: ${authority}, ADDITIONAL: ${1 + additional.length}\n;; WARNING: recursion requested but not available\n\n`;
  out += `;; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 1232\n; COOKIE: ${queryId(qname, at + 1).toString(16).padStart(4, '0')}7c2d9e1f5a3b (echoed)\n`;
  out += `;; QUESTION SECTION:\n;${qname}.\t\tIN\t${type}\n\n`;
  if (rrs.length) out += `;; ANSWER SECTION:\n${rrs.map((r) => `${r.name}. ${ttl} IN\t${r.type}\t${r.data}`).join('\n')}\n\n`;
  if (authority) out += `;; AUTHORITY SECTION:\n${soa}\n\n`;
  if (additional.length) out += `;; ADDITIONAL SECTION:\n${additional.map((r) => `${r.name}. ${ttl} IN\t${r.type}\t${r.data}`).join('\n')}\n\n`;
  out += `;; Query time: 0 msec\n;; SERVER: ${target}#53(${target}) (UDP)\n;; WHEN: ${strftime('%a %b %d %H:%M:%S UTC %Y', at)}\n;; MSG SIZE  rcvd: ${size}\n\n`;
  ctx.out(out);
  return 0;
}

/**
 * BIND's nslookup (Debian's dnsutils, Alpine's bind-tools, the DNS debugging
 * page's jessie-dnsutils image), which differs from busybox's applet: a name
 * with fewer dots than ndots is tried in each search domain first and only
 * the answer found is printed, under its full name; no answer anywhere is one
 * `** server can't find <name>: NXDOMAIN`. CoreDNS's answers are
 * authoritative, so no `Non-authoritative answer:` line.
 */
import { apkInstalled } from './packageTools';
import { clusterDnsIP, dnsQuery, dnsReverse, dnsSrv, isIPv4, resolvConfOf, reverseName, searchNames, type DnsAnswer } from './clusterDns';
import type { Run, ToolContext } from './containerTools';
import { dnsReachable, networkOf, nslookupQueryType, reportDnsQuery, srvAnswerBytes } from './networkTools';

/** Whether the container's nslookup is BIND's rather than busybox's applet (which Alpine's bind-tools replaces). */
export function isBindNslookup(ctx: ToolContext): boolean {
  const image = ctx.view.image;
  if (image.busybox) return false;
  if (image.bind) return true;
  const os = image.os?.id;
  return os === 'alpine' ? apkInstalled(ctx.files, 'bind-tools') : os === 'debian' || os === 'ubuntu';
}

/** nslookup's wait on a server that does not answer: its 5 s timeout, three tries. */
const timeoutMs = 15_000;

export function* bindNslookup(args: string[], ctx: ToolContext): Run<number> {
  const operands = args.filter((a) => !a.startsWith('-'));
  const name = operands[0];
  const type = nslookupQueryType(args) ?? 'A';
  if (!name) {
    // Without a name nslookup is interactive; with no terminal it reads nothing and ends.
    return 0;
  }
  yield { kind: 'observe' };
  const net = networkOf(ctx);
  const conf = resolvConfOf(ctx.files);
  const server = operands[1] ?? conf.nameservers[0] ?? '127.0.0.1';
  // BIND 9.9 (jessie) says it in one line; 9.18 names each try.
  const old = /^9\.(\d)\./.test(ctx.view.image.bind ?? '');
  if (server !== clusterDnsIP || !dnsReachable(net)) {
    yield { kind: 'sleep', ms: timeoutMs };
    ctx.out(old ? ';; connection timed out; no servers could be reached\n\n' : `${`;; communications error to ${server}#53: timed out\n`.repeat(3)};; no servers could be reached\n\n`);
    return 1;
  }
  let out = `Server:\t\t${server}\nAddress:\t${server}#53\n\n`;
  const cluster = net.cluster;
  const notFound = (q: string) => {
    ctx.out(`${out}** server can't find ${q}: NXDOMAIN\n\n`);
    return 1;
  };
  if (isIPv4(name) || type === 'PTR') {
    const q = isIPv4(name) ? reverseName(name) : name;
    const answer = isIPv4(name) ? dnsReverse(cluster, name) : { rcode: 'NXDOMAIN' as const };
    reportDnsQuery(ctx, q, 'PTR', answer);
    if (answer.rcode === 'NXDOMAIN' || !answer.ptr) return notFound(q);
    ctx.out(`${out}${q}\tname = ${answer.ptr}.\n\n`);
    return 0;
  }
  const candidates = searchNames(name, conf);
  if (type === 'SRV') {
    for (const q of candidates) {
      const srv = dnsSrv(cluster, q);
      reportDnsQuery(ctx, q, 'SRV', srv, { answerBytes: srvAnswerBytes(q, srv) });
      if (srv.rcode === 'NXDOMAIN' || !srv.records.length) continue;
      ctx.out(`${out}${srv.records.map((r) => `${q}\tservice = ${r.priority} ${r.weight} ${r.port} ${r.target}.\n`).join('')}\n`);
      return 0;
    }
    return notFound(name);
  }
  for (const q of candidates) {
    const answer: DnsAnswer = dnsQuery(cluster, q, 'A');
    reportDnsQuery(ctx, q, 'A', answer);
    if (answer.rcode === 'NXDOMAIN') continue;
    if (answer.cname) {
      out += `${q}\tcanonical name = ${answer.cname}.\n`;
      const target = dnsQuery(cluster, answer.cname, 'A');
      if (target.rcode === 'NOERROR') for (const ip of target.addresses) out += `Name:\t${answer.cname}\nAddress: ${ip}\n`;
    }
    for (const ip of answer.addresses) out += `Name:\t${q}\nAddress: ${ip}\n`;
    if (!answer.cname && !answer.addresses.length) out += `*** Can't find ${name}: No answer\n`;
    ctx.out(`${out}\n`);
    return 0;
  }
  return notFound(name);
}

/** The cluster network as containers see it: CoreDNS's answers, kube-proxy's routing, and the busybox tools over them. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { t0, testView } from './container.test-data';
import { ClusterNetwork, type PodNetwork } from './clusterNetwork';
import { dnsQuery, resolveHost, searchNames, parseResolvConf } from './clusterDns';
import { connect } from './kubeProxy';
import { startProcess } from './containerProcess';
import { execInContainer } from './containerExec';
import type { ContainerView } from './containerView';
import { unknownImage, type SimulatedImage } from './image';
import { catalogImage } from './imageCatalog';

const startedAt = '2026-11-28T17:18:10Z';
const resolvConf = 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n';

/** The simulated nodes' addresses. */
const nodeIPs: Record<string, string> = { 'node-1': '172.18.0.2', 'node-2': '172.18.0.3' };

function pod(name: string, ip: string, opts: { ready?: boolean; hostname?: string; subdomain?: string; ns?: string; node?: string; hostNetwork?: boolean; ports?: Record<string, unknown>[] } = {}): KubeObject {
  const bound = opts.node ? { nodeName: opts.node } : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: opts.ns ?? 'default', uid: `uid-${name}` },
    spec: { ...bound, containers: [{ name: 'app', image: 'busybox', ...(opts.ports ? { ports: opts.ports } : {}) }], ...(opts.hostname ? { hostname: opts.hostname } : {}), ...(opts.subdomain ? { subdomain: opts.subdomain } : {}), ...(opts.hostNetwork ? { hostNetwork: true } : {}) },
    status: { phase: 'Running', ...(opts.node ? { hostIP: nodeIPs[opts.node] } : {}), podIP: ip, podIPs: [{ ip }], containerStatuses: [{ name: 'app', ready: opts.ready ?? true, state: { running: { startedAt } } }] },
  };
}

function service(name: string, spec: Record<string, unknown>, ns = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, uid: `svc-${name}` }, spec };
}

function slice(svc: string, ports: { name: string; port: number }[], endpoints: { ip: string; ready: boolean; hostname?: string; nodeName?: string }[], ns = 'default'): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${svc}-abcde`, namespace: ns, labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    ports: ports.map((p) => ({ ...p, protocol: 'TCP' })),
    endpoints: endpoints.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready, serving: e.ready, terminating: false }, ...(e.hostname ? { hostname: e.hostname } : {}), ...(e.nodeName ? { nodeName: e.nodeName } : {}) })),
  };
}

let net: ClusterNetwork;

beforeEach(() => {
  net = new ClusterNetwork();
  for (const p of [pod('web-1', '10.244.1.5'), pod('web-2', '10.244.2.7'), pod('client', '10.244.1.9'), pod('db-0', '10.244.1.20', { hostname: 'db-0', subdomain: 'db' }), pod('db-1', '10.244.2.21', { ready: false, hostname: 'db-1', subdomain: 'db' })]) net.apply('pods', p);
  net.apply('services', service('kubernetes', { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] }));
  net.apply('services', service('web', { clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }] }));
  net.apply('services', service('empty', { clusterIP: '10.96.100.20', clusterIPs: ['10.96.100.20'], selector: { app: 'none' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] }));
  net.apply('services', service('db', { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [{ port: 5432, protocol: 'TCP' }] }));
  net.apply('services', service('ext', { type: 'ExternalName', externalName: 'db.example.com' }));
  net.apply('endpointslices', slice('web', [{ name: 'http', port: 8080 }], [{ ip: '10.244.1.5', ready: true }, { ip: '10.244.2.7', ready: true }]));
  net.apply('endpointslices', slice('empty', [{ name: '', port: 80 }], []));
  net.apply('endpointslices', slice('db', [{ name: '', port: 5432 }], [{ ip: '10.244.1.20', ready: true, hostname: 'db-0' }, { ip: '10.244.2.21', ready: false, hostname: 'db-1' }]));
});

const podNetwork = (name: string): PodNetwork => ({ cluster: net, namespace: 'default', podName: name, podUID: `uid-${name}`, container: 'app', startedAt });

function viewOf(name: string, files: Record<string, string> = {}): ContainerView {
  return { ...testView({ files: { '/etc/resolv.conf': resolvConf, '/etc/hosts': `127.0.0.1\tlocalhost\n10.244.1.9\t${name}\n`, ...files } }), network: podNetwork(name) };
}

/** Runs `sh -c script` in a pod's container from `at` (ms after t0) for up to an hour. */
function runIn(name: string, script: string, opts: { at?: number; files?: Record<string, string> } = {}) {
  const start = startProcess(viewOf(name, opts.files), ['sh', '-c', script], t0 + (opts.at ?? 0), { stdin: false, tty: false, seed: 7, commandMs: 0 });
  if (!start.started) throw new Error(start.error);
  const r = start.process.advance(t0 + 3_600_000, 1_000_000);
  const text = (s: 1 | 2) => r.output.filter((o) => o.stream === s).map((o) => o.text).join('');
  return { stdout: text(1), stderr: text(2), code: r.exit?.code, exitAt: r.exit ? r.exit.at - t0 - (opts.at ?? 0) : undefined };
}

const serveHello = (name: string, port = 8080) => runIn(name, `mkdir -p /www; echo hello from ${name} > /www/index.html; httpd -f -p ${port} -h /www`);

describe('cluster DNS', () => {
  it('answers a Service by its FQDN with its ClusterIP, NXDOMAIN for names that are not in the cluster', () => {
    expect(dnsQuery(net, 'web.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.96.100.10'] });
    expect(dnsQuery(net, 'WEB.default.svc.cluster.local.', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.96.100.10'] });
    expect(dnsQuery(net, 'web.default.svc.cluster.local', 'AAAA')).toEqual({ rcode: 'NOERROR', addresses: [] });
    expect(dnsQuery(net, 'web.other.svc.cluster.local', 'A')).toEqual({ rcode: 'NXDOMAIN' });
    expect(dnsQuery(net, 'web.svc.cluster.local', 'A')).toEqual({ rcode: 'NXDOMAIN' });
    expect(dnsQuery(net, 'example.com', 'A')).toEqual({ rcode: 'NXDOMAIN' });
  });

  it('a headless Service answers its ready endpoints, and a pod by hostname under its subdomain', () => {
    expect(dnsQuery(net, 'db.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.244.1.20'] });
    expect(dnsQuery(net, 'db-0.db.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.244.1.20'] });
    // Not ready: not published.
    expect(dnsQuery(net, 'db-1.db.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NXDOMAIN' });
  });

  it('ExternalName is a CNAME; pod A records take the address from the name', () => {
    expect(dnsQuery(net, 'ext.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: [], cname: 'db.example.com' });
    expect(dnsQuery(net, '10-244-1-5.default.pod.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.244.1.5'] });
    expect(dnsQuery(net, 'kubernetes.default.svc.cluster.local', 'A')).toEqual({ rcode: 'NOERROR', addresses: ['10.96.0.1'] });
  });

  it('the resolver tries the search list first for names with fewer dots than ndots', () => {
    const conf = parseResolvConf(resolvConf);
    expect(conf).toEqual({ nameservers: ['10.96.0.10'], search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ndots: 5 });
    expect(searchNames('web', conf)).toEqual(['web.default.svc.cluster.local', 'web.svc.cluster.local', 'web.cluster.local', 'web']);
    expect(searchNames('a.b.c.d.e', conf)[0]).toBe('a.b.c.d.e.default.svc.cluster.local');
    expect(searchNames('a.b.c.d.e.f', conf)[0]).toBe('a.b.c.d.e.f');
    expect(searchNames('web.default.svc.cluster.local.', conf)).toEqual(['web.default.svc.cluster.local']);
    const files = viewOf('client').files;
    expect(['web', 'web.default', 'web.default.svc', 'web.default.svc.cluster.local', 'kubernetes.default', 'client', 'localhost', 'nope', '10.1.2.3'].map((n) => resolveHost(net, files, n))).toEqual(['10.96.100.10', '10.96.100.10', '10.96.100.10', '10.96.100.10', '10.96.0.1', '10.244.1.9', '127.0.0.1', undefined, '10.1.2.3']);
  });
});

describe('kube-proxy routing', () => {
  it('a ClusterIP port goes to a ready endpoint at its target port, round-robin; a port the Service lacks is dropped', () => {
    serveHello('web-1');
    serveHello('web-2');
    const from = podNetwork('client');
    const picked = [0, 1, 2].map(() => {
      const c = connect(from, '10.96.100.10', 80, t0 + 1000);
      return c.kind === 'connected' ? c.listener.podUID : c.kind;
    });
    expect(picked).toEqual(['uid-web-1', 'uid-web-2', 'uid-web-1']);
    expect(connect(from, '10.96.100.10', 8080, t0 + 1000).kind).toBe('timeout');
    expect(connect(from, '10.96.100.20', 80, t0 + 1000).kind).toBe('refused');
    expect(connect(from, '10.244.1.5', 8080, t0 + 1000).kind).toBe('connected');
    expect(connect(from, '10.244.1.5', 9090, t0 + 1000).kind).toBe('refused');
    expect(connect(from, '10.1.2.3', 80, t0 + 1000).kind).toBe('timeout');
    // Before the server listened, and once its container's run is no longer the running one.
    expect(connect(from, '10.244.1.5', 8080, t0 - 1).kind).toBe('refused');
    net.apply('pods', { ...pod('web-1', '10.244.1.5'), status: { phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }], containerStatuses: [{ name: 'app', state: { running: { startedAt: '2026-11-28T17:20:00Z' } } }] } });
    expect(connect(from, '10.244.1.5', 8080, t0 + 1000).kind).toBe('refused');
  });

  it("the kubernetes Service reaches kube-apiserver's TLS port, which answers plain HTTP with Go's 400", () => {
    net.apply('endpointslices', slice('kubernetes', [{ name: 'https', port: 6443 }], [{ ip: '172.18.0.1', ready: true }]));
    expect(runIn('client', 'wget -qO- kubernetes.default:443; curl -s http://172.18.0.1:6443/api')).toMatchObject({ stdout: 'Client sent an HTTP request to an HTTPS server.\n', stderr: 'wget: server returned error: HTTP/1.0 400 Bad Request\n' });
    expect(connect(podNetwork('client'), '172.18.0.1', 80, t0).kind).toBe('timeout');
  });

  it('a Service whose pods are not ready has no endpoint to go to: refused', () => {
    serveHello('db-1', 5432);
    net.apply('services', service('db-vip', { clusterIP: '10.96.100.30', clusterIPs: ['10.96.100.30'], ports: [{ port: 5432, protocol: 'TCP' }] }));
    net.apply('endpointslices', slice('db-vip', [{ name: '', port: 5432 }], [{ ip: '10.244.2.21', ready: false }]));
    expect(connect(podNetwork('client'), '10.96.100.30', 5432, t0 + 1000).kind).toBe('refused');
    // The pod itself still answers on its address.
    expect(connect(podNetwork('client'), '10.244.2.21', 5432, t0 + 1000).kind).toBe('connected');
    net.apply('endpointslices', slice('db-vip', [{ name: '', port: 5432 }], [{ ip: '10.244.2.21', ready: true }]));
    expect(connect(podNetwork('client'), '10.96.100.30', 5432, t0 + 1000).kind).toBe('connected');
  });

  it('an endpoint whose port nothing listens on refuses; loopback reaches the pod itself', () => {
    serveHello('web-1', 9090);
    expect(connect(podNetwork('client'), '10.96.100.10', 80, t0 + 1000).kind).toBe('refused');
    expect(connect(podNetwork('web-1'), '127.0.0.1', 9090, t0 + 1000).kind).toBe('connected');
    expect(connect(podNetwork('client'), '127.0.0.1', 9090, t0 + 1000).kind).toBe('refused');
  });
});

describe('network tools', () => {
  it('nslookup of busybox 1.28 (the StatefulSet page\'s): the libc resolver through the search list, each address with its reverse name', () => {
    const view = { ...viewOf('client'), image: catalogImage('busybox:1.28')! };
    const old = (script: string) => {
      const start = startProcess(view, ['sh', '-c', script], t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
      if (!start.started) throw new Error(start.error);
      const r = start.process.advance(t0 + 60_000, 1_000_000);
      return { stdout: r.output.filter((o) => o.stream === 1).map((o) => o.text).join(''), stderr: r.output.filter((o) => o.stream === 2).map((o) => o.text).join(''), code: r.exit?.code };
    };
    const server = 'Server:    10.96.0.10\nAddress 1: 10.96.0.10\n\n';
    // A dotted name goes through the search list too (ndots:5), as the page's `nslookup web-0.nginx` needs.
    expect(old('nslookup db-0.db')).toEqual({ stdout: `${server}Name:      db-0.db\nAddress 1: 10.244.1.20 db-0.db.default.svc.cluster.local\n`, stderr: '', code: 0 });
    expect(old('nslookup kubernetes.default').stdout).toBe(`${server}Name:      kubernetes.default\nAddress 1: 10.96.0.1 kubernetes.default.svc.cluster.local\n`);
    expect(old('nslookup web').stdout).toBe(`${server}Name:      web\nAddress 1: 10.96.100.10 web.default.svc.cluster.local\n`);
    expect(old('nslookup nope')).toEqual({ stdout: server, stderr: "nslookup: can't resolve 'nope'\n", code: 1 });
    expect(old('nslookup -type=a web')).toMatchObject({ stderr: expect.stringMatching(/^BusyBox v1\.28\.4 .*\n\nUsage: nslookup \[HOST\] \[SERVER\]\n/), code: 1 });
    // busybox 1.37's own nslookup asks a dotted name as it is.
    expect(runIn('client', 'nslookup db-0.db').code).toBe(1);
  });

  it('nslookup: busybox asks each search domain for a dotless name, A then AAAA', () => {
    expect(runIn('client', 'nslookup web')).toEqual({
      stdout:
        'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: 10.96.100.10\n\n' +
        "** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n" +
        "*** Can't find web.default.svc.cluster.local: No answer\n\n** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n",
      stderr: '',
      // An NXDOMAIN for any question, though another was answered.
      code: 1,
      exitAt: 0,
    });
    expect(runIn('client', 'nslookup web.default.svc.cluster.local')).toMatchObject({ stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: 10.96.100.10\n\n*** Can't find web.default.svc.cluster.local: No answer\n\n", code: 0 });
    expect(runIn('client', 'nslookup ext.default.svc.cluster.local')).toMatchObject({ stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\next.default.svc.cluster.local\tcanonical name = db.example.com\n\next.default.svc.cluster.local\tcanonical name = db.example.com\n\n', code: 0 });
    // A server that does not answer: busybox waits out its 5 s.
    expect(runIn('client', 'nslookup web 172.18.0.1')).toEqual({ stdout: ';; connection timed out; no servers could be reached\n\n', stderr: '', code: 1, exitAt: 5000 });
    // A name with a dot is asked as it is.
    expect(runIn('client', 'nslookup web.default')).toMatchObject({ stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find web.default: NXDOMAIN\n\n** server can't find web.default: NXDOMAIN\n\n", code: 1 });
    expect(runIn('client', 'nslookup -type=a db.default.svc.cluster.local; nslookup 10.96.100.10').stdout).toBe(
      "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tdb.default.svc.cluster.local\nAddress: 10.244.1.20\n\n*** Can't find db.default.svc.cluster.local: No answer\n\n" + 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n10.100.96.10.in-addr.arpa\tname = web.default.svc.cluster.local\n\n',
    );
  });

  it("nslookup of BIND (the DNS debugging page's jessie-dnsutils, Debian's dnsutils, Alpine's bind-tools): the answer found through the search list under its full name", () => {
    const inImage = (image: SimulatedImage, script: string, files: Record<string, string> = {}) => {
      const start = startProcess({ ...viewOf('client', files), image }, ['sh', '-c', script], t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
      if (!start.started) throw new Error(start.error);
      const r = start.process.advance(t0 + 60_000, 1_000_000);
      return { stdout: r.output.filter((o) => o.stream === 1).map((o) => o.text).join(''), code: r.exit?.code, exitAt: r.exit ? r.exit.at - t0 : undefined };
    };
    const jessie = catalogImage('registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3')!;
    const server = 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n';
    expect(inImage(jessie, 'nslookup kubernetes.default')).toEqual({ stdout: `${server}Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n`, code: 0, exitAt: 0 });
    expect(inImage(jessie, 'nslookup db')).toMatchObject({ stdout: `${server}Name:\tdb.default.svc.cluster.local\nAddress: 10.244.1.20\n\n`, code: 0 });
    expect(inImage(jessie, 'nslookup nope')).toMatchObject({ stdout: `${server}** server can't find nope: NXDOMAIN\n\n`, code: 1 });
    expect(inImage(jessie, 'nslookup 10.96.100.10')).toMatchObject({ stdout: `${server}10.100.96.10.in-addr.arpa\tname = web.default.svc.cluster.local.\n\n`, code: 0 });
    expect(inImage(jessie, 'nslookup ext')).toMatchObject({ stdout: `${server}ext.default.svc.cluster.local\tcanonical name = db.example.com.\n\n`, code: 0 });
    // BIND 9.9 says the timeout in one line, 9.18 names each of its three tries.
    expect(inImage(jessie, 'nslookup web 172.18.0.1')).toEqual({ stdout: ';; connection timed out; no servers could be reached\n\n', code: 1, exitAt: 15_000 });
    expect(inImage(jessie, 'dig web.default.svc.cluster.local').stdout).toContain('; <<>> DiG 9.9.5-9+deb8u19-Debian <<>> web.default.svc.cluster.local\n');
    const debian: SimulatedImage = { ...catalogImage('debian:12')!, tools: [...catalogImage('debian:12')!.tools!, 'nslookup'] };
    expect(inImage(debian, 'nslookup web')).toMatchObject({ stdout: `${server}Name:\tweb.default.svc.cluster.local\nAddress: 10.96.100.10\n\n`, code: 0 });
    expect(inImage(debian, 'nslookup web 172.18.0.1').stdout).toBe(`${';; communications error to 172.18.0.1#53: timed out\n'.repeat(3)};; no servers could be reached\n\n`);
    // Alpine's nslookup is busybox's until bind-tools replaces it.
    const alpine = catalogImage('alpine:3.21')!;
    expect(inImage(alpine, 'nslookup kubernetes.default.svc.cluster.local').stdout).toMatch(/^Server:\t\t10\.96\.0\.10\nAddress:\t10\.96\.0\.10:53\n/);
    expect(inImage(alpine, 'nslookup kubernetes.default', { '/etc/apk/world': 'alpine-baselayout\nbind-tools\nbusybox\n' }).stdout).toBe(`${server}Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n`);
  });

  it("the cluster DNS is kube-dns's ready endpoints when a Service holds its address: none ready, and a lookup times out", () => {
    const coredns = pod('coredns-a', '10.244.1.3', { ns: 'kube-system' });
    net.apply('pods', { ...coredns, metadata: { ...coredns.metadata, labels: { 'k8s-app': 'kube-dns' } } });
    net.apply('services', service('kube-dns', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], selector: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] }, 'kube-system'));
    net.apply('endpointslices', slice('kube-dns', [{ name: 'dns', port: 53 }], [{ ip: '10.244.1.3', ready: false }], 'kube-system'));
    expect(runIn('client', 'nslookup kubernetes.default.svc.cluster.local')).toEqual({ stdout: ';; connection timed out; no servers could be reached\n\n', stderr: '', code: 1, exitAt: 5000 });
    expect(runIn('client', 'wget -qO- -T 1 web')).toMatchObject({ stderr: "wget: bad address 'web'\n", code: 1, exitAt: 10_000 });
    net.apply('endpointslices', slice('kube-dns', [{ name: 'dns', port: 53 }], [{ ip: '10.244.1.3', ready: true }], 'kube-system'));
    expect(runIn('client', 'nslookup kubernetes.default.svc.cluster.local')).toMatchObject({ stdout: expect.stringContaining('Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n'), code: 0 });
    // kube-dns deleted while CoreDNS runs: nothing routes the address any more.
    net.apply('services', service('kube-dns', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] }, 'kube-system'), true);
    expect(runIn('client', 'nslookup kubernetes.default.svc.cluster.local')).toMatchObject({ stdout: ';; connection timed out; no servers could be reached\n\n', code: 1 });
  });

  it('dig: the full answer as BIND prints it, +short, +search, -x, an NXDOMAIN with the SOA, a headless Service and an ExternalName, a server that does not answer', () => {
    const full = runIn('client', 'dig web.default.svc.cluster.local');
    expect(full.code).toBe(0);
    expect(full.stdout).toMatch(/^\n; <<>> DiG 9\.18\.33-1~deb12u2-Debian <<>> web\.default\.svc\.cluster\.local\n;; global options: \+cmd\n;; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: \d+\n;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1\n/);
    expect(full.stdout).toContain(';; QUESTION SECTION:\n;web.default.svc.cluster.local.\t\tIN\tA\n\n;; ANSWER SECTION:\nweb.default.svc.cluster.local. 30 IN\tA\t10.96.100.10\n\n;; Query time: 0 msec\n;; SERVER: 10.96.0.10#53(10.96.0.10) (UDP)\n');
    // dig asks a dotless name as it is unless +search; the resolver's list is then tried first.
    expect(runIn('client', 'dig +short web; dig +short +search web; dig +short db.default.svc.cluster.local; dig +short ext.default.svc.cluster.local; dig -x 10.96.100.10 +short').stdout).toBe('10.96.100.10\n10.244.1.20\ndb.example.com.\nweb.default.svc.cluster.local.\n');
    const missing = runIn('client', 'dig nope.default.svc.cluster.local');
    expect(missing.stdout).toContain('status: NXDOMAIN');
    expect(missing.stdout).toContain(';; AUTHORITY SECTION:\ncluster.local.\t\t30\tIN\tSOA\tns.dns.cluster.local. hostmaster.cluster.local. 1732896000 7200 1800 86400 30\n');
    // SRV: a named port of a ClusterIP Service is the Service; a headless one's are its ready endpoints by hostname, the weight shared; targets' addresses come as additional records.
    expect(runIn('client', 'dig +short SRV _http._tcp.web.default.svc.cluster.local; dig +short -t srv db.default.svc.cluster.local; dig +short SRV _nope._tcp.web.default.svc.cluster.local').stdout).toBe('0 100 80 web.default.svc.cluster.local.\n0 100 5432 db-0.db.default.svc.cluster.local.\n');
    const srv = runIn('client', 'dig SRV _http._tcp.web.default.svc.cluster.local').stdout;
    expect(srv).toContain(';; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 2\n');
    expect(srv).toContain(';; ANSWER SECTION:\n_http._tcp.web.default.svc.cluster.local. 30 IN\tSRV\t0 100 80 web.default.svc.cluster.local.\n\n;; ADDITIONAL SECTION:\nweb.default.svc.cluster.local. 30 IN\tA\t10.96.100.10\n');
    expect(runIn('client', 'nslookup -type=srv _http._tcp.web.default.svc.cluster.local').stdout).toBe('Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n_http._tcp.web.default.svc.cluster.local\tservice = 0 100 80 web.default.svc.cluster.local\n\n');
    expect(runIn('client', 'dig @172.18.0.1 web')).toEqual({ stdout: ';; communications error to 172.18.0.1#53: timed out\n'.repeat(3) + '\n; <<>> DiG 9.18.33-1~deb12u2-Debian <<>> @172.18.0.1 web\n;; global options: +cmd\n;; no servers could be reached\n\n', stderr: '', code: 9, exitAt: 15_000 });
  });

  it('wget: the body with -qO-, the connecting line and progress otherwise, saved files, and each failure', () => {
    serveHello('web-1');
    serveHello('web-2');
    expect(runIn('client', 'wget -qO- web:80; wget -q -O - http://web.default.svc.cluster.local/', { at: 1000 })).toEqual({ stdout: 'hello from web-1\nhello from web-2\n', stderr: '', code: 0, exitAt: 0 });
    expect(runIn('client', 'cd /tmp && wget web && cat index.html', { at: 1000 })).toEqual({
      stdout: 'hello from web-1\n',
      stderr: "Connecting to web (10.96.100.10:80)\nsaving to 'index.html'\nindex.html          100% |*******************************|    17   0:00:00 ETA\n'index.html' saved\n",
      code: 0,
      exitAt: 0,
    });
    expect(runIn('client', 'wget --spider web; echo $?; wget -q --spider web/nope', { at: 1000 })).toMatchObject({ stdout: '0\n', stderr: 'Connecting to web (10.96.100.10:80)\nremote file exists\nwget: server returned error: HTTP/1.0 404 Not Found\n', code: 1 });
    expect(runIn('client', 'wget -q -O- web/missing.html', { at: 1000 })).toMatchObject({ stdout: '', stderr: 'wget: server returned error: HTTP/1.0 404 Not Found\n', code: 1 });
    expect(runIn('client', 'wget -O- empty', { at: 1000 })).toMatchObject({ stderr: "Connecting to empty (10.96.100.20:80)\nwget: can't connect to remote host (10.96.100.20): Connection refused\n", code: 1 });
    expect(runIn('client', 'wget -qO- nothing:80', { at: 1000 })).toMatchObject({ stderr: "wget: bad address 'nothing:80'\n", code: 1 });
    expect(runIn('client', 'wget -qO- -T 5 web:8080', { at: 1000 })).toEqual({ stdout: '', stderr: 'wget: download timed out\n', code: 1, exitAt: 5000 });
    expect(runIn('client', 'wget -qO- web:8080', { at: 1000 })).toMatchObject({ stderr: "wget: can't connect to remote host (10.96.100.10): Connection timed out\n", code: 1, exitAt: 127_000 });
    expect(runIn('client', 'wget -S -qO- 10.244.1.5:8080', { at: 1000 }).stderr).toBe(
      '  HTTP/1.0 200 OK\n  Date: Sat, 28 Nov 2026 17:18:11 GMT\n  Connection: close\n  Content-type: text/html\n  Accept-Ranges: bytes\n  Last-Modified: Sat, 28 Nov 2026 17:18:10 GMT\n  Content-Length: 17\n',
    );
  });

  it('curl: the body, -i headers, -sS errors with their exit codes, -m timeout', () => {
    serveHello('web-1');
    expect(runIn('client', 'curl -s 10.244.1.5:8080', { at: 1000 })).toMatchObject({ stdout: 'hello from web-1\n', code: 0 });
    // Options that take a value (a CA file, a client certificate) do not take the URL's place.
    expect(runIn('client', 'curl -s --cacert /ca.crt --cert /c.pem -H "Authorization: Bearer t" 10.244.1.5:8080', { at: 1000 })).toMatchObject({ stdout: 'hello from web-1\n', code: 0 });
    expect(runIn('client', 'curl -si http://10.244.1.5:8080/nope', { at: 1000 }).stdout).toBe(
      'HTTP/1.0 404 Not Found\r\nDate: Sat, 28 Nov 2026 17:18:11 GMT\r\nConnection: close\r\nContent-type: text/html\r\n\r\n<HTML><HEAD><TITLE>404 Not Found</TITLE></HEAD>\n<BODY><H1>404 Not Found</H1>\nThe requested URL was not found\n</BODY></HTML>\n',
    );
    expect(runIn('client', 'curl -sS empty', { at: 1000 })).toMatchObject({ stdout: '', stderr: "curl: (7) Failed to connect to empty port 80 after 0 ms: Couldn't connect to server\n", code: 7 });
    expect(runIn('client', 'curl -s empty', { at: 1000 })).toMatchObject({ stderr: '', code: 7 });
    expect(runIn('client', 'curl nothing', { at: 1000 })).toMatchObject({ stderr: 'curl: (6) Could not resolve host: nothing\n', code: 6 });
    expect(runIn('client', 'curl -sS -m 3 web:8080', { at: 1000 })).toMatchObject({ stderr: 'curl: (28) Connection timed out after 3000 milliseconds\n', code: 28, exitAt: 3000 });
    expect(runIn('client', 'curl -s -o /dev/null -w "%{http_code}\\n" 10.244.1.5:8080; curl -so /dev/null -w "%{http_code} %{size_download}" 10.244.1.5:8080/nope', { at: 1000 })).toMatchObject({ stdout: '200\n404 124', code: 0 });
    expect(runIn('client', 'curl -sSf 10.244.1.5:8080/nope', { at: 1000 })).toMatchObject({ stdout: '', stderr: 'curl: (22) The requested URL returned error: 404\n', code: 22 });
  });

  it('nc: -zv port checks, a -l server sending its input, -w timeouts', () => {
    serveHello('web-1');
    runIn('web-2', 'echo pong | nc -l -p 7000');
    // One -v leaves a refusal unsaid; -vv reports it.
    expect(runIn('client', 'nc -zv web 80; echo $?; nc -zv 10.244.2.7 7001; echo $?; nc -z -vv 10.244.2.7 7001', { at: 1000 })).toMatchObject({ stdout: '0\n1\n', stderr: 'web (10.96.100.10:80) open\nnc: 10.244.2.7 (10.244.2.7:7001): Connection refused\nsent 0, rcvd 0\n', code: 1 });
    expect(runIn('client', 'echo ping | nc -vv 10.244.2.7 7000', { at: 1000 })).toMatchObject({ stdout: 'pong\n', stderr: '10.244.2.7 (10.244.2.7:7000) open\nsent 5, rcvd 5\n', code: 0 });
    expect(runIn('client', 'nc -z -v -w 2 web 81', { at: 1000 })).toMatchObject({ stderr: 'nc: web (10.96.100.10:81): Connection timed out\n', code: 1, exitAt: 2000 });
    expect(runIn('client', 'nc -z -w 2 web 81', { at: 1000 })).toMatchObject({ stderr: '', code: 1, exitAt: 2000 });
    expect(runIn('client', 'nc -z nowhere 80', { at: 1000 })).toMatchObject({ stderr: "nc: bad address 'nowhere'\n", code: 1 });
  });

  it('nc -l takes one connection: it prints what the client sent and exits, and the next client is refused (-k too, without -e)', () => {
    for (const [flags, base] of [['-l', 0], ['-lk', 10_000]] as const) {
      const server = startProcess(viewOf('web-2'), ['sh', '-c', `echo pong | nc ${flags} -p 7000; echo "nc: $?"`], t0 + base, { stdin: false, tty: false, seed: 7, commandMs: 0 });
      if (!server.started) throw new Error(server.error);
      const p = server.process;
      // It listens, looking for its connection up to a second past the server clock.
      expect(p.advance(t0 + 3_600_000, 10_000, t0 + base)).toMatchObject({ output: [], reached: t0 + base + 1100 });
      expect(runIn('client', 'echo ping | nc 10.244.2.7 7000', { at: base + 500 })).toMatchObject({ stdout: 'pong\n', stderr: '', code: 0 });
      expect(runIn('client', 'echo again | nc -vv 10.244.2.7 7000; wget -qO- 10.244.2.7:7000', { at: base + 600 })).toMatchObject({ stdout: '', stderr: "nc: 10.244.2.7 (10.244.2.7:7000): Connection refused\nsent 0, rcvd 0\nwget: can't connect to remote host (10.244.2.7): Connection refused\n", code: 1 });
      const end = p.advance(t0 + 3_600_000, 10_000, t0 + base + 1100);
      expect({ output: end.output.map((o) => [o.at - t0 - base, o.text]), exit: end.exit && [end.exit.code, end.exit.at - t0 - base] }).toEqual({ output: [[1100, 'ping\nnc: 0\n']], exit: [0, 1100] });
    }
  });

  it('nc -l waiting for a client in a process with no server clock to wait for is stopped by the step budget, as killed', () => {
    expect(execInContainer(viewOf('web-2'), ['nc', '-l', '-p', '7000'], '', new Date(t0))).toMatchObject({ started: true, exitCode: 137 });
  });

  it('nc -z connects and closes: an nc -l server takes that as its connection', () => {
    const server = startProcess(viewOf('web-2'), ['nc', '-l', '-p', '7000'], t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
    if (!server.started) throw new Error(server.error);
    server.process.advance(t0 + 3_600_000, 10_000, t0);
    expect(runIn('client', 'nc -zv 10.244.2.7 7000; nc -zv 10.244.2.7 7000', { at: 200 })).toMatchObject({ stderr: '10.244.2.7 (10.244.2.7:7000) open\n', code: 1 });
    expect(server.process.advance(t0 + 3_600_000, 10_000, t0 + 1100)).toMatchObject({ output: [], exit: { code: 0, at: t0 + 1100 } });
  });

  it('a process run ahead of the server clock waits for it before it looks at the cluster', () => {
    serveHello('web-1');
    serveHello('web-2');
    const start = startProcess(viewOf('client'), ['sh', '-c', 'while true; do wget -qO- web 2>&1; sleep 5; done'], t0 + 1000, { stdin: false, tty: false, seed: 7, commandMs: 0 });
    if (!start.started) throw new Error(start.error);
    const p = start.process;
    // Asked to run an hour ahead while the server clock is at its start: one fetch, then it waits at the next.
    const first = p.advance(t0 + 3_600_000, 10_000, t0 + 1000);
    expect({ text: first.output.map((o) => o.text).join(''), reached: first.reached - t0 }).toEqual({ text: 'hello from web-1\n', reached: 6000 });
    expect(p.wakeAt()).toBe(t0 + 6000);
    // The Service loses its endpoints before the clock gets there: the later fetches see it.
    net.apply('endpointslices', slice('web', [{ name: 'http', port: 8080 }], []));
    // It may look up to a second past the clock.
    const refused = "wget: can't connect to remote host (10.96.100.10): Connection refused\n";
    const next = p.advance(t0 + 3_600_000, 10_000, t0 + 5500);
    expect({ output: next.output.map((o) => [o.at - t0, o.text]), reached: next.reached - t0 }).toEqual({ output: [[6000, refused]], reached: 11_000 });
    const later = p.advance(t0 + 3_600_000, 10_000, t0 + 11_000);
    expect({ output: later.output.map((o) => [o.at - t0, o.text]), reached: later.reached - t0 }).toEqual({ output: [[11_000, refused]], reached: 16_000 });
  });

  it("an image's own server program listens on its ports while it runs", () => {
    const image: SimulatedImage = { ...unknownImage, entrypoint: ['/hostname-server'], programs: new Map([['/hostname-server', { run: () => ({ output: [{ stream: 2 as const, text: 'Serving on port 9376\n' }], listens: [{ port: 9376, respond: () => 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nweb-1' }] }) }]]) };
    const view = { ...viewOf('web-1'), image };
    view.files.set('/hostname-server', { type: 'file', content: new Uint8Array(), mode: 0o755 });
    const start = startProcess(view, ['/hostname-server'], t0, { stdin: false, tty: false });
    if (!start.started) throw new Error(start.error);
    expect(start.process.advance(t0 + 1000).output.map((o) => o.text)).toEqual(['Serving on port 9376\n']);
    expect(runIn('client', 'wget -qO- 10.244.1.5:9376', { at: 1000 })).toMatchObject({ stdout: 'web-1', code: 0 });
  });

  it('httpd: serves the files its own process sees; a second bind of the port fails; a missing home', () => {
    expect(runIn('web-1', 'mkdir -p /srv; echo one > /srv/a.txt; httpd -p 8080 -h /srv; echo $?; httpd -p 8080 -h /srv; echo $?')).toMatchObject({ stdout: '0\n1\n', stderr: 'httpd: bind: Address already in use\n' });
    expect(runIn('client', 'wget -qO- 10.244.1.5:8080/a.txt; wget -qO- 10.244.1.5:8080/', { at: 1000 })).toMatchObject({ stdout: 'one\n', stderr: 'wget: server returned error: HTTP/1.0 404 Not Found\n' });
    // The client's own files are not the server's.
    expect(runIn('client', 'httpd -f -h /nope')).toMatchObject({ stderr: "httpd: can't change directory to '/nope': No such file or directory\n", code: 1 });
    expect(runIn('web-1', 'httpd -p 8080 -h /', { at: 1000 })).toMatchObject({ stderr: 'httpd: bind: Address already in use\n', code: 1 });
  });
});

describe("a node's address", () => {
  beforeEach(() => {
    // The pods bound to two nodes: web-1 on node-1 behind a NodePort Service, a hostPort pod and a host-network pod on node-1.
    for (const p of [pod('web-1', '10.244.1.5', { node: 'node-1' }), pod('client', '10.244.2.9', { node: 'node-2' }), pod('ported', '10.244.1.30', { node: 'node-1', ports: [{ containerPort: 8080, hostPort: 8081, protocol: 'TCP' }] }), pod('agent', nodeIPs['node-1']!, { node: 'node-1', hostNetwork: true })]) net.apply('pods', p);
    net.apply('services', service('web', { type: 'NodePort', clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http', nodePort: 30080 }] }));
    net.apply('services', service('local', { type: 'NodePort', externalTrafficPolicy: 'Local', clusterIP: '10.96.100.11', clusterIPs: ['10.96.100.11'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http', nodePort: 30081 }] }));
    net.apply('services', service('none', { type: 'LoadBalancer', clusterIP: '10.96.100.12', clusterIPs: ['10.96.100.12'], selector: { app: 'none' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30082 }] }));
    net.apply('endpointslices', slice('web', [{ name: 'http', port: 8080 }], [{ ip: '10.244.1.5', ready: true, nodeName: 'node-1' }]));
    net.apply('endpointslices', slice('local', [{ name: 'http', port: 8080 }], [{ ip: '10.244.1.5', ready: true, nodeName: 'node-1' }]));
    net.apply('endpointslices', slice('none', [{ name: '', port: 80 }], []));
    serveHello('web-1');
    serveHello('ported');
  });

  it("iptables-save and iptables -S in kube-proxy's pod (host network, privileged): kube-proxy's chains by their hashed names, random picks, DNAT, NodePorts and the rejects of ports without endpoints", () => {
    net.apply('endpointslices', slice('kubernetes', [{ name: 'https', port: 6443 }], [{ ip: '172.18.0.1', ready: true }]));
    net.apply('services', service('trio', { clusterIP: '10.96.100.13', clusterIPs: ['10.96.100.13'], selector: { app: 'trio' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] }));
    net.apply('endpointslices', slice('trio', [{ name: '', port: 80 }], [{ ip: '10.244.1.40', ready: true }, { ip: '10.244.2.41', ready: true }, { ip: '10.244.2.42', ready: true }]));
    net.apply('pods', pod('proxy-2', nodeIPs['node-2']!, { node: 'node-2', hostNetwork: true }));
    const privileged = { capabilities: (1n << 41n) - 1n, noNewPrivs: false, seccomp: false };
    // The image has no shell: each command runs as the process itself.
    const run = (name: string, command: string, opts: { hostNetwork?: boolean; security?: typeof privileged } = {}) => {
      const view: ContainerView = { ...testView({ image: catalogImage('registry.k8s.io/kube-proxy:v1.36.0')! }), ...(opts.security ? { security: opts.security } : {}), network: { ...podNetwork(name), ...(opts.hostNetwork ? { hostNetwork: true } : {}) } };
      const start = startProcess(view, command.split(' '), t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
      if (!start.started) throw new Error(start.error);
      const r = start.process.advance(t0 + 60_000, 1_000_000);
      return { stdout: r.output.filter((o) => o.stream === 1).map((o) => o.text).join(''), stderr: r.output.filter((o) => o.stream === 2).map((o) => o.text).join(''), code: r.exit?.code };
    };
    const nat = run('agent', 'iptables-save -t nat', { hostNetwork: true, security: privileged }).stdout;
    expect(nat).toMatch(/^# Generated by iptables-save v1\.8\.9 \(nf_tables\) on \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\n\*nat\n:PREROUTING ACCEPT \[0:0\]\n/);
    expect(nat).toContain('\n-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y\n');
    expect(nat).toContain('\n-A KUBE-SVC-NPX46M4PTMTKRN6Y ! -s 10.244.0.0/16 -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-MARK-MASQ\n');
    // Three endpoints: 1/3, then 1/2 of the rest, then the last.
    const trio = nat.split('\n').filter((l) => l.includes('"default/trio -> '));
    expect(trio.map((l) => l.replace(/KUBE-(SVC|SEP)-[A-Z2-7]{16}/g, 'KUBE-$1-x'))).toEqual([
      '-A KUBE-SVC-x -m comment --comment "default/trio -> 10.244.1.40:80" -m statistic --mode random --probability 0.33333333333 -j KUBE-SEP-x',
      '-A KUBE-SVC-x -m comment --comment "default/trio -> 10.244.2.41:80" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-x',
      '-A KUBE-SVC-x -m comment --comment "default/trio -> 10.244.2.42:80" -j KUBE-SEP-x',
    ]);
    const sep = /-j (KUBE-SEP-[A-Z2-7]{16})$/.exec(trio[0]!)![1]!;
    expect(nat).toContain(`\n-A ${sep} -s 10.244.1.40/32 -m comment --comment "default/trio" -j KUBE-MARK-MASQ\n-A ${sep} -p tcp -m comment --comment "default/trio" -m tcp -j DNAT --to-destination 10.244.1.40:80\n`);
    expect(nat).toMatch(/\n-A KUBE-NODEPORTS -p tcp -m comment --comment "default\/web:http" -m tcp --dport 30080 -j (KUBE-EXT-[A-Z2-7]{16})\n/);
    expect(nat).toMatch(/\n-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n-A KUBE-SVC-/);
    expect(nat).toMatch(/\nCOMMIT\n# Completed on .*\n$/);
    // externalTrafficPolicy Local: node-1 holds the endpoint, node-2 drops.
    expect(nat).toMatch(/\n-A KUBE-SVL-[A-Z2-7]{16} -m comment --comment "default\/local:http -> 10\.244\.1\.5:8080" -j KUBE-SEP-/);
    expect(run('proxy-2', 'iptables -t nat -S', { hostNetwork: true, security: privileged }).stdout).toMatch(/\n-A KUBE-SVL-[A-Z2-7]{16} -m comment --comment "default\/local:http has no local endpoints" -j KUBE-MARK-DROP\n/);
    // No endpoints: rejected in filter, the cluster IP and the NodePort.
    const filter = ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES'].map((c) => run('agent', `iptables -S ${c}`, { hostNetwork: true, security: privileged }).stdout).join('');
    expect(filter).toBe('-N KUBE-SERVICES\n-A KUBE-SERVICES -d 10.96.100.20/32 -p tcp -m comment --comment "default/empty has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable\n-A KUBE-SERVICES -d 10.96.100.12/32 -p tcp -m comment --comment "default/none has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable\n-N KUBE-EXTERNAL-SERVICES\n-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/none has no endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 30082 -j REJECT --reject-with icmp-port-unreachable\n');
    // A pod's own network namespace has no rules; without CAP_NET_ADMIN none can be read.
    expect(run('client', 'iptables-save', { security: privileged })).toMatchObject({ stdout: '', code: 0 });
    expect(run('client', 'iptables -t nat -S', { security: privileged })).toMatchObject({ stdout: '-P PREROUTING ACCEPT\n-P INPUT ACCEPT\n-P OUTPUT ACCEPT\n-P POSTROUTING ACCEPT\n', code: 0 });
    expect(run('client', 'iptables-save')).toMatchObject({ stderr: 'iptables-save v1.8.9 (nf_tables): Could not fetch rule set generation id: Permission denied (you must be root)\n', code: 1 });
    expect(run('agent', 'iptables -t nat -S NOPE', { hostNetwork: true, security: privileged })).toMatchObject({ stderr: 'iptables: No chain/target/match by that name.\n', code: 1 });
  });

  it("a NodePort on any node's address reaches the Service's endpoints; with externalTrafficPolicy Local only a node holding one answers", () => {
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:30080; wget -qO- -T 2 172.18.0.3:30080', { at: 1000 })).toMatchObject({ stdout: 'hello from web-1\nhello from web-1\n', code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:30081', { at: 1000 })).toMatchObject({ stdout: 'hello from web-1\n', code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.3:30081', { at: 1000 })).toMatchObject({ stderr: 'wget: download timed out\n', code: 1, exitAt: 2000 });
    // A LoadBalancer Service has NodePorts too; with no endpoint kube-proxy rejects the connection.
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.3:30082', { at: 1000 })).toMatchObject({ stderr: "wget: can't connect to remote host (172.18.0.3): Connection refused\n", code: 1, exitAt: 0 });
  });

  it("a hostPort reaches its pod's container port on that node only; a host-network pod's sockets and the kubelet's TLS port answer; other ports are refused", () => {
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:8081', { at: 1000 })).toMatchObject({ stdout: 'hello from ported\n', code: 0 });
    expect(runIn('client', 'nc -zv -w 2 172.18.0.3 8081', { at: 1000 })).toMatchObject({ stderr: '', code: 1, exitAt: 0 });
    runIn('agent', 'mkdir -p /www; echo node agent > /www/index.html; httpd -f -p 9100 -h /www');
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:9100', { at: 1000 })).toMatchObject({ stdout: 'node agent\n', code: 0 });
    // A socket bound to loopback only (kube-proxy's metrics on 127.0.0.1:10249) is not there for the node's address.
    runIn('agent', 'mkdir -p /www; echo node agent > /www/index.html; httpd -f -p 127.0.0.1:9101 -h /www');
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:9101', { at: 1000 })).toMatchObject({ stderr: "wget: can't connect to remote host (172.18.0.2): Connection refused\n", code: 1 });
    expect(runIn('agent', 'wget -qO- -T 2 127.0.0.1:9101', { at: 1000 })).toMatchObject({ stdout: 'node agent\n', code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.2:10250; nc -zv -w 2 172.18.0.3 10250', { at: 1000 })).toMatchObject({ stderr: 'wget: server returned error: HTTP/1.0 400 Bad Request\n172.18.0.3 (172.18.0.3:10250) open\n', code: 0 });
    expect(runIn('client', 'nc -zvv -w 2 172.18.0.2 7777', { at: 1000 })).toMatchObject({ stderr: 'nc: 172.18.0.2 (172.18.0.2:7777): Connection refused\nsent 0, rcvd 0\n', code: 1, exitAt: 0 });
    // A node no pod is bound to is known by its Node's InternalIP.
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.4:30080', { at: 1000 })).toMatchObject({ stderr: 'wget: download timed out\n', code: 1 });
    net.apply('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-3' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.4' }, { type: 'Hostname', address: 'node-3' }] } });
    expect(runIn('client', 'wget -qO- -T 2 172.18.0.4:30080', { at: 1000 })).toMatchObject({ stdout: 'hello from web-1\n', code: 0 });
  });
});

describe('HTTPS to the API server', () => {
  const ca = '-----BEGIN CERTIFICATE-----\nMIIBcluster\n-----END CERTIFICATE-----\n';
  const token = 'eyJpod-token';
  /** The API server as a pod reaches it: a token's request is the service account's, RBAC saying no to deletes. */
  const asked: { method: string; path: string; auth: string | null; body: string }[] = [];
  beforeEach(() => {
    asked.length = 0;
    net.apply('endpointslices', slice('kubernetes', [{ name: 'https', port: 6443 }], [{ ip: '172.18.0.1', ready: true }]));
    net.apiServer = async (request) => {
      const url = new URL(request.url);
      asked.push({ method: request.method, path: url.pathname, auth: request.headers.get('authorization'), body: await request.text() });
      const user = request.headers.get('authorization') === `Bearer ${token}` ? 'system:serviceaccount:default:default' : 'system:anonymous';
      if (url.pathname === '/version') return new Response('{"major":"1"}\n', { headers: { 'content-type': 'application/json' } });
      const status = request.method === 'DELETE' || user === 'system:anonymous' ? 403 : 200;
      const body = status === 403 ? `{"kind":"Status","message":"${user} cannot"}\n` : '{"kind":"PodList","items":[]}\n';
      return new Response(body, { status, headers: { 'content-type': 'application/json' } });
    };
  });
  const files = { '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt': ca, '/var/run/secrets/kubernetes.io/serviceaccount/token': token, '/tmp/other.crt': '-----BEGIN CERTIFICATE-----\nMIIBother\n-----END CERTIFICATE-----\n' };
  const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

  /** runIn for a process that waits on the API server: it is stepped again once each answer has come. */
  async function runAwaiting(script: string, opts: { replayedUntil?: number } = {}) {
    const start = startProcess(viewOf('client', files), ['sh', '-c', script], t0, { stdin: false, tty: false, seed: 7, commandMs: 0, ...opts });
    if (!start.started) throw new Error(start.error);
    const output: { stream: 1 | 2; text: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const r = start.process.advance(t0 + 3_600_000, 1_000_000);
      output.push(...r.output);
      if (r.exit) return { stdout: output.filter((o) => o.stream === 1).map((o) => o.text).join(''), stderr: output.filter((o) => o.stream === 2).map((o) => o.text).join(''), code: r.exit.code };
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    throw new Error('the process did not end');
  }

  it('curl trusts the server with the service account CA or -k, and sends its method, headers and body as that client: RBAC answers', async () => {
    expect(await runAwaiting(`curl -sS --cacert ${SA}/ca.crt -H "Authorization: Bearer $(cat ${SA}/token)" https://kubernetes.default.svc/api/v1/namespaces/default/pods`)).toEqual({ stdout: '{"kind":"PodList","items":[]}\n', stderr: '', code: 0 });
    expect(asked).toEqual([{ method: 'GET', path: '/api/v1/namespaces/default/pods', auth: `Bearer ${token}`, body: '' }]);
    // No token: the request is anonymous; -i shows the HTTP/2 answer as curl prints it.
    expect((await runAwaiting('curl -si -k https://10.96.0.1/api/v1/namespaces/default/pods')).stdout).toBe('HTTP/2 403 \r\ncontent-type: application/json\r\ncontent-length: 54\r\n\r\n{"kind":"Status","message":"system:anonymous cannot"}\n');
    expect(await runAwaiting(`curl -sS -f -k -X DELETE -H "Authorization: Bearer ${token}" https://kubernetes/api/v1/namespaces/default/pods/web-1`)).toMatchObject({ stderr: 'curl: (22) The requested URL returned error: 403\n', code: 22 });
    await runAwaiting(`curl -s -k -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" -d '{"a":1}' https://kubernetes.default.svc/api/v1/namespaces/default/configmaps`);
    expect(asked.at(-1)).toEqual({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', auth: `Bearer ${token}`, body: '{"a":1}' });
  });

  it('a process replayed after the host restarted sends the writes it made before the restart as dry runs, its reads as they are; after the restart, writes go through', async () => {
    const post = `curl -s -k -o /dev/null -X POST -H "Authorization: Bearer ${token}" -d '{"a":1}' https://kubernetes.default.svc/api/v1/namespaces/default/configmaps`;
    const get = `curl -s -k -o /dev/null -H "Authorization: Bearer ${token}" https://kubernetes.default.svc/api/v1/namespaces/default/pods`;
    const urls: string[] = [];
    const answer = net.apiServer!;
    net.apiServer = (request) => {
      urls.push(`${request.method} ${new URL(request.url).search}`);
      return answer(request);
    };
    await runAwaiting(`${post}; ${get}; sleep 10; ${post}`, { replayedUntil: t0 + 5000 });
    expect(urls).toEqual(['POST ?dryRun=All', 'GET ', 'POST ']);
    // The dry run carries the write's headers and body.
    expect(asked[0]).toEqual({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', auth: `Bearer ${token}`, body: '{"a":1}' });
  });

  it("a node's kubelet port speaks TLS with a self-signed certificate: curl -k reaches that node's kubelet server; a stopped kubelet refuses", async () => {
    const reached: string[] = [];
    net.kubelet = async (node, request) => {
      reached.push(`${node} ${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization')}`);
      return new Response('Unauthorized', { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    };
    const node2 = (annotations: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2', annotations }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.3' }] } });
    net.apply('nodes', node2());
    expect(await runAwaiting(`curl -sS --cacert ${SA}/ca.crt https://172.18.0.3:10250/pods`)).toMatchObject({ stderr: expect.stringMatching(/^curl: \(60\) SSL certificate problem: self-signed certificate in certificate chain\n/), code: 60 });
    expect(await runAwaiting(`curl -sk -H "Authorization: Bearer ${token}" https://172.18.0.3:10250/pods`)).toEqual({ stdout: 'Unauthorized', stderr: '', code: 0 });
    expect(await runAwaiting('wget -q --no-check-certificate -O- https://172.18.0.3:10250/stats/summary')).toEqual({ stdout: '', stderr: 'wget: server returned error: HTTP/1.1 401 Unauthorized\n', code: 1 });
    expect(reached).toEqual([`node-2 GET /pods Bearer ${token}`, 'node-2 GET /stats/summary null']);
    net.apply('nodes', node2({ 'kubesim.io/kubelet': 'stopped' }));
    expect(await runAwaiting('curl -sSk https://172.18.0.3:10250/pods')).toMatchObject({ stderr: "curl: (7) Failed to connect to 172.18.0.3 port 10250 after 0 ms: Couldn't connect to server\n", code: 7 });
    net.apply('nodes', node2(), true);
  });

  it("curl refuses a server its CA bundle does not vouch for, a CA file that is not there, and TLS to a plain HTTP server; busybox wget checks no certificate and says so", async () => {
    const unverified = 'curl: (60) SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\nestablish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the webpage mentioned above.\n';
    expect(await runAwaiting('curl -sS https://kubernetes.default.svc/version')).toEqual({ stdout: '', stderr: unverified, code: 60 });
    expect(await runAwaiting('curl -sS --cacert /tmp/other.crt https://kubernetes.default.svc/version')).toMatchObject({ stderr: unverified, code: 60 });
    expect(await runAwaiting('curl -sS --cacert /nope.crt https://kubernetes.default.svc/version')).toMatchObject({ stderr: 'curl: (77) error setting certificate file: /nope.crt\n', code: 77 });
    expect(asked).toEqual([]);
    serveHello('web-1');
    expect(await runAwaiting('curl -sS -k https://10.244.1.5:8080/')).toMatchObject({ stderr: 'curl: (35) OpenSSL/3.3.2: error:0A00010B:SSL routines::wrong version number\n', code: 35 });
    expect(await runAwaiting(`wget -qO- --header "Authorization: Bearer ${token}" https://kubernetes.default.svc/api/v1/namespaces/default/pods`)).toEqual({ stdout: '{"kind":"PodList","items":[]}\n', stderr: 'wget: note: TLS certificate validation not implemented\n', code: 0 });
    expect(await runAwaiting('wget -q --no-check-certificate -O- https://kubernetes.default.svc/api/v1/namespaces/default/pods')).toEqual({ stdout: '', stderr: 'wget: server returned error: HTTP/1.1 403 Forbidden\n', code: 1 });
  });
});

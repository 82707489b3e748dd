/**
 * NetworkPolicy enforcement in the simulated pod network, seen as a learner
 * sees it: through wget, nc, nslookup and ping in a pod (a dropped
 * connection waits out the client's timeout), and the rules' semantics one
 * by one (selectors, namespaces, ipBlocks, named ports and ranges, both
 * directions, DNS).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { t0, testView } from './container.test-data';
import { ClusterNetwork, type PodNetwork } from './clusterNetwork';
import { startProcess } from './containerProcess';
import { catalogImage } from './imageCatalog';
import { judgeConnection, policyAllows, type Protocol } from './networkPolicy';

const startedAt = '2026-11-28T17:18:10Z';
const resolvConf = 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n';
const nodeIPs = { 'node-1': '172.18.0.2', 'node-2': '172.18.0.3' } as const;

function pod(name: string, ip: string, opts: { ns?: string; labels?: Record<string, string>; node?: keyof typeof nodeIPs; hostNetwork?: boolean; ports?: { name: string; containerPort: number }[] } = {}): KubeObject {
  const node = opts.node ?? 'node-1';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: opts.ns ?? 'default', uid: `uid-${name}`, labels: opts.labels ?? {} },
    spec: { nodeName: node, containers: [{ name: 'app', image: 'busybox', ...(opts.ports ? { ports: opts.ports.map((p) => ({ ...p, protocol: 'TCP' })) } : {}) }], ...(opts.hostNetwork ? { hostNetwork: true } : {}) },
    status: { phase: 'Running', hostIP: nodeIPs[node], podIP: ip, podIPs: [{ ip }], containerStatuses: [{ name: 'app', ready: true, state: { running: { startedAt } } }] },
  };
}

const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });

function policy(name: string, spec: Record<string, unknown>, ns = 'default'): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec: { podSelector: {}, ...spec } };
}

let net: ClusterNetwork;

beforeEach(() => {
  net = new ClusterNetwork();
  for (const ns of [namespace('default'), namespace('prod', { team: 'prod' }), namespace('kube-system')]) net.apply('namespaces', ns);
  const pods = [
    pod('web', '10.244.1.5', { labels: { app: 'web' }, ports: [{ name: 'http', containerPort: 8080 }] }),
    pod('frontend', '10.244.2.7', { labels: { role: 'frontend' }, node: 'node-2' }),
    pod('client', '10.244.1.9', { labels: { role: 'client' } }),
    pod('prod-client', '10.244.2.20', { ns: 'prod', labels: { role: 'frontend' }, node: 'node-2' }),
    pod('node-agent', nodeIPs['node-1'], { hostNetwork: true }),
    pod('remote-agent', nodeIPs['node-2'], { hostNetwork: true, node: 'node-2' }),
  ];
  for (const p of pods) net.apply('pods', p);
  net.apply('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'svc-web' }, spec: { clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }] } });
  net.apply('endpointslices', {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-abcde', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
  });
  // web serves on 8080 and 9000.
  runIn('web', 'mkdir -p /www; echo hello > /www/index.html; httpd -p 8080 -h /www; httpd -f -p 9000 -h /www');
});

function podNetwork(name: string): PodNetwork {
  const p = [...['default', 'prod']].map((ns) => net.pod(ns, name)).find(Boolean)!;
  const hostNetwork = (p['spec'] as { hostNetwork?: boolean }).hostNetwork === true;
  return { cluster: net, namespace: p.metadata.namespace!, podName: name, podUID: p.metadata.uid!, container: 'app', startedAt, podIP: (p['status'] as { podIP: string }).podIP, ...(hostNetwork ? { hostNetwork } : {}) };
}

/** Runs `sh -c script` in a pod's container from t0 for up to an hour. */
function runIn(name: string, script: string, image?: string) {
  const view = { ...testView({ files: { '/etc/resolv.conf': resolvConf, '/etc/hosts': '127.0.0.1\tlocalhost\n' }, ...(image ? { image: catalogImage(image)! } : {}) }), network: podNetwork(name) };
  const start = startProcess(view, ['sh', '-c', script], t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
  if (!start.started) throw new Error(start.error);
  const r = start.process.advance(t0 + 3_600_000, 1_000_000);
  const text = (s: 1 | 2) => r.output.filter((o) => o.stream === s).map((o) => o.text).join('');
  return { stdout: text(1), stderr: text(2), code: r.exit?.code, exitAt: r.exit ? r.exit.at - t0 : undefined };
}

/** Whether a TCP (or other) connection from one pod to another pod's port passes. */
function allows(from: string, to: string, port: number, protocol: Protocol = 'TCP'): boolean {
  const src = podNetwork(from);
  const dst = podNetwork(to);
  const pod = (n: PodNetwork) => (n.hostNetwork ? {} : { pod: net.podByUID(n.podUID)! });
  return policyAllows(net, { ip: src.podIP!, ...pod(src) }, { ip: dst.podIP!, port, protocol, ...pod(dst) });
}

const timedOut = { stdout: '', stderr: 'wget: download timed out\n', code: 1, exitAt: 2000 };

describe('ingress', () => {
  it('with no policy every pod reaches every pod; a default-deny policy drops new connections to the pods it selects, the client waits out its timeout', () => {
    expect(runIn('client', 'wget -qO- -T 2 web')).toMatchObject({ stdout: 'hello\n', code: 0 });
    net.apply('networkpolicies', policy('default-deny-ingress', { policyTypes: ['Ingress'] }));
    expect(runIn('client', 'wget -qO- -T 2 web')).toEqual(timedOut);
    expect(runIn('client', 'wget -qO- -T 2 10.244.1.5:8080')).toEqual(timedOut);
    // Without a timeout of its own, the kernel's SYN retries end it.
    expect(runIn('client', 'wget -qO- 10.244.1.5:8080')).toMatchObject({ stderr: "wget: can't connect to remote host (10.244.1.5): Connection timed out\n", exitAt: 127_000 });
    expect(runIn('client', 'nc -zv -w 3 10.244.1.5 8080')).toMatchObject({ stderr: 'nc: 10.244.1.5 (10.244.1.5:8080): Connection timed out\n', code: 1, exitAt: 3000 });
    // Not a refusal: a port nothing listens on is dropped as well, before any RST.
    expect(runIn('client', 'nc -zv -w 3 10.244.1.5 7777')).toMatchObject({ code: 1, exitAt: 3000 });
    // The pod itself, and its own node, are not held back.
    expect(runIn('web', 'wget -qO- -T 2 10.244.1.5:8080')).toMatchObject({ stdout: 'hello\n', code: 0 });
    expect(allows('node-agent', 'web', 8080)).toBe(true);
    expect(allows('remote-agent', 'web', 8080)).toBe(false);
    // Deleting the policy lifts it.
    net.apply('networkpolicies', policy('default-deny-ingress', {}), true);
    expect(runIn('client', 'wget -qO- -T 2 web')).toMatchObject({ stdout: 'hello\n', code: 0 });
  });

  it('a rule allows the pods its podSelector picks in the policy\'s namespace, on the ports it lists (a named port is the destination pod\'s)', () => {
    net.apply('networkpolicies', policy('web-from-frontend', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }] }));
    expect(runIn('frontend', 'wget -qO- -T 2 web')).toMatchObject({ stdout: 'hello\n', code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 web')).toEqual(timedOut);
    // Another port of the same pod is not allowed.
    expect(runIn('frontend', 'wget -qO- -T 2 10.244.1.5:9000')).toEqual(timedOut);
    // A pod labelled the same in another namespace is not in the policy's namespace.
    expect(allows('prod-client', 'web', 8080)).toBe(false);
    // Pods the policy does not select are not isolated.
    expect(allows('web', 'client', 8080)).toBe(true);
  });

  it('namespaceSelector alone allows every pod of the namespaces it picks; with a podSelector in the same peer both must match; two peers are either', () => {
    const from = (peers: unknown[]) => net.apply('networkpolicies', policy('p', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: peers }] }));
    from([{ namespaceSelector: { matchLabels: { team: 'prod' } } }]);
    expect([allows('prod-client', 'web', 8080), allows('frontend', 'web', 8080)]).toEqual([true, false]);
    from([{ namespaceSelector: {} }]);
    expect([allows('prod-client', 'web', 8080), allows('frontend', 'web', 8080), allows('client', 'web', 8080)]).toEqual([true, true, true]);
    from([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } }, podSelector: { matchLabels: { role: 'client' } } }]);
    expect(allows('prod-client', 'web', 8080)).toBe(false);
    from([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } }, podSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['frontend'] }] } }]);
    expect([allows('prod-client', 'web', 8080), allows('frontend', 'web', 8080)]).toEqual([true, false]);
    from([{ namespaceSelector: { matchLabels: { team: 'prod' } } }, { podSelector: { matchLabels: { role: 'client' } } }]);
    expect([allows('prod-client', 'web', 8080), allows('client', 'web', 8080), allows('frontend', 'web', 8080)]).toEqual([true, true, false]);
  });

  it('ipBlock matches the source address, less its exceptions; host-network pods (the nodes) are matched only by ipBlocks', () => {
    net.apply('networkpolicies', policy('p', { ingress: [{ from: [{ ipBlock: { cidr: '10.244.0.0/16', except: ['10.244.2.0/24'] } }] }] }));
    expect([allows('client', 'web', 8080), allows('frontend', 'web', 8080)]).toEqual([true, false]);
    expect(allows('remote-agent', 'web', 8080)).toBe(false);
    net.apply('networkpolicies', policy('p', { ingress: [{ from: [{ ipBlock: { cidr: '172.18.0.0/16' } }] }] }));
    expect(allows('remote-agent', 'web', 8080)).toBe(true);
    net.apply('networkpolicies', policy('p', { ingress: [{ from: [{ namespaceSelector: {} }] }] }));
    expect(allows('remote-agent', 'web', 8080)).toBe(false);
  });

  it('ports: a number with endPort is a range, a port without a number is every port of its protocol, an empty rule allows everything', () => {
    const ports = (p: unknown[]) => net.apply('networkpolicies', policy('p', { ingress: [{ ports: p }] }));
    ports([{ port: 8000, endPort: 8999, protocol: 'TCP' }]);
    expect([allows('client', 'web', 8080), allows('client', 'web', 9000)]).toEqual([true, false]);
    ports([{ protocol: 'UDP' }]);
    expect([allows('client', 'web', 8080), allows('client', 'web', 53, 'UDP')]).toEqual([false, true]);
    // A named port the destination pod does not declare matches nothing.
    ports([{ port: 'metrics', protocol: 'TCP' }]);
    expect(allows('client', 'web', 8080)).toBe(false);
    net.apply('networkpolicies', policy('p', { ingress: [{}] }));
    expect(allows('client', 'web', 9000)).toBe(true);
    // Several policies selecting a pod add up.
    net.apply('networkpolicies', policy('p', { ingress: [] }));
    net.apply('networkpolicies', policy('q', { ingress: [{ ports: [{ port: 9000, protocol: 'TCP' }] }] }));
    expect([allows('client', 'web', 8080), allows('client', 'web', 9000)]).toEqual([false, true]);
  });
});

describe('egress', () => {
  it('default-deny egress drops DNS too: a name waits out the resolver and is a bad address, nslookup finds no server; an address literal waits out the connect', () => {
    net.apply('networkpolicies', policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] }));
    expect(runIn('client', 'wget -qO- -T 2 web')).toEqual({ stdout: '', stderr: "wget: bad address 'web'\n", code: 1, exitAt: 10_000 });
    expect(runIn('client', 'nslookup web')).toEqual({ stdout: ';; connection timed out; no servers could be reached\n\n', stderr: '', code: 1, exitAt: 5000 });
    expect(runIn('client', 'wget -qO- -T 2 10.244.1.5:8080')).toEqual(timedOut);
    // Other pods are not held back, and the isolated pod can still be reached.
    expect(runIn('frontend', 'wget -qO- -T 2 web')).toMatchObject({ stdout: 'hello\n', code: 0 });
    expect(allows('frontend', 'client', 80)).toBe(true);
  });

  it('an egress rule to CoreDNS (kube-system, k8s-app=kube-dns, port 53 or its named port) lets names resolve; connections need a rule of their own', () => {
    const dns = { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] };
    net.apply('networkpolicies', policy('egress', { policyTypes: ['Egress'], egress: [dns] }));
    expect(runIn('client', 'nslookup web.default.svc.cluster.local')).toMatchObject({ stdout: expect.stringContaining('Address: 10.96.100.10'), code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 web')).toEqual(timedOut);
    // Egress rules see the endpoint behind the Service: its pod and target port.
    net.apply('networkpolicies', policy('egress', { policyTypes: ['Egress'], egress: [dns, { to: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 8080, protocol: 'TCP' }] }] }));
    expect(runIn('client', 'wget -qO- -T 2 web')).toMatchObject({ stdout: 'hello\n', code: 0 });
    expect(runIn('client', 'wget -qO- -T 2 10.244.1.5:9000')).toEqual(timedOut);
    // The named port of the CoreDNS pods does as well; a rule with only TCP 53 does not carry the UDP queries.
    net.apply('networkpolicies', policy('egress', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 'dns', protocol: 'UDP' }] }] }));
    expect(runIn('client', 'nslookup web.default.svc.cluster.local')).toMatchObject({ code: 0 });
    net.apply('networkpolicies', policy('egress', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }] }));
    expect(runIn('client', 'nslookup web.default.svc.cluster.local')).toMatchObject({ code: 1, exitAt: 5000 });
  });

  it("a package manager cannot resolve its mirror when egress drops DNS: apt-get update's Temporary failure resolving, apk's temporary error", () => {
    net.apply('networkpolicies', policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] }));
    const update = runIn('client', 'apt-get update', 'debian:bookworm');
    expect(update.stdout).toContain("Err:1 http://deb.debian.org/debian bookworm InRelease\n  Temporary failure resolving 'deb.debian.org'\n");
    expect(update.stderr).toContain('W: Some index files failed to download. They have been ignored, or old ones used instead.\n');
    expect(runIn('client', 'apk add curl', 'alpine:3.21')).toMatchObject({ stderr: expect.stringMatching(/^WARNING: fetching https:\/\/dl-cdn\.alpinelinux\.org\/alpine\/v3\.21\/main: temporary error \(try again later\)\n[\s\S]*ERROR: unable to select packages:\n  curl \(no such package\):\n/), code: 1 });
    expect(runIn('frontend', 'apk add curl', 'alpine:3.21')).toMatchObject({ code: 0 });
  });

  it('a policy stored without policyTypes isolates for egress when it has egress rules; both ends must allow a connection', () => {
    net.apply('networkpolicies', policy('legacy', { podSelector: { matchLabels: { role: 'client' } }, egress: [{ to: [{ ipBlock: { cidr: '10.244.1.0/24' } }] }] }));
    expect([allows('client', 'web', 8080), allows('client', 'frontend', 8080)]).toEqual([true, false]);
    // The same policy isolates client for ingress too (no ingress rules: nothing comes in).
    expect(allows('web', 'client', 8080)).toBe(false);
    net.apply('networkpolicies', policy('web-closed', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] }));
    expect(allows('client', 'web', 8080)).toBe(false);
  });
});

describe('ping', () => {
  it('echoes are dropped by an isolating policy unless a rule allows every protocol (a rule with ports never carries ICMP)', () => {
    expect(runIn('client', 'ping -c 1 -W 1 10.244.1.5')).toMatchObject({ code: 0 });
    net.apply('networkpolicies', policy('p', { ingress: [{ ports: [{ port: 8080, protocol: 'TCP' }] }] }));
    expect(runIn('client', 'ping -c 1 -W 1 10.244.1.5')).toMatchObject({ stdout: expect.stringContaining('1 packets transmitted, 0 packets received, 100% packet loss'), code: 1 });
    net.apply('networkpolicies', policy('p', { ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }] }));
    expect(runIn('client', 'ping -c 1 -W 1 10.244.1.5')).toMatchObject({ code: 0 });
  });
});

describe('the verdict, explained', () => {
  it('names each end\'s reason, the isolating policies, and for each rule whether its peers and its ports match', () => {
    const at = (from: string, to: string, port: number) => {
      const src = net.podByUID(`uid-${from}`)!;
      const dst = net.podByUID(`uid-${to}`)!;
      return judgeConnection(net, { ip: (src['status'] as { podIP: string }).podIP, pod: src }, { ip: (dst['status'] as { podIP: string }).podIP, pod: dst, port, protocol: 'TCP' });
    };
    expect(at('client', 'web', 8080)).toEqual({ allowed: true, egress: { direction: 'Egress', allowed: true, reason: 'not-isolated', policies: [] }, ingress: { direction: 'Ingress', allowed: true, reason: 'not-isolated', policies: [] } });
    net.apply('networkpolicies', policy('deny', {}));
    net.apply('networkpolicies', policy('web', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }, { ports: [{ port: 9000, protocol: 'TCP' }] }] }));
    expect(at('client', 'web', 8080)).toEqual({
      allowed: false,
      egress: { direction: 'Egress', allowed: true, reason: 'not-isolated', policies: [] },
      ingress: {
        direction: 'Ingress',
        allowed: false,
        reason: 'no-rule',
        policies: [
          { namespace: 'default', name: 'deny', rules: [] },
          { namespace: 'default', name: 'web', rules: [{ index: 0, peerMatches: false, portMatches: true }, { index: 1, peerMatches: true, portMatches: false }] },
        ],
      },
    });
    expect(at('client', 'web', 9000)).toMatchObject({ allowed: true, ingress: { reason: 'rule' } });
    expect(at('web', 'web', 9000).ingress.reason).toBe('same-pod');
  });
});

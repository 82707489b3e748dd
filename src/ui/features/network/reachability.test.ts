import { describe, expect, it } from 'vitest';
import type { KubeObject as CoreObject } from '../../../core/api/types';
import { ClusterNetwork } from '../../../core/simulation/clusterNetwork';
import { policyAllows } from '../../../core/simulation/networkPolicy';
import type { KubeObject } from '../../api';
import { clusterDns, clusterDnsEndpoint, clusterDnsStatus, defaultPort, describePeer, explain, isFinished, judge, podEndpoint, podEndpoints, policySummary, policyWorld, reachabilityMatrix, type Column, type Endpoint } from './reachability';

function pod(name: string, opts: { ns?: string; labels?: Record<string, string>; ip?: string; hostIP?: string; hostNetwork?: boolean; ports?: { name?: string; containerPort: number; protocol?: string }[] } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: opts.ns ?? 'default', uid: `uid-${name}`, labels: opts.labels ?? {} },
    spec: { containers: [{ name: 'app', image: 'busybox', ...(opts.ports ? { ports: opts.ports } : {}) }], ...(opts.hostNetwork ? { hostNetwork: true } : {}) },
    status: opts.ip ? { phase: 'Running', podIP: opts.ip, hostIP: opts.hostIP ?? '172.18.0.2' } : { phase: 'Pending' },
  };
}
const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });
const policy = (name: string, spec: Record<string, unknown>, ns = 'default'): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec: { podSelector: {}, ...spec } });

const namespaces = [namespace('default'), namespace('prod', { team: 'prod' }), namespace('kube-system')];
// No nodes: the pods have no addresses, and label rules still decide.
const web = podEndpoint(pod('web', { labels: { app: 'web' }, ports: [{ name: 'metrics', containerPort: 9090, protocol: 'UDP' }, { name: 'http', containerPort: 8080, protocol: 'TCP' }] }));
const frontend = podEndpoint(pod('frontend', { labels: { role: 'frontend' } }));
const client = podEndpoint(pod('client', { labels: { role: 'client' } }));
const denyIngress = policy('default-deny-ingress', { policyTypes: ['Ingress'] });
const webFromFrontend = policy('web-from-frontend', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }] });
const denyEgress = policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'] });
const dnsRule = { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }] };

const columns = (...targets: Endpoint[]): Column[] => targets.map((target) => ({ target, port: defaultPort(target) }));
const allowed = (policies: KubeObject[], sources: Endpoint[], targets: Endpoint[]) => reachabilityMatrix(policyWorld(policies, namespaces), sources, columns(...targets)).map((row) => row.map((v) => v.allowed));

describe('the world and the pods, from listed objects', () => {
  it('a world has each namespace\'s policies and the namespaces\' labels (none for one not listed)', () => {
    const world = policyWorld([denyIngress, policy('p', {}, 'prod')], namespaces);
    expect(world.networkPolicies('default').map((p) => p.metadata.name)).toEqual(['default-deny-ingress']);
    expect(world.networkPolicies('prod').map((p) => p.metadata.name)).toEqual(['p']);
    expect(world.networkPolicies('other')).toEqual([]);
    expect(world.namespaceLabels('prod')).toEqual({ 'kubernetes.io/metadata.name': 'prod', team: 'prod' });
    expect(world.namespaceLabels('gone')).toBeUndefined();
  });

  it('a pod is its pod IP and itself; a host-network pod is its node\'s address and no pod; a column starts on the first TCP port, else 80', () => {
    const running = podEndpoint(pod('api', { ip: '10.244.1.5', ports: [{ containerPort: 5432 }] }));
    expect(running.peer.ip).toBe('10.244.1.5');
    expect(running.peer.pod?.metadata.name).toBe('api');
    expect(defaultPort(running)).toEqual({ port: 5432, protocol: 'TCP' });
    const agent = podEndpoint(pod('agent', { hostNetwork: true, ip: '172.18.0.3', hostIP: '172.18.0.3' }));
    expect(agent.peer).toEqual({ ip: '172.18.0.3' });
    expect(agent.hostNetwork).toBe(true);
    expect(web.ports.map((p) => `${p.name} ${p.port}/${p.protocol}`)).toEqual(['metrics 9090/UDP', 'http 8080/TCP']);
    expect(defaultPort(web)).toEqual({ port: 8080, protocol: 'TCP' });
    expect(defaultPort(client)).toEqual({ port: 80, protocol: 'TCP' });
    expect(defaultPort(clusterDns)).toEqual({ port: 53, protocol: 'UDP' });
  });

  it('the matrix\'s pods are the namespace\'s, by label, without those that finished; a pod being deleted stays until it is gone', () => {
    const phase = (p: KubeObject, value: string, extra: Record<string, unknown> = {}): KubeObject => ({ ...p, metadata: { ...p.metadata, ...extra }, status: { ...(p['status'] as object), phase: value } });
    const pods = [
      phase(pod('web', { ip: '10.244.1.5' }), 'Running'),
      phase(pod('batch', { ip: '10.244.1.6' }), 'Succeeded'),
      phase(pod('crashed', { ip: '10.244.1.7' }), 'Failed'),
      phase(pod('leaving', { ip: '10.244.1.8' }), 'Running', { deletionTimestamp: '2025-01-01T00:00:00Z' }),
      pod('waiting'),
      phase(pod('web', { ns: 'prod', ip: '10.244.2.5' }), 'Running'),
      phase(pod('report', { ns: 'prod', ip: '10.244.2.6' }), 'Succeeded'),
    ];
    expect(pods.map(isFinished)).toEqual([false, true, true, false, false, false, true]);
    expect(podEndpoints(pods, 'default').map((e) => e.label)).toEqual(['leaving', 'waiting', 'web']);
    expect(podEndpoints(pods, 'prod').map((e) => e.key)).toEqual(['prod/web']);
    expect(podEndpoints(pods, null).map((e) => e.label)).toEqual(['default/leaving', 'default/waiting', 'default/web', 'prod/web']);
  });
});

describe('the matrix', () => {
  it('with no policy every pod reaches every pod; default-deny drops all into the pods it selects; an allow rule lets its peers back on its port', () => {
    const pods = [web, frontend, client];
    expect(allowed([], pods, pods)).toEqual([
      [true, true, true],
      [true, true, true],
      [true, true, true],
    ]);
    // Every pod is isolated, but a pod reaching itself never leaves it.
    expect(allowed([denyIngress], pods, pods)).toEqual([
      [true, false, false],
      [false, true, false],
      [false, false, true],
    ]);
    expect(allowed([denyIngress, webFromFrontend], [frontend, client], [web])).toEqual([[true], [false]]);
    // The named port is the destination's: another port of web is not allowed.
    const world = policyWorld([denyIngress, webFromFrontend], namespaces);
    expect(judge(world, frontend, web, { port: 9000, protocol: 'TCP', custom: true }).allowed).toBe(false);
  });

  it('a typed port is judged on its protocol: a UDP rule lets in a typed UDP port, not the same number over TCP or SCTP', () => {
    const statsd = policy('statsd-from-frontend', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ port: 8125, protocol: 'UDP' }] }] });
    const world = policyWorld([denyIngress, statsd], namespaces);
    expect(judge(world, frontend, web, { port: 8125, protocol: 'UDP', custom: true }).allowed).toBe(true);
    expect(judge(world, frontend, web, { port: 8125, protocol: 'TCP', custom: true }).allowed).toBe(false);
    expect(judge(world, frontend, web, { port: 8125, protocol: 'SCTP', custom: true }).allowed).toBe(false);
    expect(judge(world, client, web, { port: 8125, protocol: 'UDP', custom: true }).allowed).toBe(false);
    const port = { port: 8125, protocol: 'UDP' as const, custom: true };
    expect(explain(world, judge(world, frontend, web, port), frontend, web, port).ingress.rules[1]!.text).toBe(
      'statsd-from-frontend rule 1: from matches frontend? yes (podSelector role=frontend in default); ports: 8125/UDP matches 8125/UDP? yes',
    );
  });

  it('default-deny egress drops the DNS column of the pods it selects, until a rule allows UDP 53 to kube-dns', () => {
    expect(allowed([denyEgress], [client, frontend], [web, clusterDns])).toEqual([
      [false, false],
      [true, true],
    ]);
    expect(allowed([policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [dnsRule] })], [client], [web, clusterDns])).toEqual([[false, true]]);
  });

  it('the DNS column is a ready coredns pod of kube-system when one is listed (kube-proxy rewrote the address before policies look): an ipBlock of the Service address lets nothing through', () => {
    const ready = (p: KubeObject): KubeObject => ({ ...p, status: { ...(p['status'] as object), conditions: [{ type: 'Ready', status: 'True' }] } });
    const dnsPod = (name: string, ip: string) => pod(name, { ns: 'kube-system', labels: { 'k8s-app': 'kube-dns', 'pod-template-hash': '7847555f88' }, ip, ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] });
    expect(clusterDnsEndpoint([pod('web', { ip: '10.244.1.5' })])).toBe(clusterDns);
    // Not ready: no server to stand for the DNS yet.
    expect(clusterDnsEndpoint([dnsPod('coredns-b', '10.244.2.2')])).toBe(clusterDns);
    const dns = clusterDnsEndpoint([ready(dnsPod('coredns-b', '10.244.2.2')), ready(dnsPod('coredns-a', '10.244.1.2'))]);
    expect({ key: dns.key, label: dns.label, ip: dns.peer.ip, pod: dns.peer.pod?.metadata.name, ports: dns.ports }).toEqual({ key: 'cluster-dns', label: 'cluster DNS (kube-dns)', ip: '10.244.1.2', pod: 'coredns-a', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] });
    expect(defaultPort(dns)).toEqual({ port: 53, protocol: 'UDP' });
    const toServiceIP = policy('dns-by-address', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.96.0.10/32' } }], ports: [{ port: 53, protocol: 'UDP' }] }] });
    expect(allowed([toServiceIP], [client], [clusterDns, dns])).toEqual([[true, false]]);
    expect(allowed([policy('dns', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [dnsRule] })], [client], [dns])).toEqual([[true]]);
  });

  it("who answers the DNS: the Service at 10.96.0.10 and its selector's pods, the ready ones by name; none where no Service holds the address", () => {
    const svc = (clusterIP: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP, selector: { 'k8s-app': 'kube-dns' } } });
    const dnsPod = (name: string, ready: boolean, ns = 'kube-system'): KubeObject => ({ ...pod(name, { ns, labels: { 'k8s-app': 'kube-dns' }, ip: '10.244.1.2' }), status: { phase: 'Running', podIP: '10.244.1.2', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
    expect(clusterDnsStatus([svc('10.96.0.99')], [dnsPod('coredns-a', true)])).toBeUndefined();
    expect(clusterDnsStatus([svc('10.96.0.10')], [dnsPod('coredns-b', true), dnsPod('coredns-a', true), dnsPod('coredns-c', false), dnsPod('elsewhere', true, 'default')])).toEqual({ service: 'kube-system/kube-dns', pods: 3, ready: ['coredns-a', 'coredns-b'] });
    expect(clusterDnsStatus([svc('10.96.0.10')], [])).toEqual({ service: 'kube-system/kube-dns', pods: 0, ready: [] });
  });

  it('answers as the network does: the same objects in the cluster network\'s caches give the same verdicts, node addresses and ipBlocks included', () => {
    const pods = [
      pod('web', { labels: { app: 'web' }, ip: '10.244.1.5', hostIP: '172.18.0.2', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }),
      pod('client', { labels: { role: 'client' }, ip: '10.244.2.9', hostIP: '172.18.0.3' }),
      pod('agent', { hostNetwork: true, ip: '172.18.0.2', hostIP: '172.18.0.2' }),
      pod('remote-agent', { hostNetwork: true, ip: '172.18.0.3', hostIP: '172.18.0.3' }),
      pod('prod-client', { ns: 'prod', labels: { role: 'client' }, ip: '10.244.2.20', hostIP: '172.18.0.3' }),
    ];
    const policies = [webFromFrontend, policy('from-prod', { ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'prod' } } }, { ipBlock: { cidr: '10.244.2.0/24', except: ['10.244.2.20/32'] } }] }] }), denyEgress];
    const net = new ClusterNetwork();
    for (const n of namespaces) net.apply('namespaces', n as CoreObject);
    for (const p of [...pods, ...policies]) net.apply(p.kind === 'Pod' ? 'pods' : 'networkpolicies', p as CoreObject);
    const endpoints = pods.map((p) => podEndpoint(p));
    const world = policyWorld(policies, namespaces);
    const matrix = reachabilityMatrix(world, endpoints, columns(...endpoints, clusterDns));
    const expected = endpoints.map((s) => [...endpoints, clusterDns].map((t) => policyAllows(net, s.peer, { ...t.peer, ...defaultPort(t) })));
    expect(matrix.map((row) => row.map((v) => v.allowed))).toEqual(expected);
    // web's own node is let in; the other node is not, and client in default (its egress isolated) reaches nothing.
    expect(matrix.map((row) => row[0]!.allowed)).toEqual([true, false, true, false, true]);
    expect(matrix[1]!.every((v) => !v.allowed || v.egress.reason === 'same-pod')).toBe(true);
  });
});

describe('the explanation', () => {
  const world = policyWorld([denyIngress, webFromFrontend, denyEgress], namespaces);
  const say = (source: Endpoint, target: Endpoint, port = defaultPort(target)) => explain(world, judge(world, source, target, port), source, target, port);

  it('a dropped connection names the isolating policies and checks each rule\'s peers and ports', () => {
    const e = say(frontend, web, { port: 9000, protocol: 'TCP', custom: true });
    expect(e.allowed).toBe(false);
    expect(e.summary).toBe('Dropped: web is isolated for ingress by default-deny-ingress and web-from-frontend; no rule allows it.');
    expect(e.ingress.policies).toEqual([
      { namespace: 'default', name: 'default-deny-ingress' },
      { namespace: 'default', name: 'web-from-frontend' },
    ]);
    expect(e.ingress.rules.map((r) => r.text)).toEqual([
      'default-deny-ingress: no ingress rules, so it only isolates web',
      'web-from-frontend rule 1: from matches frontend? yes (podSelector role=frontend in default); ports: http/TCP matches 9000/TCP? no',
    ]);
    expect(e.egress.sentence).toBe('frontend is not isolated for egress: no policy selects it with policyType Egress, so nothing is held back.');
  });

  it('an allowed one names the rule of the policy that allows it; a pod no policy selects is not isolated', () => {
    const e = say(frontend, web);
    expect(e.summary).toBe(
      'Allowed: frontend is not isolated for egress: no policy selects it with policyType Egress, so nothing is held back. web is isolated for ingress by default-deny-ingress and web-from-frontend; web-from-frontend rule 1 allows it.',
    );
    expect(e.ingress.rules.find((r) => r.allows)).toMatchObject({ policy: 'web-from-frontend', rule: 1 });
    const blocked = say(client, web);
    expect(blocked.ingress.rules[1]!.text).toBe('web-from-frontend rule 1: from matches client? no (podSelector role=frontend in default); ports: http/TCP matches 8080/TCP? yes');
    // Both ends drop it: both say why.
    expect(blocked.summary).toBe('Dropped: client is isolated for egress by default-deny-egress; no rule allows it. web is isolated for ingress by default-deny-ingress and web-from-frontend; no rule allows it.');
  });

  it('the DNS column explains default-deny egress, and the rule that lets DNS through', () => {
    expect(say(client, clusterDns).summary).toBe('Dropped: client is isolated for egress by default-deny-egress; no rule allows it.');
    const fixed = policyWorld([policy('default-deny-egress', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [dnsRule] })], namespaces);
    const e = explain(fixed, judge(fixed, client, clusterDns, defaultPort(clusterDns)), client, clusterDns, defaultPort(clusterDns));
    expect(e.summary).toContain('default-deny-egress rule 1 allows it.');
    expect(e.egress.rules[0]!.text).toBe(
      'default-deny-egress rule 1: to matches cluster DNS (kube-dns)? yes (namespaceSelector kubernetes.io/metadata.name=kube-system and podSelector k8s-app=kube-dns); ports: 53/UDP matches 53/UDP? yes',
    );
  });

  it('a pod reaching itself, and a host-network pod on the destination\'s node, are let through whatever the policies', () => {
    expect(say(web, web).summary).toBe('Allowed: a pod reaching itself never leaves its network namespace: no policy applies.');
    const target = podEndpoint(pod('web', { labels: { app: 'web' }, ip: '10.244.1.5', hostIP: '172.18.0.2' }));
    const agent = podEndpoint(pod('agent', { hostNetwork: true, ip: '172.18.0.2', hostIP: '172.18.0.2' }));
    expect(say(agent, target).summary).toBe("Allowed: agent is on its node's network (hostNetwork): no policy selects it for egress. agent is on web's own node (172.18.0.2), which is always let in.");
  });
});

describe('policies in words', () => {
  it('peers and a policy summary, YAML-ish', () => {
    expect(describePeer({ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, 'default')).toBe('ipBlock 10.0.0.0/8 except 10.1.0.0/16');
    expect(describePeer({ namespaceSelector: {} }, 'default')).toBe('namespaceSelector {}');
    expect(describePeer({ podSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['a', 'b'] }] } }, 'prod')).toBe('podSelector role in (a,b) in prod');
    expect(policySummary(webFromFrontend)).toBe(['name: web-from-frontend', 'podSelector: app=web', 'policyTypes: [Ingress]', 'ingress:', '- from: podSelector role=frontend in default', '  ports: http/TCP'].join('\n'));
    expect(policySummary(denyIngress)).toBe(['name: default-deny-ingress', 'podSelector: {} (every pod in default)', 'policyTypes: [Ingress]'].join('\n'));
    expect(policySummary(policy('egress', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 8000, endPort: 8999 }, { protocol: 'UDP' }] }] }))).toBe(
      ['name: egress', 'podSelector: {} (every pod in default)', 'policyTypes: [Egress]', 'egress:', '- to: every peer', '  ports: 8000-8999/TCP, every UDP port'].join('\n'),
    );
  });
});

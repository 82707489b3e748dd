/**
 * Where a TCP connection from a pod goes, as kube-proxy's iptables rules and
 * the pod network route it: a Service's ClusterIP and port to one of its
 * ready endpoints (round-robin, or by client address with ClientIP
 * affinity) at the EndpointSlice's port (the targetPort, a named one
 * resolved by the slice controller); a Service with no ready endpoint is
 * REJECTed (refused), a port the Service does not have is dropped (the
 * client times out); a pod's address reaches its listening sockets (none:
 * the kernel's RST, refused), loopback the pod's own. The `kubernetes`
 * Service's endpoint is kube-apiserver's TLS port, which answers a plain
 * HTTP request as Go's TLS server does. A node's address takes a Service's
 * NodePort (to any ready endpoint, or with externalTrafficPolicy Local only
 * to one on that node, dropped when there is none), a pod's hostPort (the
 * CNI's portmap), a host-network pod's sockets and the kubelet's TLS port
 * (refused while the kubelet is stopped); any other port is refused by the node. A connection NetworkPolicies do not
 * allow (judged on the endpoint kube-proxy picked) is dropped: the client
 * times out.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { isIPv4, readyEndpoints } from './clusterDns';
import type { Listener, PodNetwork } from './clusterNetwork';
import { policyAllows, type PolicyPeer } from './networkPolicy';
import { isKubeletStopped } from './kubeletAnnotation';
import { stringHash } from '../util/stringHash';

export type Connection = { kind: 'connected'; listener: Listener } | { kind: 'refused' } | { kind: 'timeout' };

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const podIPs = (pod: KubeObject | undefined): string[] => objectsOf(field(pod, 'status', 'podIPs')).map((i) => str(i['ip']));

/** Go's crypto/tls server's reply to a request that is not a TLS handshake. */
const plainHttpToTls: Listener = { podUID: '', container: '', startedAt: '', port: 0, since: 0, owner: {}, respond: () => 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n' };
/** kube-apiserver's secure port: plain HTTP gets Go's 400, an HTTPS client the API (ClusterNetwork.apiServer). */
const apiServerPort: Listener = { ...plainHttpToTls, tls: 'apiserver' };

/** The kubelet's HTTPS port on every node (its Node's daemonEndpoints). */
const kubeletPort = 10250;
/** A node's kubelet server: plain HTTP gets Go's 400, an HTTPS client the kubelet's API (ClusterNetwork.kubelet). */
const kubeletServer = (node: string): Listener => ({ ...plainHttpToTls, tls: 'kubelet', node });

/** Whether an address and port are the API server's, as the `kubernetes` Service's endpoints give it. */
function isAPIServer(net: PodNetwork['cluster'], ip: string, port: number): boolean {
  const svc = net.service('default', 'kubernetes');
  return !!svc && net.endpointSlices('default', 'kubernetes').some((s) => objectsOf(s['ports']).some((p) => p['port'] === port) && objectsOf(s['endpoints']).some((e) => Array.isArray(e['addresses']) && e['addresses'].includes(ip)));
}

/** The connecting pod as NetworkPolicy sees it: its address, and itself unless it is on the host network. */
export function policySource(from: PodNetwork): PolicyPeer {
  const self = from.cluster.podByUID(from.podUID);
  return { ip: from.podIP ?? podIPs(self)[0] ?? '', ...(self && !from.hostNetwork ? { pod: self } : {}) };
}

/** A socket bound to loopback only (kube-proxy's metrics on 127.0.0.1): another address's connections find no listener there. */
const loopbackOnly = (l: Listener): boolean => !!l.addresses?.length && l.addresses.every((a) => a.startsWith('127.') || a === '::1');

export function connect(from: PodNetwork, ip: string, port: number, at: number): Connection {
  const net = from.cluster;
  const source = policySource(from);
  /** The socket listening on a pod's address (not one bound to its loopback only). */
  const listening = (uid: string, onPort: number): Listener | undefined => {
    const l = net.listenerAt(uid, onPort, at);
    return l && !loopbackOnly(l) ? l : undefined;
  };
  /** The connection to a pod's listening socket, if policies let it through. */
  const reach = (pod: KubeObject | undefined, podIP: string, podPort: number): Connection => {
    if (!policyAllows(net, source, { ip: podIP, port: podPort, protocol: 'TCP', ...(pod ? { pod } : {}) })) return { kind: 'timeout' };
    const listener = pod ? listening(pod.metadata.uid ?? '', podPort) : undefined;
    return listener ? { kind: 'connected', listener } : { kind: 'refused' };
  };
  const self = net.podByUID(from.podUID);
  if (ip.startsWith('127.') || podIPs(self).includes(ip)) {
    const listener = net.listenerAt(from.podUID, port, at);
    return listener ? { kind: 'connected', listener } : { kind: 'refused' };
  }
  if (!isIPv4(ip)) return { kind: 'timeout' };
  /** The API server's TLS port, which egress policies may still drop. */
  const apiServer = (addr: string, apiPort: number): Connection => (policyAllows(net, source, { ip: addr, port: apiPort, protocol: 'TCP' }) ? { kind: 'connected', listener: apiServerPort } : { kind: 'timeout' });
  /** One of a Service port's ready endpoints (only those on `node` for externalTrafficPolicy Local), as kube-proxy's rules pick it. */
  const viaService = (svc: KubeObject, svcPort: Record<string, unknown>, node?: string): Connection => {
    const portName = str(svcPort['name']);
    const endpoints = readyEndpoints(net, svc).flatMap((e) => {
      if (node !== undefined && str(e.endpoint['nodeName']) !== node) return [];
      const slicePort = objectsOf(e.slice['ports']).find((p) => str(p['name']) === portName && (str(p['protocol']) || 'TCP') === 'TCP');
      return typeof slicePort?.['port'] === 'number' ? [{ ip: e.ip, port: slicePort['port'] }] : [];
    });
    // No endpoint: REJECT, but a Local policy's missing local endpoint is a DROP.
    if (!endpoints.length) return { kind: node !== undefined ? 'timeout' : 'refused' };
    const key = `${svc.metadata.namespace}/${svc.metadata.name}:${str(svcPort['name'])}:${String(svcPort['port'])}`;
    const affinity = field(svc, 'spec', 'sessionAffinity') === 'ClientIP';
    // ClientIP affinity: a client's address hashes to the same endpoint each time.
    const chosen = endpoints[affinity ? stringHash(podIPs(self)[0] ?? '', 7) % endpoints.length : net.nextTurn(key, endpoints.length)]!;
    const pod = net.podByIP(chosen.ip);
    if (!pod && isAPIServer(net, chosen.ip, chosen.port)) return apiServer(chosen.ip, chosen.port);
    return reach(pod, chosen.ip, chosen.port);
  };
  const svc = net.serviceByClusterIP(ip);
  if (svc) {
    const svcPort = objectsOf(field(svc, 'spec', 'ports')).find((p) => p['port'] === port && (str(p['protocol']) || 'TCP') === 'TCP');
    return svcPort ? viaService(svc, svcPort) : { kind: 'timeout' };
  }
  const pod = net.podByIP(ip);
  if (pod) return reach(pod, ip, port);
  if (isAPIServer(net, ip, port)) return apiServer(ip, port);
  const node = net.nodeByIP(ip);
  if (node !== undefined) {
    const nodePort = net.serviceByNodePort(port);
    if (nodePort) return viaService(nodePort.service, nodePort.port, field(nodePort.service, 'spec', 'externalTrafficPolicy') === 'Local' ? node : undefined);
    const hostPorted = net.hostPortOn(ip, port);
    if (hostPorted) return reach(hostPorted.pod, podIPs(hostPorted.pod)[0] ?? '', hostPorted.containerPort);
    // The node's own sockets (its host-network pods', the kubelet's TLS port), which only egress ipBlocks judge.
    if (!policyAllows(net, source, { ip, port, protocol: 'TCP' })) return { kind: 'timeout' };
    for (const p of net.podsOnNode(ip)) {
      const listener = field(p, 'spec', 'hostNetwork') === true ? listening(p.metadata.uid ?? '', port) : undefined;
      if (listener) return { kind: 'connected', listener };
    }
    return port === kubeletPort && !isKubeletStopped(net.node(node)) ? { kind: 'connected', listener: kubeletServer(node) } : { kind: 'refused' };
  }
  // No route answers: the SYN is lost.
  return { kind: 'timeout' };
}

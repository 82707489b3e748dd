/**
 * What the simulated cluster network knows, read synchronously by the
 * container tools (a tool is a generator that cannot await): the Services,
 * EndpointSlices and Pods as informers keep them (kube-proxy's and CoreDNS's
 * caches), the NetworkPolicies and Namespaces (the CNI's policy agent's), the Nodes, and the sockets listening in pods: a server process (httpd, nc
 * -l) registers its port while its container runs, with what it answers to
 * a connection from its own files.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { isPodTerminal } from '../controllers/controllerUtils';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import type { RunningController } from '../controllers/informer';
import type { Store } from '../registry/generic/store';

type Obj = Record<string, unknown>;

/** The kinds the network's informers keep. */
export type NetworkResource = 'services' | 'endpointslices' | 'pods' | 'networkpolicies' | 'namespaces' | 'nodes';

/** A listening socket in a pod's network namespace. */
export interface Listener {
  podUID: string;
  /** The container whose process listens, and when that run of it started: it listens only while that run is running. */
  container: string;
  startedAt: string;
  port: number;
  /** When it began listening (its process's clock): a connection before then is refused. */
  since: number;
  /** The listening process (its files), telling a process replayed from its start from a second bind in the same one. */
  owner: object;
  /** What it sends back on a connection made at `at` from the address `from`, given what the client sent. */
  respond(request: string, at: number, from?: string): string;
  /** How long it takes to answer (its work on the request: php-apache's loop), which the client waits. */
  serviceMs?: number;
  /** When it stopped listening (its process ended, or it took the one connection it serves): a connection from then on is refused. */
  closedAt?: number;
  /** A TLS server: the API server's (ClusterNetwork.apiServer), or a node's kubelet (ClusterNetwork.kubelet), which an HTTPS client reaches. */
  tls?: 'apiserver' | 'kubelet';
  /** The kubelet's node, for its port. */
  node?: string;
  /** A daemon's (httpd without -f forks and its parent exits): it outlives the process that started it, until its container ends. */
  daemon?: boolean;
  /** The connection it accepted, for a server that takes one (nc -l): when, and what the client sent. */
  accepted?: { at: number; request: string };
  /** The local addresses it is bound to, as netstat shows them: `0.0.0.0` (IPv4's any, the default) and or `::` (IPv6's). */
  addresses?: readonly string[];
}

/** A container's place in the network, as its processes see it. */
export interface PodNetwork {
  cluster: ClusterNetwork;
  namespace: string;
  podName: string;
  podUID: string;
  container: string;
  /** The container's running start (a listener lives as long as this run). */
  startedAt: string;
  /** The pod's address, given to its sandbox before any container starts (the node's on the host network). */
  podIP?: string;
  /** The pod shares the node's network namespace. */
  hostNetwork?: boolean;
}

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** The address of the node a pod is bound to (status.hostIP): where its kubelet and the API server's dials come from. */
export function podHostIP(pod: KubeObject | undefined): string | undefined {
  const ip = field(pod, 'status', 'hostIP');
  return typeof ip === 'string' && ip ? ip : undefined;
}

export class ClusterNetwork {
  private readonly services = new Map<string, KubeObject>();
  private readonly slices = new Map<string, KubeObject>();
  private readonly pods = new Map<string, KubeObject>();
  private readonly policies = new Map<string, KubeObject>();
  private readonly namespaces = new Map<string, KubeObject>();
  private readonly nodes = new Map<string, KubeObject>();
  private readonly listeners = new Set<Listener>();
  /** The API server, as a pod's HTTPS client reaches it (its handler; with its TLS done by the client's tool). */
  apiServer?: (request: Request) => Promise<Response>;
  /** A node's kubelet server on its HTTPS port (kubeletAuth.ts), for a request a pod sends it. */
  kubelet?: (node: string, request: Request) => Promise<Response>;
  /** kube-proxy's next pick per Service port (round-robin, so the same requests pick the same endpoints). */
  private readonly turns = new Map<string, number>();

  /** An informer's event: the object as it is now, or gone. */
  apply(resource: NetworkResource, obj: KubeObject, deleted = false): void {
    const map = { services: this.services, endpointslices: this.slices, pods: this.pods, networkpolicies: this.policies, namespaces: this.namespaces, nodes: this.nodes }[resource];
    if (deleted) map.delete(keyOf(obj));
    else map.set(keyOf(obj), obj);
    if (resource === 'pods' && deleted) for (const l of this.listeners) if (l.podUID === obj.metadata.uid) this.listeners.delete(l);
  }

  /** Every Service, as kube-proxy's informer holds them. */
  allServices(): KubeObject[] {
    return [...this.services.values()];
  }

  service(namespace: string, name: string): KubeObject | undefined {
    return this.services.get(`${namespace}/${name}`);
  }

  /** The Service a ClusterIP belongs to. */
  serviceByClusterIP(ip: string): KubeObject | undefined {
    for (const s of this.services.values()) {
      const ips = Array.isArray(field(s, 'spec', 'clusterIPs')) ? (field(s, 'spec', 'clusterIPs') as unknown[]).map(String) : [str(field(s, 'spec', 'clusterIP'))];
      if (ips.includes(ip)) return s;
    }
    return undefined;
  }

  /** The Service's EndpointSlices (those labelled with its name, as kube-proxy selects them). */
  endpointSlices(namespace: string, service: string): KubeObject[] {
    return [...this.slices.values()].filter((s) => s.metadata.namespace === namespace && s.metadata.labels?.['kubernetes.io/service-name'] === service);
  }

  pod(namespace: string, name: string): KubeObject | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  podByUID(uid: string): KubeObject | undefined {
    for (const p of this.pods.values()) if (p.metadata.uid === uid) return p;
    return undefined;
  }

  /** The pod holding an IP (one not done: a finished pod's IP is free again). */
  podByIP(ip: string): KubeObject | undefined {
    for (const p of this.pods.values()) {
      if (isPodTerminal(p) || field(p, 'spec', 'hostNetwork') === true) continue;
      if (objectsOf(field(p, 'status', 'podIPs')).some((i) => i['ip'] === ip) || field(p, 'status', 'podIP') === ip) return p;
    }
    return undefined;
  }

  /** Whether an address is a node's. */
  isNodeIP(ip: string): boolean {
    return this.nodeByIP(ip) !== undefined;
  }

  /** A Node by name, as the network knows it. */
  node(name: string): KubeObject | undefined {
    return this.nodes.get(`/${name}`);
  }

  /** The name of the node holding an address: a Node's InternalIP, or what the pods bound to it report (status.hostIP); undefined for no node's. */
  nodeByIP(ip: string): string | undefined {
    for (const n of this.nodes.values()) if (objectsOf(field(n, 'status', 'addresses')).some((a) => a['type'] === 'InternalIP' && a['address'] === ip)) return n.metadata.name;
    for (const p of this.pods.values()) if (podHostIP(p) === ip) return str(field(p, 'spec', 'nodeName'));
    return undefined;
  }

  /** The pods bound to the node at an address, not done. */
  podsOnNode(ip: string): KubeObject[] {
    return [...this.pods.values()].filter((p) => podHostIP(p) === ip && !isPodTerminal(p));
  }

  /** The Service port a NodePort belongs to (NodePort and LoadBalancer Services, TCP). */
  serviceByNodePort(nodePort: number): { service: KubeObject; port: Record<string, unknown> } | undefined {
    for (const s of this.services.values()) {
      const type = str(field(s, 'spec', 'type'));
      if (type !== 'NodePort' && type !== 'LoadBalancer') continue;
      const port = objectsOf(field(s, 'spec', 'ports')).find((p) => p['nodePort'] === nodePort && (str(p['protocol']) || 'TCP') === 'TCP');
      if (port) return { service: s, port };
    }
    return undefined;
  }

  /** The pod on the node at an address whose container maps a hostPort (TCP) to a port of its own (the CNI's portmap). */
  hostPortOn(ip: string, hostPort: number): { pod: KubeObject; containerPort: number } | undefined {
    for (const p of this.podsOnNode(ip)) {
      if (field(p, 'spec', 'hostNetwork') === true) continue;
      for (const c of objectsOf(field(p, 'spec', 'containers'))) {
        const port = objectsOf(c['ports']).find((x) => x['hostPort'] === hostPort && (str(x['protocol']) || 'TCP') === 'TCP');
        if (port && typeof port['containerPort'] === 'number') return { pod: p, containerPort: port['containerPort'] };
      }
    }
    return undefined;
  }

  /** The NetworkPolicies of a namespace. */
  networkPolicies(namespace: string): KubeObject[] {
    return [...this.policies.values()].filter((p) => p.metadata.namespace === namespace);
  }

  /** A namespace's labels (a policy's namespaceSelector matches them); undefined for one not known. */
  namespaceLabels(name: string): Record<string, string> | undefined {
    const ns = this.namespaces.get(`/${name}`);
    return ns ? (ns.metadata.labels ?? {}) : undefined;
  }

  podsIn(namespace: string): KubeObject[] {
    return [...this.pods.values()].filter((p) => p.metadata.namespace === namespace);
  }

  /** Registers a listening socket; false when its pod already has one on the port (EADDRINUSE); a process replayed from its start takes its own socket back. */
  listen(listener: Listener): boolean {
    const replayed = (l: Listener) => l.owner !== listener.owner && l.podUID === listener.podUID && l.port === listener.port && l.container === listener.container && l.startedAt === listener.startedAt && l.since === listener.since;
    const held = this.listenerAt(listener.podUID, listener.port, Infinity);
    if (held && !replayed(held)) return false;
    // A replayed process gets what happened to its socket the first time (the connection it took, its close).
    const before = [...this.listeners].find(replayed);
    if (before?.accepted) listener.accepted ??= before.accepted;
    if (before?.closedAt !== undefined) listener.closedAt ??= before.closedAt;
    // A new run of the container closed every socket of the runs before it.
    for (const l of this.listeners) if (l.podUID === listener.podUID && ((l.container === listener.container && l.startedAt !== listener.startedAt) || l.port === listener.port)) this.listeners.delete(l);
    this.listeners.add(listener);
    return true;
  }

  /** A process ended at `at`: the sockets it listens on close then, but a daemon's it started. */
  closeOwnedBy(owner: object, at: number): void {
    for (const l of this.listeners) if (l.owner === owner && !l.daemon && (l.closedAt === undefined || l.closedAt > at)) l.closedAt = at;
  }

  /** The socket listening on a pod's port at a time: its container's run is the one running, it had begun listening and not stopped. */
  listenerAt(podUID: string, port: number, at: number): Listener | undefined {
    const pod = this.podByUID(podUID);
    for (const l of this.listeners) {
      if (l.podUID !== podUID || l.port !== port || l.since > at || (l.closedAt !== undefined && l.closedAt <= at)) continue;
      if (pod && isRunningRun(pod, l.container, l.startedAt)) return l;
    }
    return undefined;
  }

  /** Every socket listening in a pod at a time, by port (what netstat reads from the pod's network namespace). */
  listenersIn(podUID: string, at: number): Listener[] {
    const ports = new Set<number>();
    for (const l of this.listeners) if (l.podUID === podUID) ports.add(l.port);
    return [...ports].sort((a, b) => a - b).flatMap((port) => this.listenerAt(podUID, port, at) ?? []);
  }

  /** The next of n endpoints for a Service port. */
  nextTurn(key: string, n: number): number {
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    return turn % n;
  }
}

/** Whether a pod is done (Succeeded or Failed): its sandbox, address and ports are gone. */

/** Whether the pod's status shows that run of the container running. */
function isRunningRun(pod: KubeObject, container: string, startedAt: string): boolean {
  const phase = str(field(pod, 'status', 'phase'));
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  for (const k of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const s = objectsOf(field(pod, 'status', k)).find((c: Obj) => c['name'] === container);
    if (s) {
      const running = field(s, 'state', 'running');
      return isObject(running) && Date.parse(str(running['startedAt'])) === Date.parse(startedAt);
    }
  }
  return false;
}

/** Keeps the network's caches current from watches on Services, EndpointSlices and Pods (the informers of kube-proxy and CoreDNS), NetworkPolicies and Namespaces (the policy agent's) and Nodes (their addresses). */
export function startClusterNetwork(deps: NamespaceControllerDeps, network: ClusterNetwork): RunningController {
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  const feeds: [NetworkResource, string][] = [['services', ''], ['endpointslices', 'discovery.k8s.io'], ['pods', ''], ['networkpolicies', 'networking.k8s.io'], ['namespaces', ''], ['nodes', '']];
  const started = Promise.all(
    feeds.map(async ([resource, group]) => {
      const type = deps.registry.resourceFor(group, 'v1', resource);
      if (!type) return;
      const store: Store = deps.storeFor(type);
      const listed = await store.list('');
      if (stopped.signal.aborted) return;
      for (const obj of listed.items) network.apply(resource, obj);
      const unsubscribe = await deps.storage.watch(store.prefix, listed.revision, (e) => network.apply(resource, store.decode(e.kv), e.type === 'DELETE'));
      if (stopped.signal.aborted) unsubscribe();
      else unsubscribes.push(unsubscribe);
    }),
  ).catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: cluster network informers:', e);
  });
  return {
    idle: async () => {
      await started;
    },
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}

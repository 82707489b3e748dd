/**
 * kube-scheduler's cache: the nodes and the pods bound to them, kept by the
 * scheduler's own list and watch of pods and nodes (each pod decoded and
 * summarised once per change) rather than listed for every placement, and
 * the pods it has placed but not yet seen bound (assumed) counted on their
 * node meanwhile. It also keeps the pending pods nominated to a node by
 * preemption, and the namespaces, Services and workload controllers the
 * plugins read (namespaceSelector terms, the default spreading selector).
 * Finished pods (Succeeded, Failed) hold nothing, as their kubelet freed it.
 */
import type { KubeObject } from '../api/types';
import { isPodTerminal, specOf, statusOf } from '../controllers/controllerUtils';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import { newNamespacedCache, type NamespacedCache } from '../admission/namespacedCache';
import type { Store } from '../registry/generic/store';
import type { StorageEvent } from '../storage/interface';
import { addPod, newNodeInfo, newPodInfo, removePod, type NodeInfo, type PodInfo, type Snapshot } from './nodeInfo';
import type { SpreadSelectorSource } from './podTopologySpread';

export interface PodChange {
  type: StorageEvent['type'];
  key: string;
  /** The pod as it was counted on its node before the change (absent when it was not bound). */
  old?: KubeObject;
  /** The pod after the change (absent on delete). */
  pod?: KubeObject;
}

export interface SchedulerCache {
  /** Lists and starts watching; every listed pod is handed to the pod handler. Resolves to the listed revision. */
  start(): Promise<number>;
  stop(): void;
  /** The cluster now (nodes sorted by name); its objects are shared and change with the cache. */
  snapshot(): Snapshot;
  /** Counts the pod on the node until its binding is seen (or forget). */
  assume(pod: KubeObject, node: string): void;
  forget(key: string): void;
  /** The pending pods nominated to a node. */
  nominated(node: string): PodInfo[];
  /** Records a nomination at once (the scheduler's nominator), before its status write is seen. */
  nominate(pod: KubeObject, node: string | undefined): void;
  spreadSelectors: SpreadSelectorSource;
  /** The PodDisruptionBudgets of a namespace (preemption's budget check). */
  budgets(namespace: string): KubeObject[];
}


export function newSchedulerCache(deps: NamespaceControllerDeps, pods: Store, nodes: Store, handlers: { pod(change: PodChange): void; node(old: KubeObject | undefined, node: KubeObject | undefined): void }): SchedulerCache {
  const cacheOf = (group: string, resource: string): NamespacedCache | undefined => {
    const type = deps.registry.resourceFor(group, 'v1', resource);
    return type ? newNamespacedCache(deps.storage, deps.storeFor(type)) : undefined;
  };
  const listers = {
    namespaces: cacheOf('', 'namespaces'),
    services: cacheOf('', 'services'),
    replicationcontrollers: cacheOf('', 'replicationcontrollers'),
    replicasets: cacheOf('apps', 'replicasets'),
    statefulsets: cacheOf('apps', 'statefulsets'),
    poddisruptionbudgets: cacheOf('policy', 'poddisruptionbudgets'),
  };
  const nodeInfos = new Map<string, NodeInfo>();
  let sorted: NodeInfo[] | undefined;
  /** Pods counted on a node: bound (or assumed) and not finished, by key, with the node they are on. */
  const placed = new Map<string, { info: PodInfo; node: string }>();
  const assumed = new Map<string, { uid: string; node: string }>();
  const nominations = new Map<string, { info: PodInfo; node: string }>();
  const unsubscribes: (() => void)[] = [];
  let stopped = false;

  function unplace(key: string): void {
    const was = placed.get(key);
    if (!was) return;
    placed.delete(key);
    const node = nodeInfos.get(was.node);
    if (node) removePod(node, key);
  }

  function place(info: PodInfo, nodeName: string): void {
    unplace(info.key);
    placed.set(info.key, { info, node: nodeName });
    const node = nodeInfos.get(nodeName);
    if (node) addPod(node, info);
  }

  function applyPod(key: string, pod: KubeObject | undefined): void {
    const wasAssumed = assumed.get(key);
    if (wasAssumed && (!pod || pod.metadata.uid !== wasAssumed.uid || specOf(pod)['nodeName'])) assumed.delete(key);
    const nodeName = pod ? String(specOf(pod)['nodeName'] ?? '') || (assumed.get(key)?.node ?? '') : '';
    if (!pod || !nodeName || isPodTerminal(pod)) unplace(key);
    else place(newPodInfo(pod), nodeName);
    const nominatedTo = pod && !specOf(pod)['nodeName'] ? String(statusOf(pod)['nominatedNodeName'] ?? '') : '';
    if (nominatedTo) nominations.set(key, { info: newPodInfo(pod!), node: nominatedTo });
    else nominations.delete(key);
  }

  function applyNode(name: string, node: KubeObject | undefined): void {
    sorted = undefined;
    if (!node) {
      nodeInfos.delete(name);
      return;
    }
    const info = newNodeInfo(node);
    const had = nodeInfos.get(name);
    // The node's pods stay; those bound before the node was seen join it.
    for (const p of had ? had.pods : [...placed.values()].filter((p) => p.node === name).map((p) => p.info)) addPod(info, p);
    nodeInfos.set(name, info);
  }

  const snapshot: Snapshot = {
    get nodes() {
      return (sorted ??= [...nodeInfos.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    },
    byName: nodeInfos,
    namespaceLabels: (namespace) => {
      const ns = listers.namespaces?.get('', namespace);
      return ns ? (ns.metadata.labels ?? {}) : undefined;
    },
  };

  return {
    async start() {
      await Promise.all(Object.values(listers).map((l) => l?.start()));
      const [nodeList, podList] = await Promise.all([nodes.list(''), pods.list('')]);
      for (const n of nodeList.items) applyNode(n.metadata.name!, n);
      for (const p of podList.items) applyPod(`${p.metadata.namespace}/${p.metadata.name}`, p);
      const nodeWatch = await deps.storage.watch(nodes.prefix, nodeList.revision, (e) => {
        const name = e.kv.key.slice(nodes.prefix.length);
        const old = nodeInfos.get(name)?.node;
        const node = e.type === 'DELETE' ? undefined : nodes.decode(e.kv);
        applyNode(name, node);
        handlers.node(old, node);
      });
      const podWatch = await deps.storage.watch(pods.prefix, podList.revision, (e) => {
        const key = e.kv.key.slice(pods.prefix.length);
        const pod = e.type === 'DELETE' ? undefined : pods.decode(e.kv);
        const before = placed.get(key)?.info.pod;
        applyPod(key, pod);
        handlers.pod({ type: e.type, key, ...(pod ? { pod } : {}), ...(before ? { old: before } : {}) });
      });
      unsubscribes.push(nodeWatch, podWatch);
      if (stopped) this.stop();
      for (const p of podList.items) handlers.pod({ type: 'PUT', key: `${p.metadata.namespace}/${p.metadata.name}`, pod: p });
      return podList.revision;
    },
    stop() {
      stopped = true;
      for (const l of Object.values(listers)) l?.stop();
      for (const u of unsubscribes.splice(0)) u();
    },
    snapshot: () => snapshot,
    assume(pod, node) {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      assumed.set(key, { uid: pod.metadata.uid!, node });
      place(newPodInfo(pod), node);
    },
    forget(key) {
      if (!assumed.delete(key)) return;
      unplace(key);
    },
    nominated: (node) => [...nominations.values()].filter((n) => n.node === node).map((n) => n.info),
    nominate(pod, node) {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (node) nominations.set(key, { info: newPodInfo(pod), node });
      else nominations.delete(key);
    },
    budgets: (namespace) => listers.poddisruptionbudgets?.list(namespace) ?? [],
    spreadSelectors: {
      services: (namespace) => listers.services?.list(namespace) ?? [],
      controller: (namespace, kind, name) => (kind === 'ReplicaSet' ? listers.replicasets : kind === 'StatefulSet' ? listers.statefulsets : listers.replicationcontrollers)?.get(namespace, name),
    },
  };
}

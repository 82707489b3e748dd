/**
 * Simulated nodes: what a kubelet does for its Node, with no machine behind
 * it. It registers the Node (labels, capacity, addresses and the four
 * conditions a healthy kubelet reports), renews its Lease in
 * `kube-node-lease` every 10 seconds (the node heartbeat) and posts the
 * Node's status every 5 minutes (nodeStatusReportFrequency), all on the
 * server clock. A kubelet registers once (registerWithAPIServer): a Node
 * deleted by hand stays gone while the kubelet runs, as on a cluster, its
 * status no longer posted and its Lease renewed without an owner; the
 * server's next start (a kubelet restart) registers it again.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import { parseQuantity, quantityMilliValue } from '../api/quantity';
import { isKubeletStopped } from './kubeletAnnotation';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import type { RunningController } from '../controllers/informer';
import { newEventRecorder } from '../controllers/events';
import { objectGone } from '../controllers/controllerUtils';

/** What a simulated node runs on, as its status and its /etc/os-release say. */
export const nodeOsImage = 'kubesim simulated node';
/** The nodes' kernel: its release (`uname -r`, the node's kernelVersion) and version (`uname -v`). */
export const nodeKernelRelease = '6.8.0-kubesim';
export const nodeKernelVersion = '#1 SMP PREEMPT_DYNAMIC Mon Jan  1 00:00:00 UTC 2024';

export interface SimulatedNode {
  name: string;
  /** The node's InternalIP. */
  internalIP: string;
  /** The /24 its pods take their IPs from (spec.podCIDR). */
  podCIDR: string;
}

/** The simulated nodes `node-1` ... `node-<count>`: InternalIP 172.18.0.<n+1>, pods from 10.244.<n>.0/24. */
export function simulatedNodes(count: number): SimulatedNode[] {
  return Array.from({ length: count }, (_, i) => ({ name: `node-${i + 1}`, internalIP: `172.18.0.${i + 2}`, podCIDR: `10.244.${i + 1}.0/24` }));
}

/** Marks a Node whose kubelet is simulated (as kwok marks its nodes): the API server answers its pods' logs itself. */
export const simulatedNodeAnnotation = 'kubesim.io/node';

/** Whether a Node is one of kubesim's simulated nodes. */
export const isSimulatedNode = (node: KubeObject | undefined): boolean => node?.metadata.annotations?.[simulatedNodeAnnotation] === 'simulated';

export { kubeletStoppedAnnotation } from './kubeletAnnotation';
export { isKubeletStopped };

/** What every simulated node has: 4 CPUs, 16 GiB, 100 GiB of disk, 110 pods (the kubelet's default maxPods). */
export const nodeCapacity: Readonly<Record<string, string>> = Object.freeze({
  cpu: '4',
  'ephemeral-storage': '104857600Ki',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
  memory: '16777216Ki',
  pods: '110',
});

/** A node's capacity of a resource in KiB (memory, ephemeral-storage). */
export const nodeCapacityKiB = (resource: string): number => Number(quantityMilliValue(parseQuantity(nodeCapacity[resource]!)!) / 1000n / 1024n);

const leaseDurationSeconds = 40;
const leaseRenewMs = 10_000;
const statusReportMs = 300_000;

/** A stable hex identity per node name (machine-id, system UUID): the same node looks the same across restarts. */
export function hexOf(text: string, length: number): string {
  let h1 = 0x811c9dc5;
  let out = '';
  for (let round = 0; out.length < length; round++) {
    for (let i = 0; i < text.length; i++) h1 = Math.imul(h1 ^ text.charCodeAt(i), 0x01000193) >>> 0;
    h1 = Math.imul(h1 ^ round, 0x01000193) >>> 0;
    out += h1.toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/** setNodeStatus's conditions, all healthy; a condition already true keeps its transition time. */
function nodeConditions(previous: unknown, at: string): Record<string, unknown>[] {
  const old = Array.isArray(previous) ? previous.filter(isObject) : [];
  const condition = (type: string, status: string, reason: string, message: string) => {
    const was = old.find((c) => c['type'] === type);
    return { type, status, lastHeartbeatTime: at, lastTransitionTime: was?.['status'] === status ? was['lastTransitionTime'] : at, reason, message };
  };
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** The Node's status as its kubelet posts it. */
export function nodeStatus(node: SimulatedNode, kubernetesVersion: string, previous: unknown, now: Date): Record<string, unknown> {
  const id = hexOf(node.name, 32);
  return {
    capacity: { ...nodeCapacity },
    allocatable: { ...nodeCapacity },
    conditions: nodeConditions(isObject(previous) ? previous['conditions'] : undefined, formatTime(now)),
    addresses: [
      { type: 'InternalIP', address: node.internalIP },
      { type: 'Hostname', address: node.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: id,
      systemUUID: uuidOf(hexOf(`${node.name}/system`, 32)),
      bootID: uuidOf(hexOf(`${node.name}/boot`, 32)),
      kernelVersion: nodeKernelRelease,
      osImage: nodeOsImage,
      containerRuntimeVersion: 'containerd://2.0.0',
      kubeletVersion: `v${kubernetesVersion.replace(/^v/, '')}`,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** The Node a kubelet registers (initialNode): its well-known labels, the attach-detach annotation, its pod CIDR. */
export function nodeObject(node: SimulatedNode, kubernetesVersion: string, now: Date): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
      },
      annotations: { [simulatedNodeAnnotation]: 'simulated', 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: node.podCIDR, podCIDRs: [node.podCIDR] },
    status: nodeStatus(node, kubernetesVersion, undefined, now),
  };
}

/** MicroTime, as a Lease's renewTime is written. */
const microTime = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** Runs the node side of every simulated node: registration, Lease renewal and status reports. */
export function startSimulatedNodes(deps: NamespaceControllerDeps, nodes: readonly SimulatedNode[], kubernetesVersion: string): RunningController {
  const nodeStore = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const leases = deps.storeFor(deps.registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!);
  const stopped = new AbortController();

  /** registerWithAPIServer, then a status post: the Node exists and reports Ready. */
  async function register(node: SimulatedNode): Promise<KubeObject> {
    const now = deps.clock.now();
    try {
      return await nodeStore.create('', nodeObject(node, kubernetesVersion, now));
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
    return reportStatus(node);
  }

  async function reportStatus(node: SimulatedNode): Promise<KubeObject> {
    const { object } = await nodeStore.update('', node.name, (cur) => {
      if (!cur) throw objectGone(`nodes "${node.name}" not found`);
      cur['status'] = { ...(isObject(cur['status']) ? cur['status'] : {}), ...nodeStatus(node, kubernetesVersion, cur['status'], deps.clock.now()) };
      return cur;
    }, { subresource: 'status' });
    return object;
  }

  /** The heartbeat: the Lease renewed (created, owned by the Node when there is one, when missing). */
  async function renewLease(node: SimulatedNode, owner: KubeObject | undefined): Promise<void> {
    const renewTime = microTime(deps.clock.now());
    const spec = { holderIdentity: node.name, leaseDurationSeconds, renewTime };
    const kv = await leases.getKv('kube-node-lease', node.name);
    if (!kv) {
      await leases.create('kube-node-lease', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: node.name, namespace: 'kube-node-lease', ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: owner.metadata.uid! }] } : {}) },
        spec,
      } as KubeObject);
      return;
    }
    await leases.update('kube-node-lease', node.name, (cur) => {
      if (!cur) throw objectGone();
      cur['spec'] = { ...(isObject(cur['spec']) ? cur['spec'] : {}), ...spec };
      return cur;
    });
  }

  /** What a starting kubelet records about its node (the kubelet's node reference has the node's name as uid). */
  function startingEvents(node: SimulatedNode): void {
    const recorder = newEventRecorder(deps, 'kubelet', node.name);
    const ref = { kind: 'Node', metadata: { name: node.name, uid: node.name } } as KubeObject;
    recorder.event(ref, 'Normal', 'Starting', 'Starting kubelet.');
    recorder.event(ref, 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
    for (const status of ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady']) {
      recorder.event(ref, 'Normal', status, `Node ${node.name} status is now: ${status}`);
    }
  }

  async function run(node: SimulatedNode, registered: () => void): Promise<void> {
    let owner: KubeObject | undefined;
    let reportedAt = -Infinity;
    let wasStopped = false;
    let registeredOnce = false;
    startingEvents(node);
    while (!stopped.signal.aborted) {
      try {
        const nowMs = deps.clock.now().getTime();
        const kv = await nodeStore.getKv('', node.name);
        const current = kv ? nodeStore.decode(kv) : undefined;
        if (isKubeletStopped(current)) {
          // Down: nothing is posted until the annotation goes; then the kubelet starts again.
          wasStopped = true;
          registered();
          await deps.clock.sleep(leaseRenewMs, stopped.signal);
          continue;
        }
        if (wasStopped) {
          wasStopped = false;
          owner = undefined;
          startingEvents(node);
        }
        if (!kv && registeredOnce) owner = undefined;
        else if (!kv || !owner || owner.metadata.uid !== current!.metadata.uid || nowMs - reportedAt >= statusReportMs) {
          owner = kv ? await reportStatus(node) : await register(node);
          registeredOnce = true;
          reportedAt = nowMs;
        }
        await renewLease(node, owner);
        registered();
      } catch (e) {
        if (stopped.signal.aborted) return;
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) console.error(`kubesim: simulated node ${node.name}:`, e);
      }
      await deps.clock.sleep(leaseRenewMs, stopped.signal);
    }
  }

  const registered = Promise.all(nodes.map((node) => new Promise<void>((resolve) => void run(node, resolve).finally(resolve))));
  return {
    stop() {
      stopped.abort();
    },
    idle: async () => {
      await registered;
    },
  };
}

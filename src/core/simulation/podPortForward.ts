/**
 * The kubelet's port-forward for a simulated pod: each connection the
 * client opens is dialed to localhost:port in the pod's network namespace,
 * where a container's process may listen (clusterNetwork.ts); nothing
 * listening is the runtime's refusal, worded as containerd words it.
 */
import type { KubeObject } from '../api/types';
import type { PortForwardSession } from '../http/upgrade';
import type { CoreObjectGetter } from '../registry/core/podLocation';
import type { Clock } from '../util/clock';
import { isKubeletStopped, isSimulatedNode } from './nodes';
import type { SimulatedKubeletSource } from './podExec';

/** The pod's sandbox id as the runtime names it (64 hex digits), stable for the pod. */
function sandboxID(pod: KubeObject): string {
  const hex = (pod.metadata.uid ?? '').replace(/[^0-9a-f]/g, '');
  return (hex + hex + '0'.repeat(64)).slice(0, 64);
}

/** containerd's error for a port nothing in the pod listens on. */
export function portForwardRefused(pod: KubeObject, port: number): string {
  const id = sandboxID(pod);
  return `error forwarding port ${port} to pod ${id}, uid : failed to execute portforward in network namespace "/var/run/netns/cni-${pod.metadata.uid ?? ''}": failed to connect to localhost:${port} inside namespace "${id}", IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `;
}

/** The session for a pod on a simulated node whose kubelet runs; undefined otherwise (the dial is then refused as before). */
export async function simulatedPortForward(get: CoreObjectGetter, source: SimulatedKubeletSource, clock: Clock, pod: KubeObject): Promise<PortForwardSession | undefined> {
  const node = await get('nodes', '', String((pod['spec'] as Record<string, unknown> | undefined)?.['nodeName'] ?? ''));
  if (!isSimulatedNode(node) || isKubeletStopped(node)) return undefined;
  const uid = pod.metadata.uid ?? '';
  return {
    kind: 'portforward',
    dial(port) {
      const listener = source.network.listenerAt(uid, port, clock.now().getTime());
      if (!listener) return { error: portForwardRefused(pod, port) };
      // The runtime connects from inside the pod's network namespace, over loopback.
      return { exchange: (request) => listener.respond(request, clock.now().getTime(), '127.0.0.1') };
    },
  };
}

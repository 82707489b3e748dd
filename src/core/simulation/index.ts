/**
 * Simulated nodes (ApiServerOptions.simulatedNodes, the Node host's
 * --simulated-nodes): Nodes with their kubelets, kube-scheduler to place
 * pods on them, kubeadm's add-ons (CoreDNS behind kube-dns, kube-proxy on
 * every node) and a volume provisioner with kind's default StorageClass,
 * so workloads run as on a small cluster: pods are bound, get IPs, become
 * Running and Ready, Job pods complete, claims get volumes. Off by default:
 * kubesim is then kube-apiserver and kube-controller-manager alone, and pods
 * stay Pending as on a cluster without nodes.
 */
import type { NamespaceControllerDeps } from '../controllers/namespace';
import type { RunningController } from '../controllers/informer';
import { startKubelets } from './kubelet';
import type { ContainerRuntime } from './containerRuntime';
import { simulatedNodes, startSimulatedNodes } from './nodes';
import { startScheduler } from './scheduler';
import { startProvisioner } from './provisioner';
import { aggregatedMetricsReader, metricsAPIService } from './metricsApi';
import { StatusError } from '../errors';
import { startClusterNetwork, type ClusterNetwork } from './clusterNetwork';
import type { ProberResults } from './proberResults';
import { installClusterAddons } from './clusterAddons';

export { exitCodeAnnotation, runSecondsAnnotation } from './kubelet';
export { defaultStorageClassName, simulatedProvisioner } from './provisioner';

export function startNodeSimulation(deps: NamespaceControllerDeps, count: number, kubernetesVersion: string, runtime?: ContainerRuntime, network?: ClusterNetwork, proberResults?: ProberResults): RunningController {
  const nodes = simulatedNodes(count);
  // Each writes as its component does: the kubelets, the scheduler and the provisioner are field managers of their own.
  const as = (manager: string): NamespaceControllerDeps => ({ ...deps, storeFor: (type) => deps.storeFor(type).asManager(manager) });
  // metrics-server's reader role and APIService, created once (kept when a user changed them).
  for (const [group, resource, obj] of [['rbac.authorization.k8s.io', 'clusterroles', aggregatedMetricsReader()], ['apiregistration.k8s.io', 'apiservices', metricsAPIService()]] as const) {
    const type = deps.registry.resourceFor(group, 'v1', resource);
    if (!type) continue;
    void deps.storeFor(type).asManager('metrics-server').create('', obj).catch((e) => {
      if (!(e instanceof StatusError && e.code === 409)) console.error(`kubesim: metrics-server's ${obj.kind}:`, e);
    });
  }
  // kubeadm's add-ons (CoreDNS, kube-proxy), installed once as `kubeadm init` does.
  const addons = installClusterAddons(as('kubeadm'), kubernetesVersion).catch((e) => console.error("kubesim: kubeadm's add-ons:", e));
  const parts = [startSimulatedNodes(as('kubelet'), nodes, kubernetesVersion), startScheduler(as('kube-scheduler')), startKubelets(as('kubelet'), nodes, runtime, network, proberResults), startProvisioner(as('kubesim-provisioner')), ...(network ? [startClusterNetwork(deps, network)] : [])];
  return {
    stop: () => parts.forEach((p) => p.stop()),
    idle: async () => {
      await addons;
      for (const p of parts) await p.idle();
    },
  };
}

/**
 * Controller names and the `--controllers` list as kube-controller-manager
 * reads them (cmd/kube-controller-manager/names and IsControllerEnabled):
 * `*` turns on every controller that is on by default, `name` turns one on,
 * `-name` turns one off; the first entry naming a controller wins. Old
 * spellings (`garbagecollector`, `bootstrapsigner`, ...) are aliases.
 */

/** The controllers kubesim runs, by their kube-controller-manager names. */
export const controllerNames = [
  'garbage-collector-controller',
  'namespace-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'replicationcontroller-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'certificatesigningrequest-signing-controller',
  'pod-garbage-collector-controller',
  'resourcequota-controller',
  'disruption-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'job-controller',
  'ttl-after-finished-controller',
  'cronjob-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'persistentvolume-binder-controller',
  'ephemeral-volume-controller',
  'bootstrap-signer-controller',
  'token-cleaner-controller',
  'horizontal-pod-autoscaler-controller',
] as const;

export type ControllerName = (typeof controllerNames)[number];

/**
 * Off unless named: the bootstrap token controllers, as in kube-controller-manager; and the node lifecycle pair
 * unless simulated nodes run (on by default upstream, but a hand-made Node has no kubelet to keep it Ready), and the
 * horizontal pod autoscaler unless they run (no pod has metrics without them).
 */
const disabledByDefault = new Set<ControllerName>(['bootstrap-signer-controller', 'token-cleaner-controller', 'node-lifecycle-controller', 'taint-eviction-controller', 'horizontal-pod-autoscaler-controller']);

const aliases: Record<string, ControllerName> = {
  garbagecollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  statefulset: 'statefulset-controller',
  daemonset: 'daemonset-controller',
  replicationcontroller: 'replicationcontroller-controller',
  serviceaccount: 'serviceaccount-controller',
  'serviceaccount-token': 'serviceaccount-token-controller',
  'root-ca-cert-publisher': 'root-ca-certificate-publisher-controller',
  csrsigning: 'certificatesigningrequest-signing-controller',
  podgc: 'pod-garbage-collector-controller',
  resourcequota: 'resourcequota-controller',
  disruption: 'disruption-controller',
  nodelifecycle: 'node-lifecycle-controller',
  'taint-eviction': 'taint-eviction-controller',
  job: 'job-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  cronjob: 'cronjob-controller',
  endpoint: 'endpoints-controller',
  endpointslice: 'endpointslice-controller',
  endpointslicemirroring: 'endpointslice-mirroring-controller',
  'pvc-protection': 'persistentvolumeclaim-protection-controller',
  'pv-protection': 'persistentvolume-protection-controller',
  'persistentvolume-binder': 'persistentvolume-binder-controller',
  'ephemeral-volume': 'ephemeral-volume-controller',
  bootstrapsigner: 'bootstrap-signer-controller',
  tokencleaner: 'token-cleaner-controller',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler-controller',
};

function canonical(name: string): ControllerName | undefined {
  if ((controllerNames as readonly string[]).includes(name)) return name as ControllerName;
  return aliases[name];
}

/**
 * Validates a `--controllers` list and spells every entry canonically.
 * Throws with kube-controller-manager's message for an unknown name.
 */
export function parseControllers(list: readonly string[]): string[] {
  return list.map((entry) => {
    if (entry === '*') return entry;
    const negated = entry.startsWith('-');
    const name = canonical(negated ? entry.slice(1) : entry);
    if (!name) throw new Error(`${JSON.stringify(negated ? entry.slice(1) : entry)} is not in the list of known controllers`);
    return negated ? `-${name}` : name;
  });
}

/** Whether the controller runs under this `--controllers` list (default `*`); onByDefault: what `*` means for it. */
export function controllerEnabled(name: ControllerName, list: readonly string[] = ['*'], onByDefault = !disabledByDefault.has(name)): boolean {
  let star = false;
  for (const entry of parseControllers(list)) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && onByDefault;
}

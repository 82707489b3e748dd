/**
 * The PodTopologyLabels admission plugin (plugin/pkg/admission/podtopologylabels,
 * default on with the PodTopologyLabelsAdmission gate): a pods/binding
 * create gets the target Node's topology labels, which the binding then
 * copies onto the pod. A target that is not a Node, or a Node that does
 * not exist, leaves the Binding as it is.
 */
import type { KubeObject } from '../api/types';

/** The labels the plugin copies from the Node. */
export const nodeTopologyLabels = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

/** Admit: adds the node's topology labels to the binding's (mutates binding). */
export function admitPodTopologyLabels(binding: KubeObject, node: KubeObject | undefined): void {
  const target = binding['target'] as { kind?: string } | undefined;
  if (!node || (target?.kind && target.kind !== 'Node')) return;
  const labels = node.metadata.labels ?? {};
  for (const key of nodeTopologyLabels) {
    if (labels[key] === undefined) continue;
    binding.metadata.labels = { ...binding.metadata.labels, [key]: labels[key] };
  }
}

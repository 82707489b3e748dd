/**
 * BindingREST.assignPod (pkg/registry/core/pod/storage): binding a pod to a
 * node writes spec.nodeName, the binding's annotations and the PodScheduled
 * condition straight to storage, with the Binding's uid and resourceVersion
 * as preconditions; no pod strategy, validation or admission runs on the pod.
 */
import { formatTime, isObject, type KubeObject } from '../../api/types';
import { fieldErrorsAggregate, newConflict, StatusError } from '../../errors';
import { validatePodBinding } from '../../validation/core/binding';
import type { DeletePreconditions, Store } from '../generic/store';
import { unknownServerError } from './podLocation';

/** The refusals of the update function: plain errors, which assignPod turns into a Conflict on pods/binding. */
class BindingRefused extends Error {}

/**
 * podutil.UpdatePodCondition: a new condition type is appended; an existing
 * one is replaced, keeping its transition time when the status is unchanged.
 */
function updatePodCondition(status: Record<string, unknown>, condition: { type: string; status: string }, now: Date): void {
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Record<string, unknown>[]) : [];
  const next: Record<string, unknown> = { type: condition.type, status: condition.status, lastProbeTime: null, lastTransitionTime: formatTime(now) };
  const i = conditions.findIndex((c) => isObject(c) && c['type'] === condition.type);
  if (i < 0) conditions.push(next);
  else {
    if (conditions[i]!['status'] === condition.status) next['lastTransitionTime'] = conditions[i]!['lastTransitionTime'];
    conditions[i] = next;
  }
  status['conditions'] = conditions;
}

/** The Binding kube-apiserver decodes: name, annotations, labels, preconditions, target. */
export interface PodBinding {
  metadata: { name?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

/**
 * ValidatePodBinding's errors leave BindingREST.Create as an aggregate, not
 * a Status: kube-apiserver answers them 500 (kubernetes#139488).
 */
export function checkPodBinding(binding: PodBinding): void {
  const errs = validatePodBinding(binding as unknown as Record<string, unknown>);
  if (errs.length) throw unknownServerError(fieldErrorsAggregate(errs));
}

/** assignPod: binds the named pod to the binding's target node. */
/** copyLabels: the binding's labels are written onto the pod (PodTopologyLabelsAdmission). */
export async function assignPod(pods: Store, namespace: string, binding: PodBinding, now: Date, options: { dryRun: boolean; copyLabels: boolean }): Promise<void> {
  const name = binding.metadata.name ?? '';
  const machine = binding.target?.name ?? '';
  const preconditions: DeletePreconditions = {};
  if (binding.metadata.uid) preconditions.uid = binding.metadata.uid;
  if (binding.metadata.resourceVersion) preconditions.resourceVersion = binding.metadata.resourceVersion;
  try {
    await pods.guaranteedUpdate(namespace, name, (pod: KubeObject) => {
      if (pod.metadata.deletionTimestamp) throw new BindingRefused(`pod ${pod.metadata.name} is being deleted, cannot be assigned to a host`);
      const spec = isObject(pod['spec']) ? pod['spec'] : (pod['spec'] = {});
      if (spec['nodeName']) throw new BindingRefused(`pod ${pod.metadata.name} is already assigned to node ${JSON.stringify(spec['nodeName'])}`);
      if (Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length) throw new BindingRefused(`pod ${pod.metadata.name} has non-empty .spec.schedulingGates`);
      spec['nodeName'] = machine;
      const annotations = binding.metadata.annotations ?? {};
      if (Object.keys(annotations).length) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
      // copyLabelsWithOverwriting
      const labels = binding.metadata.labels ?? {};
      if (options.copyLabels && Object.keys(labels).length) pod.metadata.labels = { ...pod.metadata.labels, ...labels };
      const status = isObject(pod['status']) ? pod['status'] : (pod['status'] = {});
      updatePodCondition(status, { type: 'PodScheduled', status: 'True' }, now);
      return pod;
    }, { dryRun: options.dryRun, preconditions });
  } catch (e) {
    if (e instanceof StatusError) throw e;
    if (e instanceof BindingRefused) throw newConflict({ group: '', resource: 'pods/binding' }, name, e.message);
    throw e;
  }
}

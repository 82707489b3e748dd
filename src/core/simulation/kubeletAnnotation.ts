/**
 * Stops a simulated node's kubelet while the Node carries it (`kubectl annotate node node-1 kubesim.io/kubelet=stopped`),
 * as a machine that went down: no heartbeat, no status, its pods left as they are. Removing it starts the kubelet again.
 * A module of its own so the workbench reads the same names without the simulation's code.
 */
export const kubeletStoppedAnnotation = 'kubesim.io/kubelet';
export const kubeletStoppedValue = 'stopped';

/** Whether the Node's kubelet is stopped (its annotation says so). */
export const isKubeletStopped = (node: { metadata: { annotations?: Record<string, string> } } | undefined): boolean => node?.metadata.annotations?.[kubeletStoppedAnnotation] === kubeletStoppedValue;

/**
 * Nodes: the live node cards (readiness, cordon, taints, allocated
 * resources, bound pods), the Pending column with the scheduler's reasons,
 * and the cordon and kubelet actions as kubectl sends them.
 */
export { NodesPanel } from './NodesPanel';
export { nodePatch, patchNode, type NodeAction, type NodePatch } from './actions';
export { allocatedResources, placePods, readyCondition, summarizeNode, summarizePending, summarizePod, type Allocation, type NodeSummary, type PendingPod, type PodSummary, type PodTone } from './summary';

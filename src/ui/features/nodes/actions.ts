/**
 * The node actions a learner would take with kubectl, as the same PATCHes:
 * `kubectl cordon` / `uncordon` send a strategic merge patch of
 * spec.unschedulable, `kubectl annotate` a JSON merge patch of the
 * annotation (null removes it, as `kubesim.io/kubelet-` does).
 */
import { ApiError, objectPath, statusFrom, type ApiClient, type KubeObject, type ResourceKind } from '../../api';
import { kubeletStoppedAnnotation, kubeletStoppedValue } from '../../../core/simulation/kubeletAnnotation';

export type NodeAction = 'cordon' | 'uncordon' | 'stop-kubelet' | 'start-kubelet';

export interface NodePatch {
  contentType: 'application/strategic-merge-patch+json' | 'application/merge-patch+json';
  body: Record<string, unknown>;
  /** The kubectl command this patch stands for, shown beside the buttons. */
  command: string;
  /** kubectl's --field-manager default for the command, when it has one. */
  fieldManager?: string;
}

export function nodePatch(action: NodeAction, node: string): NodePatch {
  switch (action) {
    case 'cordon':
      return { contentType: 'application/strategic-merge-patch+json', body: { spec: { unschedulable: true } }, command: `kubectl cordon ${node}` };
    case 'uncordon':
      // uncordon sets false, which omitempty drops: the two-way patch clears the field.
      return { contentType: 'application/strategic-merge-patch+json', body: { spec: { unschedulable: null } }, command: `kubectl uncordon ${node}` };
    case 'stop-kubelet':
      return {
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { [kubeletStoppedAnnotation]: kubeletStoppedValue } } },
        command: `kubectl annotate node ${node} ${kubeletStoppedAnnotation}=${kubeletStoppedValue}`,
        fieldManager: 'kubectl-annotate',
      };
    case 'start-kubelet':
      return {
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { [kubeletStoppedAnnotation]: null } } },
        command: `kubectl annotate node ${node} ${kubeletStoppedAnnotation}-`,
        fieldManager: 'kubectl-annotate',
      };
  }
}

/** PATCHes the node as the workbench's user; a refusal throws an ApiError with the server's Status. */
export async function patchNode(client: ApiClient, nodes: ResourceKind, node: string, action: NodeAction): Promise<KubeObject> {
  const patch = nodePatch(action, node);
  const query = patch.fieldManager ? `?${new URLSearchParams({ fieldManager: patch.fieldManager })}` : '';
  const response = await client.fetch(objectPath(nodes, undefined, node) + query, {
    method: 'PATCH',
    headers: { Accept: 'application/json', 'Content-Type': patch.contentType },
    body: JSON.stringify(patch.body),
  });
  if (!response.ok) throw new ApiError(await statusFrom(response));
  return (await response.json()) as KubeObject;
}

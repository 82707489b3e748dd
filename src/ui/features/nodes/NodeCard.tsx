/** One Node: `kubectl get node` STATUS, describe's taints and allocated resources, its pods, and cordon / kubelet actions. */
import { useMutation } from '@tanstack/react-query';
import { useApiClient, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { nodePatch, patchNode, type NodeAction } from './actions';
import { allocatedResources, summarizeNode, summarizePod, type Allocation } from './summary';

interface NodeCardProps {
  node: KubeObject;
  /** The pods bound to this node. */
  pods: readonly KubeObject[];
  /** Every pod, for the requests summed against allocatable (the node's own are picked out). */
  allPods: readonly KubeObject[];
  nodesKind: ResourceKind;
  onOpenPod(pod: KubeObject): void;
}

export function NodeCard({ node, pods, allPods, nodesKind, onOpenPod }: NodeCardProps) {
  const client = useApiClient();
  const summary = summarizeNode(node);
  const allocation = allocatedResources(node, allPods);
  const action = useMutation({ mutationFn: (what: NodeAction) => patchNode(client, nodesKind, summary.name, what) });
  const now = new Date();
  const { ready } = summary;
  const cordonAction: NodeAction = summary.cordoned ? 'uncordon' : 'cordon';
  const kubeletAction: NodeAction = summary.kubeletStopped ? 'start-kubelet' : 'stop-kubelet';

  return (
    <article className={`node-card ${ready.status.toLowerCase()}`} data-testid="node-card" data-name={summary.name} aria-labelledby={`node-${summary.name}`}>
      <header className="node-head">
        <h3 id={`node-${summary.name}`}>{summary.name}</h3>
        <span className={`node-ready ${ready.status.toLowerCase()}`} data-testid="node-ready" data-status={ready.status} title={ready.message}>
          {ready.status}
        </span>
        {ready.reason && (
          <span className="muted" data-testid="node-ready-reason" title={ready.message}>
            {ready.reason}
          </span>
        )}
        {summary.cordoned && (
          <span className="node-flag" data-testid="node-cordoned">
            SchedulingDisabled
          </span>
        )}
        {summary.kubeletStopped && (
          <span className="node-flag stopped" data-testid="node-kubelet-stopped" title="kubesim.io/kubelet=stopped: no heartbeats, no status updates">
            kubelet stopped
          </span>
        )}
      </header>
      {ready.status !== 'Ready' && ready.message && <p className="muted node-message">{ready.message}</p>}
      <dl className="node-facts">
        <dt>Taints</dt>
        <dd data-testid="node-taints">
          {summary.taints.length === 0 ? (
            <span className="muted">&lt;none&gt;</span>
          ) : (
            summary.taints.map((t) => (
              <code key={t} className="taint" data-testid="node-taint">
                {t}
              </code>
            ))
          )}
        </dd>
        {allocation.map((a) => (
          <AllocationRow key={a.resource} allocation={a} />
        ))}
      </dl>
      <div className="node-actions" role="group" aria-label={`Actions on ${summary.name}`}>
        <button type="button" onClick={() => action.mutate(cordonAction)} disabled={action.isPending} title={nodePatch(cordonAction, summary.name).command} data-testid="node-cordon">
          {summary.cordoned ? 'Uncordon' : 'Cordon'}
        </button>
        <button type="button" onClick={() => action.mutate(kubeletAction)} disabled={action.isPending} title={nodePatch(kubeletAction, summary.name).command} data-testid="node-kubelet">
          {summary.kubeletStopped ? 'Start kubelet' : 'Stop kubelet'}
        </button>
        {action.variables && !action.isIdle && (
          <code className="muted node-command" data-testid="node-command" title="What this button sent, as kubectl">
            $ {nodePatch(action.variables, summary.name).command}
          </code>
        )}
      </div>
      {action.error && <StatusError error={action.error} testId="node-action-error" />}
      <h4>
        Pods <span className="muted">({pods.length})</span>
      </h4>
      {pods.length === 0 ? (
        <p className="muted">No pods.</p>
      ) : (
        <ul className="node-pods">
          {pods.map((pod) => {
            const p = summarizePod(pod, now);
            return (
              <li key={`${p.namespace}/${p.name}`} data-testid="node-pod" data-name={p.name} data-namespace={p.namespace} data-status={p.status} data-tone={p.tone}>
                <button type="button" className={`pod-chip ${p.tone}`} onClick={() => onOpenPod(pod)} data-testid="open-pod" title={`${p.status}, ${p.ready} ready: open this pod`}>
                  {p.namespace}/{p.name}
                </button>{' '}
                <span className="pod-status">
                  {p.status} <span title="ready containers">{p.ready}</span>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </article>
  );
}

function AllocationRow({ allocation: a }: { allocation: Allocation }) {
  return (
    <>
      <dt>{a.resource}</dt>
      <dd data-testid={`node-${a.resource}`}>
        <meter min={0} max={100} high={90} value={Math.min(a.percent, 100)} aria-label={`${a.resource} requested`} />{' '}
        {a.requests} ({a.percent}%) of {a.allocatable}
      </dd>
    </>
  );
}

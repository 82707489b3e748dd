/**
 * Nodes: one live card per Node (watched, as an informer would) with its
 * readiness, cordon, taints, allocated resources and the pods bound to it,
 * beside the pods still Pending and what the scheduler said about them.
 */
import { useMemo } from 'react';
import { resourceKey, useWatchedList, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { NodeCard } from './NodeCard';
import { placePods, summarizePending } from './summary';

const WATCHED = ['get', 'list', 'watch', 'patch'];
const FALLBACK_NODES: ResourceKind = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, verbs: WATCHED };
const FALLBACK_PODS: ResourceKind = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: WATCHED };

const coreKind = (kinds: readonly ResourceKind[], resource: string): ResourceKind | undefined => kinds.find((k) => k.group === '' && k.version === 'v1' && k.resource === resource);

export function NodesPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const nodesKind = coreKind(kinds, 'nodes') ?? FALLBACK_NODES;
  const podsKind = coreKind(kinds, 'pods') ?? FALLBACK_PODS;
  const nodes = useWatchedList(nodesKind, undefined);
  const pods = useWatchedList(podsKind, undefined);
  const placement = useMemo(() => placePods(pods.data?.items ?? []), [pods.data]);
  const sortedNodes = useMemo(() => [...(nodes.data?.items ?? [])].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')), [nodes.data]);
  const openPod = useOpenPod(podsKind);
  const showPanel = useWorkbench((s) => s.showPanel);

  return (
    <section className="panel nodes-panel" aria-labelledby="nodes-heading" data-testid="nodes-panel">
      <h2 id="nodes-heading">Nodes: where pods landed, and why not</h2>
      {nodes.error && <StatusError error={nodes.error} testId="nodes-error" />}
      {pods.error && <StatusError error={pods.error} testId="nodes-pods-error" />}
      {nodes.isPending && !nodes.error && <p className="muted">Loading…</p>}
      <div className="nodes-layout">
        <div className="node-cards" data-testid="node-cards">
          {nodes.data && sortedNodes.length === 0 && (
            <div className="nodes-empty" data-testid="nodes-empty">
              <p>
                <strong>No nodes.</strong> This server runs no kubelets, so no pod is ever bound to a node: they all stay Pending.
              </p>
              <p className="muted">
                To get simulated ones, open the <strong>Access</strong> panel, choose a number of <em>Simulated nodes</em> and apply: the server
                then registers <code>node-1</code>… with kubelets and runs a scheduler (as <code>--simulated-nodes</code> on the Node host; a
                scenario sets it with <code>settings.simulatedNodes</code>).
              </p>
              <button type="button" onClick={() => showPanel('access')} data-testid="nodes-open-access">
                Open the Access panel
              </button>
            </div>
          )}
          {sortedNodes.map((node) => (
            <NodeCard key={node.metadata?.name} node={node} pods={placement.byNode.get(node.metadata?.name ?? '') ?? []} allPods={pods.data?.items ?? []} nodesKind={nodesKind} onOpenPod={openPod} />
          ))}
        </div>
        <PendingColumn pods={placement.pending} onOpenPod={openPod} />
      </div>
    </section>
  );
}

function PendingColumn({ pods, onOpenPod }: { pods: readonly KubeObject[]; onOpenPod: (pod: KubeObject) => void }) {
  const now = new Date();
  return (
    <aside className="pending-column" aria-labelledby="pending-heading" data-testid="pending-column">
      <h3 id="pending-heading">Pending ({pods.length})</h3>
      {pods.length === 0 && <p className="muted">Every pod has a node.</p>}
      <ul>
        {pods.map((pod) => {
          const p = summarizePending(pod, now);
          return (
            <li key={`${p.namespace}/${p.name}`} className="pending-pod" data-testid="pending-pod" data-name={p.name} data-namespace={p.namespace}>
              <button type="button" className={`pod-chip ${p.tone}`} onClick={() => onOpenPod(pod)} data-testid="open-pod" title="Open this pod">
                {p.namespace}/{p.name}
              </button>{' '}
              <span className="pod-status">{p.status}</span>
              {p.reason && <span className="muted"> ({p.reason})</span>}
              <p className="scheduler-message" data-testid="pending-message">
                {p.message || <span className="muted">not tried by a scheduler yet</span>}
              </p>
              {p.nominatedNodeName && (
                <p className="muted" data-testid="pending-nominated">
                  Nominated node: <code>{p.nominatedNodeName}</code> (preemption is making room there)
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </aside>
  );
}

/** Opens a pod where the workbench opens objects: the Resources panel's detail pane. */
function useOpenPod(podsKind: ResourceKind): (pod: KubeObject) => void {
  const selectKind = useWorkbench((s) => s.selectKind);
  const selectNamespace = useWorkbench((s) => s.selectNamespace);
  const selectObject = useWorkbench((s) => s.selectObject);
  const showPanel = useWorkbench((s) => s.showPanel);
  return (pod) => {
    const kindKey = resourceKey(podsKind);
    const namespace = pod.metadata?.namespace;
    selectKind(kindKey);
    if (namespace !== undefined) selectNamespace(namespace);
    selectObject({ kindKey, namespace, name: pod.metadata?.name ?? '' });
    showPanel('resources');
  };
}

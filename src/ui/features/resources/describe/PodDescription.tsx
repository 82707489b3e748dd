/** describe pod's sections: where and how the pod runs, its conditions, and its containers in describe's groups. */
import type { KubeObject } from '../../../api';
import { describePod, type ContainerDescription, type ContainerGroup, type StateDescription } from './podDescription';

/** onShowLogs, when given, puts a "logs" action on each container. */
export function PodDescription({ pod, now, onShowLogs }: { pod: KubeObject; now: Date; onShowLogs?: (container: string) => void }) {
  const d = describePod(pod, now);
  return (
    <div className="pod-description" data-testid="pod-description">
      <dl className="describe-facts">
        <dt>Node</dt>
        <dd data-testid="pod-node">{d.node}</dd>
        {d.startTime && (
          <>
            <dt>Start Time</dt>
            <dd>{d.startTime}</dd>
          </>
        )}
        <dt>Status</dt>
        <dd data-testid="pod-status">{d.status}</dd>
        {d.reason && (
          <>
            <dt>Reason</dt>
            <dd data-testid="pod-reason">{d.reason}</dd>
          </>
        )}
        {d.message && (
          <>
            <dt>Message</dt>
            <dd>{d.message}</dd>
          </>
        )}
        <dt>IP</dt>
        <dd>{d.ip}</dd>
        <dt>IPs</dt>
        <dd data-testid="pod-ips">{d.ips.length > 0 ? d.ips.join(', ') : '<none>'}</dd>
        {d.nominatedNodeName && (
          <>
            <dt>NominatedNodeName</dt>
            <dd>{d.nominatedNodeName}</dd>
          </>
        )}
        <dt>QoS Class</dt>
        <dd data-testid="pod-qos">{d.qosClass}</dd>
        <dt title="kubectl get pod: READY and STATUS">Ready</dt>
        <dd data-testid="pod-ready" title="ready containers / containers, sidecars included, as kubectl get pod counts them">
          {d.ready} <span className="muted">({d.printedStatus})</span>
        </dd>
      </dl>
      {d.groups.map((group) => (
        <ContainerGroupSection key={group.title} group={group} onShowLogs={onShowLogs} />
      ))}
      <h3>Conditions</h3>
      {d.conditions.length === 0 ? (
        <p className="muted">&lt;none&gt;</p>
      ) : (
        <table className="describe-table conditions" data-testid="pod-conditions">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {d.conditions.map((c) => (
              <tr key={c.type} data-testid="pod-condition" data-type={c.type} data-status={c.status}>
                <td>{c.type}</td>
                <td>{c.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ContainerGroupSection({ group, onShowLogs }: { group: ContainerGroup; onShowLogs: ((container: string) => void) | undefined }) {
  const id = `containers-${group.title.replace(/\s+/g, '-').toLowerCase()}`;
  return (
    <section className="container-group" aria-labelledby={id} data-testid="container-group" data-title={group.title}>
      <h3 id={id}>
        {group.title}
        {group.containers.length === 0 && <span className="muted"> &lt;none&gt;</span>}
      </h3>
      {group.containers.map((c) => (
        <ContainerCard key={c.name} container={c} group={group.title} onShowLogs={onShowLogs} />
      ))}
    </section>
  );
}

function ContainerCard({ container: c, group, onShowLogs }: { container: ContainerDescription; group: string; onShowLogs: ((container: string) => void) | undefined }) {
  const s = c.status;
  return (
    <article className="container-card" aria-label={`${group}: ${c.name}`} data-testid="container" data-name={c.name} data-group={group} data-state={s?.state.state ?? ''}>
      <h4>
        {c.name}
        {c.sidecar && (
          <span className="sidecar-badge" data-testid="sidecar" title="An init container with restartPolicy: Always keeps running beside the containers">
            sidecar (restartPolicy: Always)
          </span>
        )}
        {onShowLogs && (
          <button type="button" className="link container-logs" onClick={() => onShowLogs(c.name)} title={`kubectl logs -c ${c.name}`} data-testid="container-logs">
            logs
          </button>
        )}
      </h4>
      <dl className="describe-facts">
        {s && (
          <>
            <dt>Container ID</dt>
            <dd className="container-id">{s.containerID}</dd>
          </>
        )}
        <dt>Image</dt>
        <dd>{c.image}</dd>
        {s && (
          <>
            <StateRows label="State" state={s.state} testId="container-state" />
            {s.lastState && <StateRows label="Last State" state={s.lastState} testId="container-last-state" />}
            <dt>Ready</dt>
            <dd data-testid="container-ready">{s.ready ? 'True' : 'False'}</dd>
            <dt>Restart Count</dt>
            <dd data-testid="container-restarts">{s.restartCount}</dd>
          </>
        )}
      </dl>
    </article>
  );
}

function StateRows({ label, state, testId }: { label: string; state: StateDescription; testId: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId} data-state={state.state}>
        <strong>{state.state}</strong>
        {state.details.length > 0 && (
          <dl className="state-details">
            {state.details.map(([k, v]) => (
              <div key={k} data-testid="state-detail" data-label={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        )}
      </dd>
    </>
  );
}

/**
 * The Network panel: which pods of the namespace can open a connection to
 * which (and to the cluster DNS) under its NetworkPolicies, as a matrix; a
 * cell explains its verdict policy by policy, rule by rule. The lists are
 * watched, so the matrix follows policies and pods edited anywhere.
 */
import { useMemo, useState } from 'react';
import { resourceKey, useWatchedList, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { clusterDnsIP } from '../../../core/simulation/clusterDns';
import { useWorkbench } from '../../store';
import { PROTOCOLS, clusterDns, clusterDnsEndpoint, clusterDnsStatus, type ClusterDnsStatus, declaredPortText, defaultPort, explain, judge, podEndpoints, policySummary, policyWorld, portText, protocolOf, reachabilityMatrix, type Column, type ConnectionVerdict, type Endpoint, type EndExplanation, type PolicyWorld, type PortChoice } from './reachability';

const WATCHED = ['get', 'list', 'watch'];
const FALLBACK_PODS: ResourceKind = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: WATCHED };
const FALLBACK_NAMESPACES: ResourceKind = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: WATCHED };
const FALLBACK_SERVICES: ResourceKind = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, verbs: WATCHED };
const FALLBACK_POLICIES: ResourceKind = { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, verbs: WATCHED };

const kindOf = (kinds: readonly ResourceKind[], fallback: ResourceKind): ResourceKind =>
  kinds.find((k) => k.group === fallback.group && k.version === fallback.version && k.resource === fallback.resource) ?? fallback;
/** What tests and the cells' data attributes call an endpoint. */
const nameOf = (e: Endpoint): string => (e.key === clusterDns.key ? 'cluster-dns' : e.label);

interface Cell {
  source: string;
  target: string;
}

export function NetworkPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const namespace = useWorkbench((s) => s.selectedNamespace);
  const policiesKind = kindOf(kinds, FALLBACK_POLICIES);
  const pods = useWatchedList(kindOf(kinds, FALLBACK_PODS), undefined);
  const namespaces = useWatchedList(kindOf(kinds, FALLBACK_NAMESPACES), undefined);
  const policies = useWatchedList(policiesKind, undefined);
  const services = useWatchedList(kindOf(kinds, FALLBACK_SERVICES), undefined);
  const dnsStatus = useMemo(() => clusterDnsStatus(services.data?.items ?? [], pods.data?.items ?? []), [services.data, pods.data]);
  const [ports, setPorts] = useState<Record<string, PortChoice>>({});
  const [cell, setCell] = useState<Cell | null>(null);
  const failed = pods.error ?? namespaces.error ?? policies.error;

  const world = useMemo(() => (namespaces.data && policies.data ? policyWorld(policies.data.items, namespaces.data.items) : undefined), [namespaces.data, policies.data]);
  const endpoints = useMemo(() => podEndpoints(pods.data?.items ?? [], namespace), [pods.data, namespace]);
  const dns = useMemo(() => clusterDnsEndpoint(pods.data?.items ?? []), [pods.data]);
  const columns: Column[] = useMemo(() => [...endpoints, dns].map((target) => ({ target, port: ports[target.key] ?? defaultPort(target) })), [endpoints, dns, ports]);
  const matrix = useMemo(() => (world && pods.data ? reachabilityMatrix(world, endpoints, columns) : undefined), [world, pods.data, endpoints, columns]);
  const scope = namespace ?? 'all namespaces';
  const inScope = (policies.data?.items ?? []).filter((p) => namespace === null || p.metadata?.namespace === namespace);

  return (
    <section className="panel network-panel" aria-labelledby="network-heading" data-testid="network-panel">
      <h2 id="network-heading">Network — NetworkPolicies in {scope}</h2>
      <p className="muted">
        Each cell: does a new connection from the row's pod reach the column's pod on the column's port? It is judged by the same NetworkPolicy code the simulated pod network
        enforces (both ends must allow it: the source's egress, the destination's ingress). Click a cell for why.
      </p>
      {failed && <StatusError error={failed} testId="network-error" />}
      {!matrix && !failed && <p className="muted">Loading…</p>}
      {matrix && endpoints.length === 0 && (
        <p className="muted" data-testid="network-empty">
          No pods in {scope}. Create some (in the Editor, or with kubectl) and they appear here.
        </p>
      )}
      {matrix && world && endpoints.length > 0 && (
        <div className="network-layout">
          <ReachabilityMatrix sources={endpoints} columns={columns} matrix={matrix} selected={cell} onSelect={setCell} onPort={(key, port) => setPorts({ ...ports, [key]: port })} />
          <CellExplanation world={world} cell={cell} sources={endpoints} columns={columns} policies={policies.data?.items ?? []} policiesKind={policiesKind} />
        </div>
      )}
      {matrix && dnsStatus && <DnsServers status={dnsStatus} />}
      {matrix && !cell && (
        <div className="network-policies" data-testid="network-policies">
          <h3>NetworkPolicies in {scope}</h3>
          {inScope.length === 0 && <p className="muted">None: no pod is isolated, so every connection passes.</p>}
          {inScope.map((p) => (
            <PolicyCard key={`${p.metadata?.namespace}/${p.metadata?.name}`} policy={p} policiesKind={policiesKind} />
          ))}
        </div>
      )}
    </section>
  );
}

/** Who answers the DNS column's queries: with no ready pod behind kube-dns every lookup times out, whatever the cells say. */
function DnsServers({ status }: { status: ClusterDnsStatus }) {
  const n = status.ready.length;
  return (
    <p className={n ? 'muted' : 'network-dns-down'} data-testid="network-dns-servers" data-ready={n}>
      {n
        ? `Cluster DNS: ${status.service} (${clusterDnsIP}) sends queries to ${n} ready pod${n === 1 ? '' : 's'}: ${status.ready.join(', ')}.`
        : `Cluster DNS: ${status.service} (${clusterDnsIP}) has no ready pod behind it (${status.pods} selected, none ready): every lookup times out, whatever the policies allow.`}
    </p>
  );
}

function ReachabilityMatrix(props: {
  sources: readonly Endpoint[];
  columns: readonly Column[];
  matrix: ConnectionVerdict[][];
  selected: Cell | null;
  onSelect(cell: Cell): void;
  onPort(key: string, port: PortChoice): void;
}) {
  const { sources, columns, matrix, selected } = props;
  return (
    <div className="network-matrix-wrap">
      <table className="network-matrix" aria-label="Reachability: rows connect to columns" data-testid="network-matrix">
        <thead>
          <tr>
            <th scope="col">from ↓ to →</th>
            {columns.map((c) => (
              <th key={c.target.key} scope="col" data-testid="network-column" data-target={nameOf(c.target)}>
                <EndpointName endpoint={c.target} />
                {c.target.key === clusterDns.key ? <span className="muted">{`${c.port.protocol} ${c.port.port}`}</span> : <PortControl target={c.target} port={c.port} onChange={(port) => props.onPort(c.target.key, port)} />}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sources.map((source, row) => (
            <tr key={source.key}>
              <th scope="row">
                <EndpointName endpoint={source} />
              </th>
              {columns.map((c, col) => {
                const allowed = matrix[row]?.[col]?.allowed ?? false;
                const isSelected = selected?.source === source.key && selected.target === c.target.key;
                return (
                  <td key={c.target.key}>
                    <button
                      type="button"
                      className={`network-cell ${allowed ? 'allowed' : 'dropped'}${isSelected ? ' selected' : ''}`}
                      aria-label={`${source.label} to ${c.target.label} on ${portText(c.port)}: ${allowed ? 'allowed' : 'dropped'}`}
                      aria-pressed={isSelected}
                      onClick={() => props.onSelect({ source: source.key, target: c.target.key })}
                      data-testid="network-cell"
                      data-source={nameOf(source)}
                      data-target={nameOf(c.target)}
                      data-allowed={allowed}
                    >
                      {allowed ? '✓' : '✗'}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function EndpointName({ endpoint }: { endpoint: Endpoint }) {
  const ip = endpoint.peer.ip;
  const title = `${endpoint.namespace}/${endpoint.name}${ip ? ` ${ip}` : ' (no IP yet)'}${endpoint.hostNetwork ? ', host network' : ''}`;
  return (
    <span className="network-endpoint" title={title}>
      {endpoint.label}
      {endpoint.hostNetwork && <span className="muted"> (host)</span>}
    </span>
  );
}

/** The column's port: one the pod declares, or a number typed in over the protocol picked beside it. */
function PortControl({ target, port, onChange }: { target: Endpoint; port: PortChoice; onChange(port: PortChoice): void }) {
  const declared = target.ports.filter((p, i, all) => all.findIndex((q) => q.port === p.port && q.protocol === p.protocol) === i);
  const picked = !port.custom && declared.some((p) => p.port === port.port && p.protocol === port.protocol);
  return (
    <span className="network-port">
      {declared.length > 0 && (
        <select
          value={picked ? portText(port) : 'custom'}
          onChange={(e) => {
            const chosen = declared.find((p) => portText(p) === e.target.value);
            // Switching to a typed port keeps the connection as it was until the user changes it.
            onChange(chosen ? { port: chosen.port, protocol: chosen.protocol } : { ...port, custom: true });
          }}
          aria-label={`Port on ${target.label}`}
          data-testid="network-port"
          data-target={target.label}
        >
          {declared.map((p) => (
            <option key={portText(p)} value={portText(p)}>
              {declaredPortText(p)}
            </option>
          ))}
          <option value="custom">other port…</option>
        </select>
      )}
      {!picked && (
        <span className="network-port-typed">
          <PortNumber target={target} port={port.port} onChange={(n) => onChange({ ...port, port: n, custom: true })} />
          <select value={port.protocol} onChange={(e) => onChange({ ...port, protocol: protocolOf(e.target.value), custom: true })} aria-label={`Protocol on ${target.label}`} data-testid="network-port-protocol" data-target={target.label}>
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </span>
      )}
    </span>
  );
}

/** A typed port: the column follows it once it is a port number, so a half-typed one does not flash through the matrix. */
function PortNumber({ target, port, onChange }: { target: Endpoint; port: number; onChange(port: number): void }) {
  const [text, setText] = useState(String(port));
  return (
    <input
      type="number"
      min={1}
      max={65535}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const n = Number(e.target.value);
        if (Number.isInteger(n) && n >= 1 && n <= 65535) onChange(n);
      }}
      aria-label={`Port number on ${target.label}`}
      data-testid="network-port-number"
      data-target={target.label}
    />
  );
}

function CellExplanation(props: { world: PolicyWorld; cell: Cell | null; sources: readonly Endpoint[]; columns: readonly Column[]; policies: readonly KubeObject[]; policiesKind: ResourceKind }) {
  const source = props.sources.find((s) => s.key === props.cell?.source);
  const column = props.columns.find((c) => c.target.key === props.cell?.target);
  if (!source || !column) return <p className="muted network-hint">Click a cell to see which policy and rule decide it.</p>;
  const e = explain(props.world, judge(props.world, source, column.target, column.port), source, column.target, column.port);
  const involved = [...e.egress.policies, ...e.ingress.policies];
  const objects = involved.map((ref) => props.policies.find((p) => p.metadata?.namespace === ref.namespace && p.metadata.name === ref.name)).filter((p): p is KubeObject => p !== undefined);
  return (
    <div className="network-explanation" role="region" aria-label="Why" data-testid="network-explanation">
      <h3>
        {source.label} → {column.target.label} on {portText(column.port)}
      </h3>
      <p className={`network-summary ${e.allowed ? 'allowed' : 'dropped'}`} data-testid="network-summary" data-allowed={e.allowed}>
        {e.summary}
      </p>
      <EndDetail end={e.egress} title={`${source.label}'s egress`} />
      <EndDetail end={e.ingress} title={`${column.target.label}'s ingress`} />
      {objects.map((p) => (
        <PolicyCard key={`${p.metadata?.namespace}/${p.metadata?.name}`} policy={p} policiesKind={props.policiesKind} />
      ))}
    </div>
  );
}

function EndDetail({ end, title }: { end: EndExplanation; title: string }) {
  return (
    <div className="network-end" data-testid="network-end" data-direction={end.direction} data-allowed={end.allowed}>
      <h4>
        {title}: {end.allowed ? 'allows' : 'drops'}
      </h4>
      <p>{end.sentence}</p>
      {end.rules.length > 0 && (
        <ul>
          {end.rules.map((r) => (
            <li key={`${r.policy}/${r.rule ?? 0}`} className={r.allows ? 'allows' : undefined} data-testid="network-rule" data-policy={r.policy} data-rule={r.rule ?? ''} data-allows={r.allows}>
              {r.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function PolicyCard({ policy, policiesKind }: { policy: KubeObject; policiesKind: ResourceKind }) {
  const open = useOpenObject(policiesKind);
  return (
    <div className="network-policy" data-testid="network-policy" data-name={policy.metadata?.name}>
      <pre>{policySummary(policy)}</pre>
      <button type="button" onClick={() => open(policy)} data-testid="network-open-policy">
        Open in Resources
      </button>
    </div>
  );
}

/** Opens an object where the workbench opens objects: the Resources panel's detail pane. */
function useOpenObject(kind: ResourceKind): (object: KubeObject) => void {
  const selectKind = useWorkbench((s) => s.selectKind);
  const selectNamespace = useWorkbench((s) => s.selectNamespace);
  const selectObject = useWorkbench((s) => s.selectObject);
  const showPanel = useWorkbench((s) => s.showPanel);
  return (object) => {
    const kindKey = resourceKey(kind);
    const namespace = object.metadata?.namespace;
    selectKind(kindKey);
    if (namespace !== undefined) selectNamespace(namespace);
    selectObject({ kindKey, namespace, name: object.metadata?.name ?? '' });
    showPanel('resources');
  };
}

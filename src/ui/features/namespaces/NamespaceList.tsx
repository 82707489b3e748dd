/** The sidebar of namespaces; choosing one scopes lists and creates. */
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { useNamespaces } from './useNamespaces';

export function NamespaceList() {
  const { data, error, isPending } = useNamespaces();
  const selected = useWorkbench((s) => s.selectedNamespace);
  const select = useWorkbench((s) => s.selectNamespace);

  return (
    <nav className="namespaces" aria-label="Namespaces" data-testid="namespace-list">
      <h2>Namespaces</h2>
      {isPending && <p className="muted">Loading…</p>}
      {error && <StatusError error={error} testId="namespaces-error" />}
      <ul>
        <li>
          <button type="button" className={selected === null ? 'selected' : ''} onClick={() => select(null)} data-testid="namespace-all">
            All namespaces
          </button>
        </li>
        {data?.items.map((ns) => {
          const name = ns.metadata?.name ?? '';
          const phase = ns.status?.phase;
          return (
            <li key={name}>
              <button
                type="button"
                className={selected === name ? 'selected' : ''}
                onClick={() => select(name)}
                data-testid="namespace-item"
                data-name={name}
              >
                {name}
                {phase && phase !== 'Active' && <span className="badge">{phase}</span>}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

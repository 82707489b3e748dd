/** The workbench's first screen: namespaces on the left, objects of a kind, and a YAML create form. */
import { CreateFromYaml } from '../features/create';
import { NamespaceList } from '../features/namespaces';
import { KindSelect, ResourceTable, useResourceKinds, useSelectedKind } from '../features/resources';
import { useWorkbench } from '../store';

export function App() {
  const { kinds, discovered } = useResourceKinds();
  const kind = useSelectedKind(kinds);
  const namespace = useWorkbench((s) => s.selectedNamespace);
  const connection = useWorkbench((s) => s.connection);

  return (
    <div className="workbench" data-testid="workbench">
      <header className="topbar">
        <h1>kubesim</h1>
        <span className="muted">a Kubernetes API server in this tab</span>
        {connection.state === 'ready' && connection.stale && (
          <span className="warning" role="status">
            The service worker comes from another build; reload to update it.
          </span>
        )}
      </header>
      <NamespaceList />
      <main className="content">
        <div className="toolbar">
          <KindSelect kinds={kinds} discovered={discovered} />
        </div>
        <ResourceTable kind={kind} namespace={namespace} />
        <CreateFromYaml kinds={kinds} />
      </main>
    </div>
  );
}

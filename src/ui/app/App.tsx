/**
 * The workbench: namespaces on the left, a tab bar of panels. Panels other
 * than Resources are code-split, so the first screen needs none of them.
 */
import { lazy, Suspense, useEffect } from 'react';
import { peekResume } from '../features/scenarios/resume';
import { scenarioFromFragment } from '../features/scenarios/share';
import { NamespaceList } from '../features/namespaces';
import { KindSelect, LabelSelectorInput, ObjectDetail, ResourceTable, useResourceKinds, useSelectedKind } from '../features/resources';
import { useWorkbench } from '../store';
import { PanelTabs } from './PanelTabs';

const EditorPanel = lazy(() => import('../features/editor/EditorPanel').then((m) => ({ default: m.EditorPanel })));
const WatchPanel = lazy(() => import('../features/watch/WatchPanel').then((m) => ({ default: m.WatchPanel })));
const CelPanel = lazy(() => import('../features/cel/CelPanel').then((m) => ({ default: m.CelPanel })));
const ScenarioPanel = lazy(() => import('../features/scenarios/ScenarioPanel').then((m) => ({ default: m.ScenarioPanel })));
const RbacPanel = lazy(() => import('../features/rbac/RbacPanel').then((m) => ({ default: m.RbacPanel })));
const NetworkPanel = lazy(() => import('../features/network/NetworkPanel').then((m) => ({ default: m.NetworkPanel })));
const TracePanel = lazy(() => import('../features/trace/TracePanel').then((m) => ({ default: m.TracePanel })));
const AccessPanel = lazy(() => import('../features/access/AccessPanel').then((m) => ({ default: m.AccessPanel })));
const UpgradePanel = lazy(() => import('../features/upgrade/UpgradePanel').then((m) => ({ default: m.UpgradePanel })));
const NodesPanel = lazy(() => import('../features/nodes/NodesPanel').then((m) => ({ default: m.NodesPanel })));
const OwnershipPanel = lazy(() => import('../features/ownership/OwnershipPanel').then((m) => ({ default: m.OwnershipPanel })));

export function App() {
  const { kinds, discovered } = useResourceKinds();
  const kind = useSelectedKind(kinds);
  const namespace = useWorkbench((s) => s.selectedNamespace);
  const connection = useWorkbench((s) => s.connection);
  const panel = useWorkbench((s) => s.panel);
  const selected = useWorkbench((s) => s.selectedObject);
  useScenarioLink();
  const selectedKind = selected ? kinds.find((k) => `${k.group}/${k.version}/${k.resource}` === selected.kindKey) : undefined;

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
        <PanelTabs />
        <div role="tabpanel" id={`panel-${panel}`} aria-labelledby={`tab-${panel}`} className="panel-body">
          <Suspense fallback={<p className="muted">Loading…</p>}>
            {panel === 'resources' && (
              <>
                <div className="toolbar">
                  <KindSelect kinds={kinds} discovered={discovered} />
                  <LabelSelectorInput />
                </div>
                <div className="split">
                  <ResourceTable kind={kind} namespace={namespace} />
                  {selected && selectedKind && <ObjectDetail key={`${selected.kindKey}/${selected.namespace}/${selected.name}`} kind={selectedKind} namespace={selected.namespace} name={selected.name} />}
                </div>
              </>
            )}
            {panel === 'editor' && <EditorPanel kinds={kinds} />}
            {panel === 'ownership' && <OwnershipPanel kinds={kinds} />}
            {panel === 'watch' && <WatchPanel kinds={kinds} />}
            {panel === 'cel' && <CelPanel />}
            {panel === 'rbac' && <RbacPanel kinds={kinds} />}
            {panel === 'network' && <NetworkPanel kinds={kinds} />}
            {panel === 'scenarios' && <ScenarioPanel />}
            {panel === 'trace' && <TracePanel />}
            {panel === 'access' && <AccessPanel />}
            {panel === 'upgrade' && <UpgradePanel />}
            {panel === 'nodes' && <NodesPanel kinds={kinds} />}
          </Suspense>
        </div>
      </main>
    </div>
  );
}

/** A link with `#scenario=...` opens the Scenarios panel with that scenario; so does a scenario run resuming after its reload. */
function useScenarioLink(): void {
  const setDraft = useWorkbench((s) => s.setScenarioDraft);
  const showPanel = useWorkbench((s) => s.showPanel);
  useEffect(() => {
    const resume = peekResume();
    if (resume) {
      setDraft(resume.draft);
      showPanel('scenarios');
      return;
    }
    let cancelled = false;
    void scenarioFromFragment(location.hash).then(
      (text) => {
        if (cancelled || text === undefined) return;
        setDraft(text);
        showPanel('scenarios');
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [setDraft, showPanel]);
}

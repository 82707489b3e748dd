/**
 * The workbench's one bound zustand store, combined from the feature slices.
 * It holds browser-side state only (selections, drafts, the worker
 * connection); server data lives in react-query.
 */
import { create } from 'zustand';
import { createTabsSlice, type TabsSlice } from './app/tabsSlice';
import { createCelSlice, type CelSlice } from './features/cel/celSlice';
import { createConnectionSlice, type ConnectionSlice } from './features/connection/connectionSlice';
import { createEditorSlice, type EditorSlice } from './features/editor/editorSlice';
import { createNamespacesSlice, type NamespacesSlice } from './features/namespaces/namespacesSlice';
import { createScenarioSlice, type ScenarioSlice } from './features/scenarios/scenarioSlice';
import { createTraceSlice, type TraceSlice } from './features/trace/traceSlice';
import { createResourcesSlice, type ResourcesSlice } from './features/resources/resourcesSlice';

export type WorkbenchState = ConnectionSlice & TabsSlice & NamespacesSlice & ResourcesSlice & EditorSlice & CelSlice & ScenarioSlice & TraceSlice;

export const useWorkbench = create<WorkbenchState>()((...a) => ({
  ...createConnectionSlice(...a),
  ...createTabsSlice(...a),
  ...createNamespacesSlice(...a),
  ...createResourcesSlice(...a),
  ...createEditorSlice(...a),
  ...createCelSlice(...a),
  ...createScenarioSlice(...a),
  ...createTraceSlice(...a),
}));

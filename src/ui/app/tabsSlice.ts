import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../store';

/** The workbench's panels, in the order of the tab bar. */
export const PANELS = ['resources', 'editor', 'ownership', 'watch', 'cel', 'rbac', 'network', 'scenarios', 'trace', 'access', 'upgrade', 'nodes'] as const;
export type Panel = (typeof PANELS)[number];

export interface TabsSlice {
  panel: Panel;
  showPanel(panel: Panel): void;
}

export const createTabsSlice: StateCreator<WorkbenchState, [], [], TabsSlice> = (set) => ({
  panel: 'resources',
  showPanel: (panel) => set({ panel }),
});

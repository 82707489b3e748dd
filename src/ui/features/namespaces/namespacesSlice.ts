import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export interface NamespacesSlice {
  /** The namespace lists and creates go to; null lists across all namespaces. */
  selectedNamespace: string | null;
  selectNamespace(namespace: string | null): void;
}

export const createNamespacesSlice: StateCreator<WorkbenchState, [], [], NamespacesSlice> = (set) => ({
  selectedNamespace: 'default',
  selectNamespace: (selectedNamespace) => set({ selectedNamespace }),
});

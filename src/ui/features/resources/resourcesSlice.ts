import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export interface ResourcesSlice {
  /** resourceKey() of the kind being listed, e.g. '/v1/configmaps'. */
  selectedKindKey: string;
  selectKind(key: string): void;
}

export const createResourcesSlice: StateCreator<WorkbenchState, [], [], ResourcesSlice> = (set) => ({
  selectedKindKey: '/v1/configmaps',
  selectKind: (selectedKindKey) => set({ selectedKindKey }),
});

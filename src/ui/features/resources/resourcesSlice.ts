import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

/** The object shown in the detail pane: its kind's resourceKey() and where it lives. */
export interface ObjectRef {
  kindKey: string;
  namespace: string | undefined;
  name: string;
}

export interface ResourcesSlice {
  /** resourceKey() of the kind being listed, e.g. '/v1/configmaps'. */
  selectedKindKey: string;
  selectKind(key: string): void;
  /** The labelSelector lists and watches send, as typed (e.g. `app=web,tier!=db`). */
  labelSelector: string;
  setLabelSelector(selector: string): void;
  selectedObject: ObjectRef | null;
  selectObject(ref: ObjectRef | null): void;
}

export const createResourcesSlice: StateCreator<WorkbenchState, [], [], ResourcesSlice> = (set) => ({
  selectedKindKey: '/v1/configmaps',
  selectKind: (selectedKindKey) => set({ selectedKindKey, selectedObject: null }),
  labelSelector: '',
  setLabelSelector: (labelSelector) => set({ labelSelector }),
  selectedObject: null,
  selectObject: (selectedObject) => set({ selectedObject }),
});

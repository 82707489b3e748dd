import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export const EXAMPLE_MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: example
data:
  greeting: hello
`;

export interface CreateSlice {
  /** The YAML being edited; kept while the user switches namespaces or kinds. */
  manifestDraft: string;
  setManifestDraft(text: string): void;
}

export const createCreateSlice: StateCreator<WorkbenchState, [], [], CreateSlice> = (set) => ({
  manifestDraft: EXAMPLE_MANIFEST,
  setManifestDraft: (manifestDraft) => set({ manifestDraft }),
});

import type { StateCreator } from 'zustand';
import type { Status } from '../../api';
import type { WorkbenchState } from '../../store';

export const EXAMPLE_MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: example
data:
  greeting: hello
`;

/** The field manager recorded in managedFields for the workbench's writes, unless the user picks another. */
export const FIELD_MANAGER = 'kubesim-workbench';

export type FieldValidation = '' | 'Ignore' | 'Warn' | 'Strict';

/** A server-side apply that failed with 409 Conflict: what was applied, where, and the server's Status. */
export interface ApplyConflict {
  manifest: string;
  path: string;
  fieldManager: string;
  status: Status;
}

export interface EditorSlice {
  /** The YAML being edited; kept while the user switches panels, namespaces or kinds. */
  manifestDraft: string;
  setManifestDraft(text: string): void;
  fieldManager: string;
  setFieldManager(name: string): void;
  force: boolean;
  setForce(force: boolean): void;
  dryRun: boolean;
  setDryRun(dryRun: boolean): void;
  /** '' sends no fieldValidation, leaving the server's default (Warn). */
  fieldValidation: FieldValidation;
  setFieldValidation(level: FieldValidation): void;
  applyConflict: ApplyConflict | null;
  setApplyConflict(conflict: ApplyConflict | null): void;
}

export const createEditorSlice: StateCreator<WorkbenchState, [], [], EditorSlice> = (set) => ({
  manifestDraft: EXAMPLE_MANIFEST,
  setManifestDraft: (manifestDraft) => set({ manifestDraft }),
  fieldManager: FIELD_MANAGER,
  setFieldManager: (fieldManager) => set({ fieldManager }),
  force: false,
  setForce: (force) => set({ force }),
  dryRun: false,
  setDryRun: (dryRun) => set({ dryRun }),
  fieldValidation: '',
  setFieldValidation: (fieldValidation) => set({ fieldValidation }),
  applyConflict: null,
  setApplyConflict: (applyConflict) => set({ applyConflict }),
});

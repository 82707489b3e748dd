/**
 * The workbench's one bound zustand store, combined from the feature slices.
 * It holds browser-side state only (selections, drafts, the worker
 * connection); server data lives in react-query.
 */
import { create } from 'zustand';
import { createConnectionSlice, type ConnectionSlice } from './features/connection/connectionSlice';
import { createCreateSlice, type CreateSlice } from './features/create/createSlice';
import { createNamespacesSlice, type NamespacesSlice } from './features/namespaces/namespacesSlice';
import { createResourcesSlice, type ResourcesSlice } from './features/resources/resourcesSlice';

export type WorkbenchState = ConnectionSlice & NamespacesSlice & ResourcesSlice & CreateSlice;

export const useWorkbench = create<WorkbenchState>()((...a) => ({
  ...createConnectionSlice(...a),
  ...createNamespacesSlice(...a),
  ...createResourcesSlice(...a),
  ...createCreateSlice(...a),
}));

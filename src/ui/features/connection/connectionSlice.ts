import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export type Connection =
  | { state: 'connecting' }
  | { state: 'ready'; buildId: string; stale: boolean }
  | { state: 'failed'; message: string };

export interface ConnectionSlice {
  connection: Connection;
  setConnection(connection: Connection): void;
}

export const createConnectionSlice: StateCreator<WorkbenchState, [], [], ConnectionSlice> = (set) => ({
  connection: { state: 'connecting' },
  setConnection: (connection) => set({ connection }),
});

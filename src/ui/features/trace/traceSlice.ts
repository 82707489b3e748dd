import type { StateCreator } from 'zustand';
import type { Exchange } from '../../api';
import type { WorkbenchState } from '../../store';

/** How many of the latest requests the Trace panel keeps. */
export const TRACE_LIMIT = 100;

export interface TracedExchange extends Exchange {
  id: number;
}

export interface TraceSlice {
  exchanges: TracedExchange[];
  recordExchange(exchange: Exchange): void;
  clearExchanges(): void;
}

let nextId = 1;

export const createTraceSlice: StateCreator<WorkbenchState, [], [], TraceSlice> = (set) => ({
  exchanges: [],
  recordExchange: (exchange) => set((s) => ({ exchanges: [{ ...exchange, id: nextId++ }, ...s.exchanges].slice(0, TRACE_LIMIT) })),
  clearExchanges: () => set({ exchanges: [] }),
});

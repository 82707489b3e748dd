import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export const CEL_ENVIRONMENTS = ['plain', 'crd', 'admission', 'authentication', 'authorization'] as const;
export type CelEnvironment = (typeof CEL_ENVIRONMENTS)[number];

/** The CEL lab's inputs, kept while the user switches panels. */
export interface CelSlice {
  celExpression: string;
  celEnvironment: CelEnvironment;
  /** The environment's variables as YAML (self, oldSelf, object, claims, request...). */
  celVariables: string;
  /** The OpenAPI schema typing self and oldSelf, as YAML (crd environment). */
  celSchema: string;
  setCel(patch: Partial<Pick<CelSlice, 'celExpression' | 'celEnvironment' | 'celVariables' | 'celSchema'>>): void;
}

export const createCelSlice: StateCreator<WorkbenchState, [], [], CelSlice> = (set) => ({
  celExpression: "'hello'.upperAscii()",
  celEnvironment: 'plain',
  celVariables: '',
  celSchema: 'type: object\n',
  setCel: (patch) => set(patch),
});

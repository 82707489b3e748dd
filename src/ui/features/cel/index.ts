/** The CEL lab: evaluations through cel.kubesim.dev, examples per library, and its slice. */
export { CelPanel } from './CelPanel';
export { CEL_EXAMPLES, type CelExample } from './examples';
export { buildEvaluation, errorMarkers, EVALUATIONS_PATH } from './evaluation';
export { createCelSlice, CEL_ENVIRONMENTS, type CelEnvironment, type CelSlice } from './celSlice';

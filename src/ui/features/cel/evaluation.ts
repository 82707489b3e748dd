/**
 * The CEL lab's request and reading of the answer: an Evaluation posted to
 * cel.kubesim.dev, and its error text split into positioned problems
 * (`ERROR: <input>:1:5: message`, as cel-go formats issues).
 */
import { parse } from 'yaml';
import type { EditorMarker } from '../../monaco';
import type { CelEnvironment } from './celSlice';

export const EVALUATIONS_PATH = '/apis/cel.kubesim.dev/v1alpha1/evaluations';

export interface EvaluationStatus {
  value?: unknown;
  type?: string;
  error?: string;
  errorExpression?: string;
  cost?: number;
  estimatedCost?: { min?: number | string; max?: number | string };
  /** the API server's limits for the runtime cost and (CRD rules) the estimate, with how far over each the figure is */
  costLimits?: { name: string; limit: number; value: number | string; exceededBy?: number | string }[];
  warnings?: string[];
}

/** One line per limit: the figure against the limit, and by how much it is over. */
export function describeLimit(l: NonNullable<EvaluationStatus['costLimits']>[number]): string {
  const what = l.name === 'PerCallLimit' ? 'runtime cost' : 'estimated max';
  return l.exceededBy === undefined ? `${what} ${l.value} within ${l.name} ${l.limit}` : `${what} ${l.value} exceeds ${l.name} ${l.limit} by ${l.exceededBy}`;
}

export interface Evaluation {
  apiVersion: 'cel.kubesim.dev/v1alpha1';
  kind: 'Evaluation';
  spec: { expression: string; environment: CelEnvironment; variables?: unknown; schema?: unknown };
  status?: EvaluationStatus;
}

export type Built = { ok: true; evaluation: Evaluation } | { ok: false; message: string };

/** Builds the Evaluation; YAML that does not parse to a mapping is reported before any request. */
export function buildEvaluation(expression: string, environment: CelEnvironment, variables: string, schema: string): Built {
  const vars = parseMapping(variables, 'variables');
  if (!vars.ok) return vars;
  const spec: Evaluation['spec'] = { expression, environment };
  if (vars.value !== undefined) spec.variables = vars.value;
  if (environment === 'crd') {
    const parsedSchema = parseMapping(schema, 'schema');
    if (!parsedSchema.ok) return parsedSchema;
    if (parsedSchema.value !== undefined) spec.schema = parsedSchema.value;
  }
  return { ok: true, evaluation: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec } };
}

function parseMapping(text: string, what: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    const value: unknown = parse(text);
    if (value === null || value === undefined) return { ok: true, value: undefined };
    if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: `${what} must be a YAML mapping` };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `${what}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The problems in a CEL error text, with their 1-based positions in the expression. */
export function errorMarkers(error: string | undefined): EditorMarker[] {
  if (!error) return [];
  const markers: EditorMarker[] = [];
  for (const match of error.matchAll(/ERROR: <input>:(\d+):(\d+): ([^\n]*)/g)) {
    markers.push({ line: Number(match[1]), column: Number(match[2]), message: match[3]!, severity: 'error' });
  }
  return markers;
}

/** A value as JSON text (the API returns ints beyond 2^53 as strings already). */
export function formatValue(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

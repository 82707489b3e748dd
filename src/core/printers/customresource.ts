/**
 * Tables for custom resources, as apiextensions-apiserver builds them from a
 * CRD version's additionalPrinterColumns: a Name column, then one column per
 * printer column (an Age column on .metadata.creationTimestamp when the CRD
 * declares none). Cells come from each column's JSONPath; date cells are
 * printed as ages on the server, other types keep their JSON value.
 */

import { column, describe, doc } from './columns';
import { humanDuration, parseTimestamp } from './duration';
import { compareStrings } from './format';
import type {
  CustomResourceColumnDefinition as CustomResourceColumn,
  KubeObject,
  Printer,
  TableCell,
  TableColumnDefinition,
} from './types';


type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: Step[]; op?: '==' | '!=' | '<' | '>' | '<=' | '>='; value?: string | number | boolean };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses the JSONPath forms printer columns use: .a.b, ['a'], [0], [*], .*, [?(@.a=="x")]. Undefined when unsupported. */
export function parseColumnPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = 0;
  const text = path.trim().replace(/^\{(.*)\}$/, '$1').replace(/^\$/, '');
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      if (text[i] === '*') {
        steps.push({ kind: 'wildcard' });
        i++;
        continue;
      }
      const match = /^[^.[\]]+/.exec(text.slice(i));
      if (!match) return undefined;
      steps.push({ kind: 'field', name: match[0] });
      i += match[0].length;
    } else if (text[i] === '[') {
      const close = findClose(text, i);
      if (close < 0) return undefined;
      const inner = text.slice(i + 1, close).trim();
      i = close + 1;
      const step = parseBracket(inner);
      if (!step) return undefined;
      steps.push(step);
    } else {
      return undefined;
    }
  }
  return steps;
}

function findClose(text: string, open: number): number {
  let quote: string | undefined;
  for (let j = open + 1; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === ']') {
      return j;
    }
  }
  return -1;
}

function parseLiteral(text: string): string | number | boolean | undefined {
  const t = text.trim();
  if (/^(["']).*\1$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return undefined;
}

function parseBracket(inner: string): Step | undefined {
  if (inner === '*') return { kind: 'wildcard' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const quoted = /^(["'])(.*)\1$/.exec(inner);
  if (quoted) return { kind: 'field', name: quoted[2] };
  const filter = /^\?\(\s*@(.*?)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/.exec(inner);
  if (!filter) return undefined;
  const path = parseColumnPath(filter[1]);
  if (!path) return undefined;
  if (!filter[2]) return { kind: 'filter', path };
  const value = parseLiteral(filter[3]);
  if (value === undefined) return undefined;
  return { kind: 'filter', path, op: filter[2] as '==', value };
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isRecord(value)) return Object.keys(value).sort(compareStrings).map((k) => value[k]);
  return [];
}

function compare(left: unknown, op: NonNullable<Extract<Step, { kind: 'filter' }>['op']>, right: string | number | boolean): boolean {
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== 'number' || typeof right !== 'number') return false;
      return op === '<' ? left < right : op === '>' ? left > right : op === '<=' ? left <= right : left >= right;
    }
  }
}

/** Every value the path selects, in document order. */
export function evaluateColumnPath(steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      switch (step.kind) {
        case 'field':
          if (isRecord(value) && step.name in value) next.push(value[step.name]);
          break;
        case 'index':
          if (Array.isArray(value)) {
            const index = step.index < 0 ? value.length + step.index : step.index;
            if (index >= 0 && index < value.length) next.push(value[index]);
          }
          break;
        case 'wildcard':
          next.push(...children(value));
          break;
        case 'filter':
          for (const item of children(value)) {
            const found = evaluateColumnPath(step.path, item);
            if (step.op === undefined ? found.length > 0 : found.some((f) => compare(f, step.op!, step.value!))) {
              next.push(item);
            }
          }
          break;
      }
    }
    current = next;
  }
  return current;
}

/** Go's %v of a decoded JSON value, as the JSONPath printer writes string cells. */
function goValueString(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValueString).join(' ')}]`;
  if (isRecord(value)) {
    const entries = Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${k}:${goValueString(value[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(value);
}

/** cellForJSONValue: the value converted to the column type, or null when it does not fit. */
function cellFor(type: string, value: unknown, now: Date): TableCell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      return goValueString(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (Number.isNaN(Date.parse(value))) return '<invalid>';
      const ms = parseTimestamp(value);
      return ms === undefined ? '<unknown>' : humanDuration(now.getTime() - ms);
    }
    default:
      return null;
  }
}

/** The columns a CRD version serves when it declares no additionalPrinterColumns. */
export const DEFAULT_CUSTOM_RESOURCE_COLUMNS: readonly CustomResourceColumn[] = [
  {
    name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp',
    get description() {
      return describe(doc('meta.v1.ObjectMeta.creationTimestamp'));
    },
  },
];

/** A printer for one CRD version's printer columns. */
export function customResourcePrinter(printerColumns: readonly CustomResourceColumn[]): Printer {
  const declared = printerColumns.length > 0 ? printerColumns : DEFAULT_CUSTOM_RESOURCE_COLUMNS;
  const paths = declared.map((c) => parseColumnPath(c.jsonPath));
  const columns: TableColumnDefinition[] = [
    column('Name', 'string', doc('meta.v1.ObjectMeta.name'), { format: 'name' }),
    ...declared.map((c) => column(c.name, c.type, c.description ?? '', { format: c.format ?? '', priority: c.priority ?? 0 })),
  ];
  return {
    columns,
    row(obj: KubeObject, { now }) {
      const cells: TableCell[] = [obj.metadata?.name ?? ''];
      declared.forEach((c, i) => {
        const steps = paths[i];
        const results = steps ? evaluateColumnPath(steps, obj) : [];
        cells.push(results.length === 0 ? null : cellFor(c.type, results[0], now));
      });
      return { cells };
    },
  };
}

// Debug printer for ASTs, in the spirit of cel-go's debug.ToDebugString:
// every node prints with its id (`^#id`), and an optional adorner appends
// checker results (`:type`). Golden tests of each pass compare this output.

import type { Expr } from './ast';
import { CelUint, type CelValue } from './common/values';

export type Adorner = (e: Expr) => string;

function literal(v: CelValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return String(v);
  if (v instanceof CelUint) return `${v.v}u`;
  if (v instanceof Uint8Array) return `b${JSON.stringify(new TextDecoder().decode(v))}`;
  if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(1) : String(v);
  return String(v);
}

export function debugString(e: Expr, adorn: Adorner = () => ''): string {
  const p = (x: Expr): string => debugString(x, adorn);
  const tag = `^#${e.id}${adorn(e)}`;
  switch (e.kind) {
    case 'const':
      return `${literal(e.value)}${tag}`;
    case 'ident':
      return `${e.name}${tag}`;
    case 'select':
      return e.testOnly ? `${p(e.operand)}.${e.field}~test-only~${tag}` : `${p(e.operand)}.${e.field}${tag}`;
    case 'call':
      return `${e.target ? `${p(e.target)}.` : ''}${e.fn}(${e.args.map(p).join(', ')})${tag}`;
    case 'list':
      return `[${e.elements.map((x, i) => (e.optionalIndices.includes(i) ? '?' : '') + p(x)).join(', ')}]${tag}`;
    case 'map':
      return `{${e.entries.map((en) => `${en.optional ? '?' : ''}${p(en.key)}:${p(en.value)}^#${en.id}`).join(', ')}}${tag}`;
    case 'struct':
      return `${e.typeName}{${e.fields.map((f) => `${f.optional ? '?' : ''}${f.name}:${p(f.value)}^#${f.id}`).join(', ')}}${tag}`;
    case 'comprehension':
      return (
        `__comprehension__(\n` +
        `  // Variable\n  ${e.iterVar}${e.iterVar2 !== undefined ? `, ${e.iterVar2}` : ''},\n` +
        `  // Target\n  ${p(e.iterRange)},\n` +
        `  // Accumulator\n  ${e.accuVar},\n` +
        `  // Init\n  ${p(e.accuInit)},\n` +
        `  // LoopCondition\n  ${p(e.loopCondition)},\n` +
        `  // LoopStep\n  ${p(e.loopStep)},\n` +
        `  // Result\n  ${p(e.result)})${tag}`
      );
  }
}

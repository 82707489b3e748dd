/**
 * Field selectors (k8s.io/apimachinery/pkg/fields): comma-separated terms
 * `field=value`, `field==value` or `field!=value`, all of which must hold.
 * Values may escape `\`, `,` and `=` with a backslash. A field an object does
 * not carry reads as the empty string.
 */
import { SelectorError } from './selectorError';

/** `==` parses to `=`, as upstream keeps only Equals and NotEquals terms. */
export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

export type Fields = Readonly<Record<string, string>>;

/** Maps a field label and value to new ones (field label conversion), or fails. */
export type FieldTransform = (field: string, value: string) => { field: string; value: string } | SelectorError;

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  matches(fields: Fields): boolean;
  empty(): boolean;
  /** Terms joined with `,`, values escaped. */
  toString(): string;
  /** The value an `=` term requires for `field` (e.g. `metadata.name` for single-object list/watch). */
  requiresExactMatch(field: string): string | undefined;
  /** Applies `fn` to every term; a term turned into an empty field and value is dropped. */
  transform(fn: FieldTransform): FieldSelector | SelectorError;
}

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  matches(fields: Fields): boolean {
    return this.requirements.every((r) => {
      const have = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field]! : '';
      return r.operator === '=' ? have === r.value : have !== r.value;
    });
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }

  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.operator === '=' && r.field === field)?.value;
  }

  transform(fn: FieldTransform): FieldSelector | SelectorError {
    const next: FieldRequirement[] = [];
    for (const r of this.requirements) {
      const t = fn(r.field, r.value);
      if (t instanceof SelectorError) return t;
      if (t.field === '' && t.value === '') continue;
      next.push({ field: t.field, operator: r.operator, value: t.value });
    }
    return new TermsSelector(next);
  }
}

export const everythingFieldSelector = (): FieldSelector => new TermsSelector([]);

/** fields.SelectorFromSet: every entry must match exactly. */
export function fieldSelectorFromSet(set: Fields): FieldSelector {
  return new TermsSelector(Object.keys(set).map((field) => ({ field, operator: '=' as const, value: set[field]! })));
}

/** fields.EscapeValue: makes any literal usable as a selector value. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.UnescapeValue, with upstream's messages (a bad rune prints as its code point, like Go's %v). */
export function unescapeFieldValue(value: string): string | SelectorError {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else return new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') return new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) return new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; the backslashes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// `==` is tried before `=` so the value does not keep a leading `=`.
const termOperators = ['!=', '==', '='] as const;

/** The first operator found splits the term: the field part cannot escape anything. */
function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go's sort.Strings order: by UTF-8 bytes, which for these strings is code point order. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * fields.ParseSelector: the `fieldSelector` query parameter. The empty string
 * selects everything; terms come back in sorted order.
 */
export function parseFieldSelector(selector: string): FieldSelector | SelectorError {
  const parts = splitTerms(selector).sort(byteOrder);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) return new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    if (value instanceof SelectorError) return value;
    // Upstream runs an identity transform here, which drops a bare "=" term.
    if (term.lhs === '' && value === '') continue;
    reqs.push({ field: term.lhs, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return new TermsSelector(reqs);
}

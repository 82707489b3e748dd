/**
 * Label selectors: the string grammar of k8s.io/apimachinery/pkg/labels
 * (`=`, `==`, `!=`, `in`, `notin`, `key`, `!key`, `>`, `<`) and the
 * metav1.LabelSelector object form ({matchLabels, matchExpressions}).
 * Parse errors carry upstream's exact wording, because kubectl shows them
 * verbatim ("unable to parse requirement: ...").
 */
import { SelectorError } from './selectorError';
import { fieldErrorString, fieldErrorsAggregate, forbidden, goQuote, goStringSlice, invalid, required, type FieldError } from '../errors';
import { validateLabels } from '../validation/labels';
import { isQualifiedName, isValidLabelValue } from '../validation/names';

/** selection.Operator values; `!` is DoesNotExist, `gt`/`lt` compare integers. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted for `in`/`notin` parsed from strings; one value for exact and numeric operators; none for exists. */
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>>;

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** All requirements hold (AND). Missing labels never satisfy `=`, `in`, `exists`, `gt`, `lt`. */
  matches(labels: Labels | undefined): boolean;
  /** True when the selector restricts nothing (it selects everything). */
  empty(): boolean;
  /** Canonical form: requirements sorted by key, `in` values sorted. */
  toString(): string;
  /** The single value a key must have (`=`, `==`, or `in` with one value), if any. */
  requiresExactMatch(key: string): string | undefined;
}

const binaryOperators: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

const hasOwn = (labels: Labels, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return n;
}

function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return hasOwn(labels, r.key) && r.values.includes(labels[r.key]!);
    case 'notin':
    case '!=':
      return !hasOwn(labels, r.key) || !r.values.includes(labels[r.key]!);
    case 'exists':
      return hasOwn(labels, r.key);
    case '!':
      return !hasOwn(labels, r.key);
    case 'gt':
    case 'lt': {
      if (!hasOwn(labels, r.key) || r.values.length !== 1) return false;
      const have = parseInt64(labels[r.key]!);
      const want = parseInt64(r.values[0]!);
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

export function requirementToString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${[...r.values].sort().join(',')})`;
    case 'gt':
      return `${r.key}>${r.values.join(',')}`;
    case 'lt':
      return `${r.key}<${r.values.join(',')}`;
    default:
      return `${r.key}${r.operator}${[...r.values].sort().join(',')}`;
  }
}

class RequirementsSelector implements LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}
  matches(labels: Labels | undefined): boolean {
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((req) => req.key === key);
    if (!r) return undefined;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
}

/** labels.Nothing(): what a nil metav1.LabelSelector means. It is not empty and matches nothing. */
class NothingSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[] = [];
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  toString(): string {
    return '';
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
}

export const everythingLabelSelector = (): LabelSelector => new RequirementsSelector([]);
export const nothingLabelSelector = (): LabelSelector => new NothingSelector();

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function validateLabelKey(key: string, path: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalid(path, key, errs.join('; ')) : undefined;
}

/** field.Invalid at `values` with the values printed as Go's %#v of a []string. */
function invalidValues(values: readonly string[] | null, detail: string): FieldError {
  return { ...invalid('values', values, detail), valueText: goStringSlice(values) };
}

/**
 * labels.NewRequirement with no field path: key errors at `key`, value errors
 * at `values[i][key]`, operator/arity errors at `values`.
 * `values === null` stands for a nil Go slice (rendered `[]string(nil)`).
 */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[] | null,
): LabelRequirement | FieldError[] {
  const errs: FieldError[] = [];
  const keyErr = validateLabelKey(key, 'key');
  if (keyErr) errs.push(keyErr);
  const vals = values ?? [];
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(invalidValues(values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(invalidValues(values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(invalidValues(values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(invalidValues(values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  vals.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  return errs.length ? errs : { key, operator, values: [...vals] };
}

// ---- lexer -----------------------------------------------------------------

type Token =
  | 'error'
  | 'eos'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const literalTokens: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

interface ScannedItem {
  tok: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';
const END = '\0';

/** Scans the whole selector up front, as upstream does, so the parser can look ahead. */
function scan(s: string): ScannedItem[] {
  let pos = 0;
  // Like the Go lexer, a NUL character reads the same as the end of input.
  const read = (): string => (pos < s.length ? s[pos++]! : (pos++, END));
  const unread = (): void => {
    pos--;
  };

  const scanIdOrKeyword = (): ScannedItem => {
    let buf = '';
    for (;;) {
      const ch = read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        unread();
        break;
      }
      buf += ch;
    }
    return { tok: literalTokens.get(buf) ?? 'identifier', literal: buf };
  };

  const scanSpecialSymbol = (): ScannedItem => {
    let last: ScannedItem | undefined;
    let buf = '';
    for (;;) {
      const ch = read();
      if (ch === END) break;
      if (!isSpecialSymbol(ch)) {
        unread();
        break;
      }
      buf += ch;
      const tok = literalTokens.get(buf);
      if (tok) last = { tok, literal: buf };
      else if (last) {
        unread();
        break;
      }
    }
    return last ?? { tok: 'error', literal: `error expected: keyword found '${buf}'` };
  };

  const items: ScannedItem[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    let item: ScannedItem;
    if (ch === END) item = { tok: 'eos', literal: '' };
    else {
      unread();
      item = isSpecialSymbol(ch) ? scanSpecialSymbol() : scanIdOrKeyword();
    }
    items.push(item);
    if (item.tok === 'eos') return items;
  }
}

// ---- parser ----------------------------------------------------------------

class ParseError {
  constructor(readonly message: string) {}
}

/** In value position the keywords `in` and `notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private position = 0;
  constructor(private readonly items: ScannedItem[]) {}

  private lookahead(ctx: Context): ScannedItem {
    return this.asContext(this.items[this.position]!, ctx);
  }

  private consume(ctx: Context): ScannedItem {
    const item = this.items[this.position]!;
    // Never step past the end marker.
    if (item.tok !== 'eos') this.position++;
    return this.asContext(item, ctx);
  }

  private asContext(item: ScannedItem, ctx: Context): ScannedItem {
    if (ctx === 'values' && (item.tok === 'in' || item.tok === 'notin')) return { tok: 'identifier', literal: item.literal };
    return item;
  }

  parse(): LabelRequirement[] | ParseError {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead('values');
      if (tok === 'eos') return reqs;
      if (tok !== 'identifier' && tok !== '!') {
        return new ParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      const r = this.parseRequirement();
      if (r instanceof ParseError) return new ParseError(`unable to parse requirement: ${r.message}`);
      reqs.push(r);
      const next = this.consume('values');
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') return new ParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead('values');
      if (after.tok !== 'identifier' && after.tok !== '!') {
        return new ParseError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement | ParseError {
    const keyOp = this.parseKeyAndInferOperator();
    if (keyOp instanceof ParseError) return keyOp;
    const { key } = keyOp;
    if (keyOp.operator === 'exists' || keyOp.operator === '!') return finish(newRequirement(key, keyOp.operator, []));
    const operator = this.parseOperator();
    if (operator instanceof ParseError) return operator;
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    if (values instanceof ParseError) return values;
    return finish(newRequirement(key, operator, [...values].sort()));
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } | ParseError {
    let operator: LabelOperator | undefined;
    let item = this.consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== 'identifier') return new ParseError(`found '${item.literal}', expected: identifier`);
    const keyErr = validateLabelKey(item.literal, '<nil>');
    if (keyErr) return new ParseError(fieldErrorString(keyErr));
    const next = this.lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator | ParseError {
    const { tok, literal } = this.consume('keyAndOperator');
    switch (tok) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        return new ParseError(`found '${literal}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  /** `(a,b,c)`; empty members are the empty string, duplicates collapse. */
  private parseValues(): Set<string> | ParseError {
    const open = this.consume('values');
    if (open.tok !== '(') return new ParseError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead('values');
    if (tok === 'identifier' || tok === ',') {
      const set = this.parseIdentifiersList();
      if (set instanceof ParseError) return set;
      if (this.consume('values').tok !== ')') return new ParseError(`found '${literal}', expected: ')'`);
      return set;
    }
    if (tok === ')') {
      this.consume('values');
      return new Set(['']);
    }
    return new ParseError(`found '${literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> | ParseError {
    const set = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume('values');
      if (tok === 'identifier') {
        set.add(literal);
        const next = this.lookahead('values');
        if (next.tok === ',') continue;
        if (next.tok === ')') return set;
        return new ParseError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (set.size === 0) set.add(''); // "(,"
        const next = this.lookahead('values').tok;
        if (next === ')') {
          set.add(''); // ",)"
          return set;
        }
        if (next === ',') {
          this.consume('values');
          set.add(''); // ",,"
        }
        continue;
      }
      return new ParseError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> | ParseError {
    const next = this.lookahead('values').tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, literal } = this.consume('values');
    if (tok === 'identifier') return new Set([literal]);
    return new ParseError(`found '${literal}', expected: identifier`);
  }
}

function finish(r: LabelRequirement | FieldError[]): LabelRequirement | ParseError {
  return Array.isArray(r) ? new ParseError(fieldErrorsAggregate(r)) : r;
}

/**
 * labels.Parse: the `labelSelector` query parameter. The empty string selects
 * everything. Requirements come back sorted by key.
 */
export function parseLabelSelector(selector: string): LabelSelector | SelectorError {
  const result = new Parser(scan(selector)).parse();
  if (result instanceof ParseError) return new SelectorError(result.message);
  return new RequirementsSelector(sortByKey(result));
}

// ---- metav1.LabelSelector ----------------------------------------------------

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector as it appears in workload specs, policies and aggregation rules. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const objectOperators: ReadonlyMap<string, LabelOperator> = new Map<string, LabelOperator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

/**
 * metav1.LabelSelectorAsSelector: null/undefined selects nothing, an empty
 * selector selects everything. Errors carry upstream's messages; objects are
 * normally validated first with {@link validateLabelSelector}.
 */
export function labelSelectorFromObject(ps: LabelSelectorObject | null | undefined): LabelSelector | SelectorError {
  if (ps === null || ps === undefined) return nothingLabelSelector();
  const matchLabels = ps.matchLabels ?? {};
  const expressions = ps.matchExpressions ?? [];
  if (Object.keys(matchLabels).length + expressions.length === 0) return everythingLabelSelector();
  const reqs: LabelRequirement[] = [];
  for (const key of Object.keys(matchLabels).sort()) {
    const r = newRequirement(key, '=', [matchLabels[key]!]);
    if (Array.isArray(r)) return new SelectorError(fieldErrorsAggregate(r));
    reqs.push(r);
  }
  for (const expr of expressions) {
    const op = objectOperators.get(expr.operator);
    if (!op) return new SelectorError(`${goQuote(expr.operator)} is not a valid label selector operator`);
    // Go copies the values with append([]string(nil), ...), so "none" is a nil slice.
    const values = expr.values && expr.values.length ? [...expr.values] : null;
    const r = newRequirement(expr.key, op, values);
    if (Array.isArray(r)) return new SelectorError(fieldErrorsAggregate(r));
    reqs.push(r);
  }
  return new RequirementsSelector(sortByKey(reqs));
}

export interface LabelSelectorValidationOptions {
  /** Kept for objects stored before values were validated (upstream's AllowInvalidLabelValueInSelector). */
  allowInvalidLabelValueInSelector?: boolean;
}

/**
 * metav1validation.ValidateLabelSelector: the field errors a create or update
 * of an object carrying a label selector (at `fldPath`, e.g. `spec.selector`) gets.
 */
export function validateLabelSelector(
  ps: LabelSelectorObject | null | undefined,
  fldPath: string,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (ps === null || ps === undefined) return [];
  const errs = validateLabels(ps.matchLabels, `${fldPath}.matchLabels`);
  (ps.matchExpressions ?? []).forEach((sr, i) => {
    const path = `${fldPath}.matchExpressions[${i}]`;
    const values = sr.values ?? [];
    switch (sr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(`${path}.operator`, sr.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(sr.key)) errs.push(invalid(`${path}.key`, sr.key, msg));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, vi) => {
        for (const msg of isValidLabelValue(v)) errs.push(invalid(`${path}.values[${vi}]`, v, msg));
      });
    }
  });
  return errs;
}

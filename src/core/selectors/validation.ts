/**
 * Label key and value rules (k8s.io/apimachinery/pkg/util/validation) and the
 * Go-style rendering of field errors that selector parse messages embed.
 * The wording is kept byte-for-byte so clients that match on messages work.
 */

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const labelValueMaxLength = 63;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainMaxLength = 253;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

/** Same shape as upstream's RegexError, including its double space before "or". */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

const emptyError = (): string => 'must be non-empty';
const maxLenError = (length: number): string => `must be no more than ${length} characters`;

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** A label key: optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (name.length > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Go's %q for a string: double quotes, Go escapes for control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\t': out += '\\t'; break;
      case '\r': out += '\\r'; break;
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      default:
        out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return `${out}"`;
}

/** Go's %#v for a []string: `[]string{"a", "b"}`, or `[]string(nil)` for a nil slice. */
export function goStringSlice(values: readonly string[] | null): string {
  if (values === null) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** The error types of k8s.io/apimachinery/pkg/util/validation/field that selectors produce. */
export type FieldErrorType = 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden';

/**
 * One field error, as upstream's field.Error: `field` is the rendered path
 * (`<nil>` when there is none, as upstream prints a nil path), `badValue` is
 * already rendered Go-style, `message` is the full Error() string.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly badValue?: string;
  readonly detail: string;
  readonly message: string;
}

const typeWords: Record<FieldErrorType, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueForbidden: 'Forbidden',
};

function fieldError(type: FieldErrorType, field: string, detail: string, badValue?: string): FieldError {
  let body = typeWords[type];
  if (type === 'FieldValueInvalid' && badValue !== undefined) body += `: ${badValue}`;
  if (detail) body += `: ${detail}`;
  return { type, field, badValue, detail, message: `${field}: ${body}` };
}

/** field.Invalid with a string bad value (rendered with %q). */
export const invalidString = (field: string, value: string, detail: string): FieldError =>
  fieldError('FieldValueInvalid', field, detail, goQuote(value));
/** field.Invalid with a bad value already rendered (for slices). */
export const invalidRendered = (field: string, rendered: string, detail: string): FieldError =>
  fieldError('FieldValueInvalid', field, detail, rendered);
export const required = (field: string, detail: string): FieldError => fieldError('FieldValueRequired', field, detail);
export const forbidden = (field: string, detail: string): FieldError => fieldError('FieldValueForbidden', field, detail);

/** errors.Aggregate's Error(): one message alone, several de-duplicated inside brackets. */
export function aggregateMessage(errs: readonly FieldError[]): string {
  const seen: string[] = [];
  for (const e of errs) if (!seen.includes(e.message)) seen.push(e.message);
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

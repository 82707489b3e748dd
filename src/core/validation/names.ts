/**
 * Name and label syntax (k8s.io/apimachinery/pkg/util/validation), with the
 * exact messages kube-apiserver returns.
 */

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

const maxLenMsg = (n: number) => `must be no more than ${n} characters`;

function regexError(msg: string, fmt: string, examples: string[]): string {
  let s = msg;
  if (examples.length) s += ` (e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}`;
  else s += ' (';
  s += `, regex used for validation is '${fmt}')`;
  return s;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenMsg(63));
  if (!dns1123LabelRe.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, ['my-name', '123-abc']));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenMsg(253));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, ['example.com']));
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenMsg(63));
  if (!dns1035LabelRe.test(value)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, ['my-name', 'abc-123']));
  }
  return errs;
}

/** Names that only need to be safe as a URL path segment (RBAC objects and others). */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (value.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, ['MyName', 'my.name', '123-abc']) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenMsg(63)}`);
  if (name.length > 0 && !qualifiedNameRe.test(name)) {
    errs.push(regexError("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, ['MyName', 'my.name', '123-abc']));
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenMsg(63));
  if (!labelValueRe.test(value)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, ['MyValue', 'my_value', '12345']));
  }
  return errs;
}

export type NameValidator = (name: string, prefix: boolean) => string[];

/** The apiserver validates generateName prefixes with a trailing '-' stripped. */
function withPrefix(fn: (v: string) => string[]): NameValidator {
  return (name, prefix) => fn(prefix ? name.replace(/-+$/, '') || name : name);
}

export const nameIsDNSSubdomain = withPrefix(isDNS1123Subdomain);
export const nameIsDNSLabel = withPrefix(isDNS1123Label);
export const nameIsDNS1035Label = withPrefix(isDNS1035Label);
export const nameIsPathSegment: NameValidator = (name) => isValidPathSegmentName(name);

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
const emptyMsg = 'must be non-empty';

/** Upstream's RegexError, including the double space its examples get before "or". */
function regexError(msg: string, fmt: string, examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/*
 * The checks below first run a character loop that proves a value valid
 * without allocating: names, label keys and values are nearly always valid,
 * and a fresh one (every Pod's name) then costs no pattern match. A value the
 * loop does not vouch for goes through the patterns, which word the errors.
 */

const isLowerAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
const isAlnum = (c: number) => isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (`[a-z]` first for DNS-1035) over value[from, to). */
function dnsLabelAt(value: string, from: number, to: number, alphaFirst: boolean): boolean {
  if (to <= from) return false;
  const first = value.charCodeAt(from);
  if (alphaFirst ? !(first >= 0x61 && first <= 0x7a) : !isLowerAlnum(first)) return false;
  if (!isLowerAlnum(value.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i);
    if (c !== 0x2d && !isLowerAlnum(c)) return false;
  }
  return true;
}

/** dns1123SubdomainFmt over value[from, to): labels joined by dots. */
function dnsSubdomainAt(value: string, from: number, to: number): boolean {
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i < to && value.charCodeAt(i) !== 0x2e) continue;
    if (!dnsLabelAt(value, start, i, false)) return false;
    start = i + 1;
  }
  return true;
}

/** qualifiedNameFmt over value[from, to): `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. */
function qualifiedNamePartAt(value: string, from: number, to: number): boolean {
  if (to <= from || !isAlnum(value.charCodeAt(from)) || !isAlnum(value.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i);
    if (c !== 0x2d && c !== 0x5f && c !== 0x2e && !isAlnum(c)) return false;
  }
  return true;
}

/** The shape of upstream's IsDNS1123Label and kin: a length limit, then a pattern. */
function lengthAndPattern(max: number, valid: (value: string) => boolean, re: RegExp, msg: string, fmt: string, examples: string[]): (value: string) => string[] {
  return (value) => {
    if (value.length <= max && valid(value)) return [];
    const errs: string[] = [];
    if (value.length > max) errs.push(maxLenMsg(max));
    if (!re.test(value)) errs.push(regexError(msg, fmt, examples));
    return errs;
  };
}

export const isDNS1123Label = lengthAndPattern(
  63,
  (v) => dnsLabelAt(v, 0, v.length, false),
  dns1123LabelRe,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  dns1123LabelFmt,
  ['my-name', '123-abc'],
);

export const isDNS1123Subdomain = lengthAndPattern(
  253,
  (v) => dnsSubdomainAt(v, 0, v.length),
  dns1123SubdomainRe,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  dns1123SubdomainFmt,
  ['example.com'],
);

export const isDNS1035Label = lengthAndPattern(
  63,
  (v) => dnsLabelAt(v, 0, v.length, true),
  dns1035LabelRe,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  dns1035LabelFmt,
  ['my-name', 'abc-123'],
);

/** Names that only need to be safe as a URL path segment (RBAC objects and others). */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (value.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/** A label key or similar: optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const slash = value.indexOf('/');
  const valid =
    slash < 0
      ? value.length <= 63 && qualifiedNamePartAt(value, 0, value.length)
      : slash <= 253 && value.indexOf('/', slash + 1) < 0 && value.length - slash - 1 <= 63 && dnsSubdomainAt(value, 0, slash) && qualifiedNamePartAt(value, slash + 1, value.length);
  return valid ? [] : qualifiedNameErrors(value);
}

function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyMsg}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, ['MyName', 'my.name', '123-abc']) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyMsg}`);
  else if (name.length > 63) errs.push(`name part ${maxLenMsg(63)}`);
  // Upstream also reports the pattern for an empty name part.
  if (!qualifiedNameRe.test(name)) {
    errs.push(regexError("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, ['MyName', 'my.name', '123-abc']));
  }
  return errs;
}

export const isValidLabelValue = lengthAndPattern(
  63,
  (v) => v.length === 0 || qualifiedNamePartAt(v, 0, v.length),
  labelValueRe,
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  labelValueFmt,
  ['MyValue', 'my_value', '12345'],
);

export type NameValidator = (name: string, prefix: boolean) => string[];

/** The apiserver validates generateName prefixes with a trailing '-' stripped. */
function withPrefix(fn: (v: string) => string[]): NameValidator {
  return (name, prefix) => fn(prefix ? name.replace(/-+$/, '') || name : name);
}

export const nameIsDNSSubdomain = withPrefix(isDNS1123Subdomain);
export const nameIsDNSLabel = withPrefix(isDNS1123Label);
export const nameIsDNS1035Label = withPrefix(isDNS1035Label);
export const nameIsPathSegment: NameValidator = (name) => isValidPathSegmentName(name);

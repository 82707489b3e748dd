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

/** Valid values each check remembers before it starts over. */
const rememberedLimit = 4096;

/**
 * A check that remembers the values it found valid: label keys and values,
 * container and port names repeat from one object to the next, and a valid
 * one then costs a lookup instead of a split and a pattern match.
 */
function remembering(check: (value: string) => string[]): (value: string) => string[] {
  const valid = new Set<string>();
  return (value) => {
    if (valid.has(value)) return [];
    const errs = check(value);
    if (errs.length === 0) {
      if (valid.size >= rememberedLimit) valid.clear();
      valid.add(value);
    }
    return errs;
  };
}

/** The shape of upstream's IsDNS1123Label and kin: a length limit, then a pattern. */
function lengthAndPattern(max: number, re: RegExp, msg: string, fmt: string, examples: string[]): (value: string) => string[] {
  return remembering((value) => {
    const errs: string[] = [];
    if (value.length > max) errs.push(maxLenMsg(max));
    if (!re.test(value)) errs.push(regexError(msg, fmt, examples));
    return errs;
  });
}

export const isDNS1123Label = lengthAndPattern(
  63,
  dns1123LabelRe,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  dns1123LabelFmt,
  ['my-name', '123-abc'],
);

export const isDNS1123Subdomain = lengthAndPattern(
  253,
  dns1123SubdomainRe,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  dns1123SubdomainFmt,
  ['example.com'],
);

export const isDNS1035Label = lengthAndPattern(
  63,
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
export const isQualifiedName = remembering(qualifiedNameErrors);

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

// Kubernetes format library (1.31+): format.<name>() and format.named(name)
// return a Format whose validate(string) yields optional.none() when valid or
// optional.of(list of error messages), with the API server's messages.

import { parseTimestamp } from '../../common/time';
import { CelError, CelOpaque, CelOptional, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';

type Validator = (s: string) => string[];

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';

const maxLen = (n: number, s: string): string[] => (s.length > n ? [`must be no more than ${n} characters`] : []);
const re = (p: string): RegExp => new RegExp(`^(?:${p})$`);

const dns1123Label: Validator = (s) => [
  ...maxLen(63, s),
  ...(re(DNS1123_LABEL).test(s) ? [] : [`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`]),
];
const dns1123Subdomain: Validator = (s) => [
  ...maxLen(253, s),
  ...(re(DNS1123_SUBDOMAIN).test(s) ? [] : [`a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`]),
];
const dns1035Label: Validator = (s) => [
  ...maxLen(63, s),
  ...(re(DNS1035_LABEL).test(s) ? [] : [`a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL}')`]),
];
const prefix = (v: Validator): Validator => (s) => v(s.endsWith('-') ? s.slice(0, -1) + 'a' : s);
const qualifiedName: Validator = (s) => {
  const parts = s.split('/');
  let name = s;
  const errs: string[] = [];
  if (parts.length === 2) {
    if (parts[0] === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(parts[0]!).map((e) => `prefix part ${e}`));
    name = parts[1]!;
  } else if (parts.length > 2) {
    return [`a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length && !re(QUALIFIED_NAME).test(name)) {
    errs.push(`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`);
  }
  return errs;
};
const labelValue: Validator = (s) => [
  ...maxLen(63, s),
  ...(re(LABEL_VALUE).test(s) ? [] : [`a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`]),
];
const FORMATS: Record<string, Validator> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefix(dns1123Label),
  dns1123SubdomainPrefix: prefix(dns1123Subdomain),
  dns1035LabelPrefix: prefix(dns1035Label),
  labelValue,
  uri: (s) => (/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(s) ? [] : ['invalid URI']),
  uuid: (s) => (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !(parseTimestamp(`${s}T00:00:00Z`) instanceof CelError) ? [] : ['invalid date']),
  datetime: (s) => (parseTimestamp(s) instanceof CelError ? ['invalid datetime'] : []),
};

export class CelFormat extends CelOpaque {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly validate: Validator,
  ) {
    super();
  }
  equal(o: CelValue): boolean {
    return o instanceof CelFormat && o.name === this.name;
  }
}

export function k8sFormatLibrary(): Library {
  const F = 'kubernetes.NamedFormat';
  const ov = [
    def('format_named', `format.named(string) -> optional(${F})`, (n) => {
      const v = FORMATS[n as string];
      return v ? new CelOptional(new CelFormat(n as string, v)) : CelOptional.NONE;
    }),
    def('format_validate', `${F}.validate(string) -> optional(list(string))`, (f, s) => {
      const errs = (f as CelFormat).validate(s as string);
      return errs.length ? new CelOptional(errs) : CelOptional.NONE;
    }),
  ];
  for (const [name, v] of Object.entries(FORMATS)) {
    ov.push(def(`format_${name}`, `format.${name}() -> ${F}`, () => new CelFormat(name, v)));
  }
  return { name: 'k8s.format', overloads: ov };
}

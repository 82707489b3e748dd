// Kubernetes format library (1.31+): format.<name>() and format.named(name)
// return a Format whose validate(string) yields optional.none() when valid or
// optional.of(list of error messages), with the API server's messages.

import { parseTimestamp } from '../../common/time';
import { CelError, CelOpaque, CelOptional, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../validation/names';
import { isValidPortName } from '../../../validation/values';

type Validator = (s: string) => string[];

// The name and label rules are the API server's own validation (src/core/validation), messages included.
const dns1123Label: Validator = isDNS1123Label;
const dns1123Subdomain: Validator = isDNS1123Subdomain;
const dns1035Label: Validator = isDNS1035Label;
const qualifiedName: Validator = isQualifiedName;
const labelValue: Validator = isValidLabelValue;
/** A prefix (generateName) may end in '-': checked with that dash masked, as the API server does. */
const prefix = (v: Validator): Validator => (s) => v(s.endsWith('-') ? s.slice(0, -1) + 'a' : s);
const FORMATS: Record<string, Validator> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  portName: isValidPortName,
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

/** the largest format string size (cel.MaxFormatSize) */
export const MAX_FORMAT_SIZE = 64;
/** the regex size the estimator assumes for any named format (cel.MaxNameFormatRegexSize) */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;

/** Length of the longest regex behind each format, which prices its validate() at runtime (the API server's MaxRegexSize). */
const MAX_REGEX_SIZE: Record<string, number> = {
  dns1123Label: 30,
  dns1123Subdomain: 60,
  dns1035Label: 30,
  qualifiedName: 60,
  portName: 20,
  dns1123LabelPrefix: 30,
  dns1123SubdomainPrefix: 60,
  dns1035LabelPrefix: 30,
  labelValue: 40,
};

export class CelFormat extends CelOpaque {
  readonly typeName = 'kubernetes.NamedFormat';
  readonly maxRegexSize: number;
  constructor(
    readonly name: string,
    readonly validate: Validator,
  ) {
    super();
    this.maxRegexSize = MAX_REGEX_SIZE[name] ?? MAX_NAME_FORMAT_REGEX_SIZE;
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
  return { name: 'k8s.format', overloads: ov, types: ['kubernetes.NamedFormat'] };
}

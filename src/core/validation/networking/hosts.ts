/** Host names in Ingress rules and TLS entries (IsWildcardDNS1123Subdomain, IsDNS1123Subdomain). */
import { invalid, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isDNS1123Subdomain } from '../names';

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const wildcardFmt = `\\*\\.${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const wildcardRe = new RegExp(`^${wildcardFmt}$`);

export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!wildcardRe.test(value)) {
    errs.push(
      `a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '${wildcardFmt}')`,
    );
  }
  return errs;
}

/** A host that may be a wildcard. */
export function validateHost(host: string, fld: Path): FieldError[] {
  const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  return msgs.map((m) => invalid(String(fld), host, m));
}

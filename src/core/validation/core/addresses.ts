/** IP address checks shared by Endpoints and EndpointSlices (IsValidIPForLegacyField, ValidateNonSpecialIP). */
import { invalid, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { parseIP } from '../net';

export const ipMsg = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export function validateIPForLegacyField(ip: string, fld: Path): FieldError[] {
  if (!ip) return [required(String(fld))];
  return parseIP(ip) ? [] : [invalid(String(fld), ip, ipMsg)];
}

/** Addresses that cannot be an endpoint: unspecified, loopback, link-local. */
export function validateNonSpecialIP(ip: string, fld: Path): FieldError[] {
  const parsed = parseIP(ip);
  if (!parsed) return [invalid(String(fld), ip, 'must be a valid IP address')];
  const b = parsed.bytes;
  const errs: FieldError[] = [];
  const f = String(fld);
  if (parsed.v4) {
    const [a, c, d] = [b[12]!, b[13]!, b[14]!];
    if (b.slice(12).every((x) => x === 0)) errs.push(invalid(f, ip, `may not be unspecified (${ip})`));
    if (a === 127) errs.push(invalid(f, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
    if (a === 169 && c === 254) errs.push(invalid(f, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
    if (a === 224 && c === 0 && d === 0) errs.push(invalid(f, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  } else {
    if (b.every((x) => x === 0)) errs.push(invalid(f, ip, `may not be unspecified (${ip})`));
    if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) errs.push(invalid(f, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
    if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) errs.push(invalid(f, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
    if (b[0] === 0xff && (b[1]! & 0x0f) === 0x02) errs.push(invalid(f, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

/** IntOrString values that are a count or a percentage (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent). */
import { goQuote, invalid, type FieldError } from '../errors';
import type { Path } from './field';

const percentFmt = '[0-9]+%';
const percentRe = new RegExp(`^${percentFmt}$`);

/** Go's %#v of an intstr.IntOrString value. */
export function intOrStringText(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  return `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
}

const invalidIntOrString = (fld: Path, v: unknown, detail: string): FieldError => ({ ...invalid(String(fld), null, detail), valueText: intOrStringText(v) });

export function validatePositiveIntOrPercent(v: unknown, fld: Path): FieldError[] {
  if (typeof v === 'string') {
    if (percentRe.test(v)) return [];
    return [invalidIntOrString(fld, v, `a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '${percentFmt}')`)];
  }
  if (typeof v === 'number') return v < 0 ? [invalid(String(fld), v, 'must be greater than or equal to 0')] : [];
  return [invalidIntOrString(fld, v, "must be an integer or percentage (e.g '5%')")];
}

export function isNotMoreThan100Percent(v: unknown, fld: Path): FieldError[] {
  if (typeof v !== 'string' || !percentRe.test(v)) return [];
  return Number(v.slice(0, -1)) > 100 ? [invalidIntOrString(fld, v, 'must not be greater than 100%')] : [];
}

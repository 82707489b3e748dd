/**
 * ServiceCIDR (ValidateServiceCIDR / ValidateServiceCIDRUpdate): one or two
 * CIDRs, strictly parsed and canonical, one per IP family. They never
 * change, except that a single-stack range may gain its second family.
 */
import { goStringSlice, invalid, required, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { validateConditions } from '../metav1';
import { parseCIDR } from '../net';
import { fieldImmutableErrorMsg, invalidText, obj, strs } from '../values';
import { isValidCIDR } from './netip';

const cidrsPath = newPath('spec', 'cidrs');
/** %#v of the spec, as kube passes the whole spec as the invalid value. */
const specText = (cidrs: string[]) => `networking.ServiceCIDRSpec{CIDRs:${goStringSlice(cidrs)}}`;
const dualStackMsg = 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64';

const cidrErrors = (cidr: string, i: number): FieldError[] => isValidCIDR(cidr).map((m) => invalid(String(cidrsPath.index(i)), cidr, m));

/** IsDualStackCIDRStrings: both parse, and they are of different families. */
function isDualStack(cidrs: string[]): boolean {
  const [a, b] = cidrs.map(parseCIDR);
  return !!a && !!b && a.v4 !== b.v4;
}

function validateServiceCIDR(o: Record<string, unknown>): FieldError[] {
  const cidrs = strs(obj(o, 'spec'), 'cidrs');
  if (cidrs.length === 0) return [required(String(cidrsPath), 'at least one CIDR required')];
  if (cidrs.length > 2) return [invalidText(cidrsPath, specText(cidrs), 'may only hold up to 2 values')];
  const errs = cidrs.flatMap(cidrErrors);
  if (cidrs.length === 2 && !isDualStack(cidrs)) errs.push(invalidText(cidrsPath, specText(cidrs), dualStackMsg));
  return errs;
}

function validateServiceCIDRUpdate(o: Record<string, unknown>, old: Record<string, unknown>): FieldError[] {
  const next = strs(obj(o, 'spec'), 'cidrs');
  const prev = strs(obj(old, 'spec'), 'cidrs');
  const changed = (i: number) => (next[i] !== prev[i] ? [invalid(String(cidrsPath.index(i)), next[i], fieldImmutableErrorMsg)] : []);
  if (next.length === prev.length) return next.flatMap((_, i) => changed(i));
  // Adding the second family turns a single-stack range dual-stack (kubernetes/kubernetes#131261).
  if (prev.length === 1 && next.length === 2) {
    const errs = [...changed(0), ...cidrErrors(next[1]!, 1)];
    if (!isDualStack(next)) errs.push(invalidText(cidrsPath, specText(next), dualStackMsg));
    return errs;
  }
  // An absent list is Go's nil slice, an empty one []string{}.
  const given = Array.isArray(obj(o, 'spec')['cidrs']);
  return [invalidText(cidrsPath, goStringSlice(given ? next : null), fieldImmutableErrorMsg)];
}

export const serviceCIDRValidation: KindValidation = {
  validate: (o) => validateServiceCIDR(o),
  // Status writes carry conditions only (ValidateServiceCIDRStatusUpdate); the spec is copied from the stored object.
  validateUpdate: (o, old, ctx) => (ctx.subresource === 'status' ? validateConditions(obj(o, 'status')['conditions'], newPath('status', 'conditions')) : validateServiceCIDRUpdate(o, old)),
};

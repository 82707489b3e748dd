/**
 * NetworkPolicy validation (ValidateNetworkPolicy / ...Update): selectors,
 * ports and port ranges, peers (one kind each, ipBlock alone), CIDRs and
 * their exceptions, policyTypes.
 */
import { forbidden, goQuote, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector, type LabelSelectorValidationOptions } from '../metav1';
import { cidrContains, parseCIDR } from '../net';
import { isValidPortName, isValidPortNum, obj, objs, optNum, optObj, optStr, str, strs, type Obj } from '../values';

const protocols = ['TCP', 'UDP', 'SCTP'];
const policyTypes = ['Ingress', 'Egress'];
const cidrMsg = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

function validatePort(port: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const protocol = optStr(port, 'protocol');
  if (protocol !== undefined && !protocols.includes(protocol)) errs.push(notSupported(String(fld.child('protocol')), protocol, protocols));
  const p = port['port'];
  const endPort = optNum(port, 'endPort');
  if (typeof p === 'number') {
    for (const m of isValidPortNum(p)) errs.push(invalid(String(fld.child('port')), p, m));
    if (endPort !== undefined) {
      if (endPort < p) errs.push(invalid(String(fld.child('endPort')), endPort, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(endPort)) errs.push(invalid(String(fld.child('endPort')), endPort, m));
    }
  } else if (typeof p === 'string') {
    if (endPort !== undefined) errs.push(invalid(String(fld.child('endPort')), endPort, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(p)) errs.push(invalid(String(fld.child('port')), p, m));
  } else if (endPort !== undefined) {
    errs.push(invalid(String(fld.child('endPort')), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validateIPBlock(block: Obj, fld: Path): FieldError[] {
  const cidrText = str(block, 'cidr');
  if (!cidrText) return [required(String(fld.child('cidr')))];
  const cidr = parseCIDR(cidrText);
  if (!cidr) return [invalid(String(fld.child('cidr')), cidrText, cidrMsg)];
  const errs: FieldError[] = [];
  strs(block, 'except').forEach((text, i) => {
    const p = String(fld.child('except').index(i));
    const except = parseCIDR(text);
    if (!except) errs.push(invalid(p, text, cidrMsg));
    else if (!cidrContains(cidr, except) || cidr.bits >= except.bits || cidr.v4 !== except.v4) errs.push(invalid(p, text, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: Obj, opts: LabelSelectorValidationOptions, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    const sel = optObj(peer, key);
    if (!sel) continue;
    peers++;
    errs.push(...validateLabelSelector(sel, opts, fld.child(key)));
  }
  const ipBlock = optObj(peer, 'ipBlock');
  if (ipBlock) {
    peers++;
    errs.push(...validateIPBlock(ipBlock, fld.child('ipBlock')));
  }
  if (peers === 0) errs.push(required(String(fld), 'must specify a peer'));
  else if (peers > 1 && ipBlock) errs.push(forbidden(String(fld), 'may not specify both ipBlock and another peer'));
  return errs;
}

function validateNetworkPolicySpec(spec: Obj, opts: LabelSelectorValidationOptions, fld: Path): FieldError[] {
  const errs = validateLabelSelector(obj(spec, 'podSelector'), opts, fld.child('podSelector'));
  for (const [dir, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    objs(spec, dir).forEach((rule, i) => {
      const rulePath = fld.child(dir).index(i);
      objs(rule, 'ports').forEach((port, j) => errs.push(...validatePort(port, rulePath.child('ports').index(j))));
      objs(rule, peersKey).forEach((peer, j) => errs.push(...validatePeer(peer, opts, rulePath.child(peersKey).index(j))));
    });
  }
  const types = strs(spec, 'policyTypes');
  if (types.length > policyTypes.length) {
    const shown = `[]networking.PolicyType{${types.map(goQuote).join(', ')}}`;
    return [...errs, { ...invalid(String(fld.child('policyTypes')), null, 'may not specify more than two policyTypes'), valueText: shown }];
  }
  types.forEach((t, i) => {
    if (!policyTypes.includes(t)) errs.push(notSupported(String(fld.child('policyTypes').index(i)), t, policyTypes));
  });
  return errs;
}

export const networkPolicyValidation: KindValidation = {
  validate: (np) => validateNetworkPolicySpec(obj(np, 'spec'), {}, newPath('spec')),
  validateUpdate(np, old, ctx) {
    if (ctx.subresource === 'status') return [];
    // Selectors stored before label values were checked stay accepted.
    const oldInvalid = validateLabelSelector(obj(obj(old, 'spec'), 'podSelector'), {}, newPath('spec')).length > 0;
    return validateNetworkPolicySpec(obj(np, 'spec'), { allowInvalidLabelValueInSelector: oldInvalid }, newPath('spec'));
  },
};

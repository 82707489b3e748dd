/**
 * Node validation (ValidateNode / ValidateNodeUpdate): taints, pod CIDRs
 * (set once, one per family) and providerID (set once).
 */
import { forbidden, goQuote, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelName } from '../metav1';
import { isValidLabelValue } from '../names';
import { parseCIDR } from '../net';
import { obj, objs, str, strs, type Obj } from '../values';

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const podCIDRMsg = 'node updates may not change podCIDR except from "" to valid';

function taintText(t: Obj): string {
  return `core.Taint{Key:${goQuote(str(t, 'key'))}, Value:${goQuote(str(t, 'value'))}, Effect:${goQuote(str(t, 'effect'))}, TimeAdded:(*v1.Time)(nil)}`;
}

function validateTaints(taints: Obj[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const idx = fld.index(i);
    const key = str(t, 'key');
    const value = str(t, 'value');
    const effect = str(t, 'effect');
    errs.push(...validateLabelName(key, idx.child('key')));
    const msgs = isValidLabelValue(value);
    if (msgs.length) errs.push(invalid(String(idx.child('value')), value, msgs.join(';')));
    if (!effect) errs.push(required(String(idx.child('effect'))));
    else if (!taintEffects.includes(effect)) errs.push(notSupported(String(idx.child('effect')), effect, taintEffects));
    const id = `${effect}\u0000${key}`;
    if (seen.has(id)) {
      errs.push({ type: 'FieldValueDuplicate', field: String(idx), valueText: taintText(t), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    seen.add(id);
  });
  return errs;
}

/** spec.podCIDRs, or the single podCIDR older clients send. */
function podCIDRs(node: Obj): string[] {
  const spec = obj(node, 'spec');
  const list = strs(spec, 'podCIDRs');
  return list.length ? list : str(spec, 'podCIDR') ? [str(spec, 'podCIDR')] : [];
}

function validateNode(node: Obj): FieldError[] {
  // kube-apiserver reports taints under metadata.
  const errs = validateTaints(objs(obj(node, 'spec'), 'taints'), newPath('metadata', 'taints'));
  const cidrs = podCIDRs(node);
  const fld = newPath('spec', 'podCIDRs');
  const parsed = cidrs.map((c, i) => {
    const p = parseCIDR(c);
    if (!p) errs.push(invalid(String(fld.index(i)), c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
    return p;
  });
  if (cidrs.length > 1) {
    const dualStack = cidrs.length === 2 && parsed[0] && parsed[1] && parsed[0].v4 !== parsed[1].v4;
    if (!dualStack) errs.push({ ...invalid(String(fld), null, 'may specify no more than one CIDR for each IP family'), valueText: `[]string{${cidrs.map(goQuote).join(', ')}}` });
  }
  return errs;
}

export const nodeValidation: KindValidation = {
  validate: (node) => validateNode(node),
  validateUpdate(node, old) {
    const errs = validateNode(node);
    const before = podCIDRs(old);
    const after = podCIDRs(node);
    if (before.length > 0) {
      if (before.length !== after.length) errs.push(forbidden('spec.podCIDRs', podCIDRMsg));
      else before.forEach((c, i) => c !== after[i] && errs.push(forbidden('spec.podCIDRs', podCIDRMsg)));
    }
    const providerID = str(obj(old, 'spec'), 'providerID');
    if (providerID && providerID !== str(obj(node, 'spec'), 'providerID')) {
      errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
    }
    return errs;
  },
};

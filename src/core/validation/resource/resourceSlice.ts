/**
 * ResourceSlice (ValidateResourceSlice / ValidateResourceSliceUpdate): the
 * driver and pool publishing the devices, exactly one way of saying which
 * nodes reach them, and the devices themselves (unique DNS-label names,
 * attributes holding exactly one value). Driver, pool name and node name
 * never change.
 */
import { invalid, required, tooLong, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import { validateNodeSelectorTerm } from '../core/podSpec';
import type { KindValidation } from '../kinds';
import { isDNS1123Subdomain } from '../names';
import { has, obj, objs, optObj, str, validateImmutableField, type Obj } from '../values';
import { dns1123Label, dns1123Subdomain, limits, validateDriverName, validateQualifiedName, validateSet } from './common';

const nodeSelectionMsg = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
const semverRe = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function validatePool(pool: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(pool, 'name');
  const np = fld.child('name');
  if (!name) errs.push(required(String(np)));
  else {
    if (name.length > limits.poolNameLength) errs.push(tooLong(String(np), '', limits.poolNameLength));
    for (const part of name.split('/')) errs.push(...dns1123Subdomain(part, np));
  }
  const count = typeof pool['resourceSliceCount'] === 'number' ? pool['resourceSliceCount'] : 0;
  if (count <= 0) errs.push(invalid(String(fld.child('resourceSliceCount')), count, 'must be greater than zero'));
  const generation = typeof pool['generation'] === 'number' ? pool['generation'] : 0;
  if (generation < 0) errs.push(invalid(String(fld.child('generation')), generation, 'must be greater than or equal to zero'));
  return errs;
}

/** validateDeviceAttribute: exactly one of bool, int, string, version. */
function validateAttribute(a: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const set = ['bool', 'int', 'string', 'version'].filter((k) => has(a, k));
  const s = str(a, 'string');
  if (s.length > limits.attributeValueLength) errs.push(tooLong(String(fld.child('string')), '', limits.attributeValueLength));
  if (has(a, 'version')) {
    const v = str(a, 'version');
    if (!semverRe.test(v)) errs.push(invalid(String(fld.child('version')), v, 'must be a string compatible with semver.org spec 2.0.0'));
    if (v.length > limits.attributeValueLength) errs.push(tooLong(String(fld.child('version')), '', limits.attributeValueLength));
  }
  if (set.length === 0) errs.push(required(String(fld), 'exactly one value must be specified'));
  // kube prints the attribute struct (with pointer addresses) as the value; abbreviated here.
  else if (set.length > 1) errs.push({ ...invalid(String(fld), null, 'exactly one value must be specified'), valueText: 'resource.DeviceAttribute{...}' });
  return errs;
}

function validateDevice(d: Obj, fld: Path): FieldError[] {
  const errs = dns1123Label(str(d, 'name'), fld.child('name'));
  const attributes = obj(d, 'attributes');
  const capacity = obj(d, 'capacity');
  for (const key of Object.keys(attributes).sort()) {
    const p = fld.child('attributes').key(key);
    errs.push(...validateQualifiedName(key, p), ...validateAttribute(obj(attributes, key), p));
  }
  for (const key of Object.keys(capacity).sort()) errs.push(...validateQualifiedName(key, fld.child('capacity').key(key)));
  const total = Object.keys(attributes).length + Object.keys(capacity).length;
  if (total > limits.attributesAndCapacities) errs.push(invalid(String(fld), total, `the total number of attributes and capacities must not exceed ${limits.attributesAndCapacities}`));
  return errs;
}

function validateSliceSpec(spec: Obj, old: Obj | undefined): FieldError[] {
  const fld = newPath('spec');
  const errs = validateDriverName(str(spec, 'driver'), fld.child('driver'));
  errs.push(...validatePool(obj(spec, 'pool'), fld.child('pool')));
  if (old) {
    errs.push(...validateImmutableField(str(obj(spec, 'pool'), 'name'), str(obj(old, 'pool'), 'name'), fld.child('pool', 'name')));
    errs.push(...validateImmutableField(str(spec, 'driver'), str(old, 'driver'), fld.child('driver')));
    errs.push(...validateImmutableField(spec['nodeName'] ?? null, old['nodeName'] ?? null, fld.child('nodeName')));
  }
  const set: string[] = [];
  const nodeName = str(spec, 'nodeName');
  if (nodeName) {
    set.push('`nodeName`');
    for (const m of isDNS1123Subdomain(nodeName)) errs.push(invalid(String(fld.child('nodeName')), nodeName, m));
  }
  const nodeSelector = optObj(spec, 'nodeSelector');
  if (nodeSelector) {
    set.push('`nodeSelector`');
    // One term only, so that selectors of devices from different slices merge simply.
    const terms = objs(nodeSelector, 'nodeSelectorTerms');
    const tp = fld.child('nodeSelector', 'nodeSelectorTerms');
    // ValidateNodeSelector
    if (terms.length === 0) errs.push(required(String(tp), 'must have at least one node selector term'));
    terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, tp.index(i))));
    if (terms.length !== 1) errs.push({ ...invalid(String(fld.child('nodeSelector', 'nodeSelectorTerms')), null, 'must have exactly one node selector term'), valueText: terms.length ? '[]core.NodeSelectorTerm{...}' : '[]core.NodeSelectorTerm(nil)' });
  }
  if (spec['allNodes'] === true) set.push('`allNodes`');
  if (spec['perDeviceNodeSelection'] === true) set.push('`perDeviceNodeSelection`');
  if (set.length === 0) errs.push(required(String(fld), nodeSelectionMsg));
  else if (set.length > 1) errs.push(invalid(String(fld), `{${set.join(', ')}}`, `${nodeSelectionMsg}, but multiple fields are set`));
  const devices = objs(spec, 'devices');
  errs.push(...validateSet(devices, limits.sliceDevices, validateDevice, (d) => [str(d, 'name'), 'name'], fld.child('devices')));
  return errs;
}

export const resourceSliceValidation: KindValidation = {
  validate: (o) => validateSliceSpec(obj(o, 'spec'), undefined),
  validateUpdate: (o, old) => validateSliceSpec(obj(o, 'spec'), obj(old, 'spec')),
};


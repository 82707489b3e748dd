/**
 * ResourceClaim and ResourceClaimTemplate (ValidateResourceClaim,
 * ValidateResourceClaimTemplate and their updates): the device requests,
 * each either `exactly` one kind of device or a `firstAvailable` list of
 * alternatives, the constraints and configuration that name those
 * requests. The claim spec never changes once created.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabels } from '../labels';
import { isValidLabelValue, nameIsDNSSubdomain } from '../names';
import { validateLabelName } from '../metav1';
import { validateAnnotations } from '../objectMeta';
import { obj, objs, optNum, optObj, str, strs, validateImmutableField, type Obj } from '../values';
import { dns1123Label, limits, validateDeviceConfiguration, validateFullyQualifiedName, validateSelectors, validateSet, validateSlice } from './common';

const allocationModes = ['All', 'ExactCount'];
const requestRefMsg = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/** Every name a constraint or config may refer to: `request` and `request/subrequest`. */
function requestNames(devices: Obj): Set<string> {
  const names = new Set<string>();
  for (const r of objs(devices, 'requests')) {
    names.add(str(r, 'name'));
    for (const s of objs(r, 'firstAvailable')) names.add(`${str(r, 'name')}/${str(s, 'name')}`);
  }
  return names;
}

function validateRequestNameRef(name: string, fld: Path, names: Set<string>): FieldError[] {
  const segments = name.split('/');
  if (segments.length > 2) return [invalid(String(fld), name, requestRefMsg)];
  const errs = segments.flatMap((s) => dns1123Label(s, fld));
  if (!names.has(name)) errs.push(invalid(String(fld), name, requestRefMsg));
  return errs;
}

/** validateDeviceAllocationMode; absent mode is ExactCount and absent count 1 (the defaults). */
function validateAllocationMode(r: Obj, fld: Path): FieldError[] {
  const mode = str(r, 'allocationMode') || 'ExactCount';
  const count = optNum(r, 'count');
  if (mode === 'All') return count ? [invalid(String(fld.child('count')), count, "must not be specified when allocationMode is 'All'")] : [];
  if (mode === 'ExactCount') return count !== undefined && count < 0 ? [invalid(String(fld.child('count')), count, 'must be greater than zero')] : [];
  return [notSupported(String(fld.child('allocationMode')), mode, allocationModes)];
}

const tolerationOperators = ['Equal', 'Exists'];
const taintEffects = ['NoExecute', 'NoSchedule'];

/** validateDeviceToleration; the operator defaults to Equal. */
function validateDeviceToleration(t: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(t, 'key');
  if (key) errs.push(...validateLabelName(key, fld.child('key')));
  const operator = str(t, 'operator') || 'Equal';
  const value = str(t, 'value');
  if (operator === 'Exists') {
    if (value) errs.push(invalid(String(fld.child('value')), value, 'must be empty for operator `Exists`'));
  } else if (operator === 'Equal') {
    for (const m of isValidLabelValue(value)) errs.push(invalid(String(fld.child('value')), value, m));
  } else errs.push(notSupported(String(fld.child('operator')), operator, tolerationOperators));
  const effect = str(t, 'effect');
  if (effect && !taintEffects.includes(effect)) errs.push(notSupported(String(fld.child('effect')), effect, taintEffects));
  return errs;
}

/** What `exactly` and each `firstAvailable` entry have in common: class, selectors, mode, tolerations. */
function validateDeviceChoice(r: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const className = str(r, 'deviceClassName');
  if (!className) errs.push(required(String(fld.child('deviceClassName'))));
  else for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(String(fld.child('deviceClassName')), className, m));
  errs.push(...validateSelectors(r, fld));
  errs.push(...validateAllocationMode(r, fld));
  errs.push(...validateSlice(objs(r, 'tolerations'), limits.deviceTolerations, validateDeviceToleration, fld.child('tolerations')));
  return errs;
}

function validateDeviceRequest(r: Obj, fld: Path): FieldError[] {
  const errs = dns1123Label(str(r, 'name'), fld.child('name'));
  const alternatives = objs(r, 'firstAvailable');
  const exactly = optObj(r, 'exactly');
  if (alternatives.length > 0) {
    errs.push(...validateSet(alternatives, limits.firstAvailable, (s, p) => [...dns1123Label(str(s, 'name'), p.child('name')), ...validateDeviceChoice(s, p)], (s) => [str(s, 'name'), 'name'], fld.child('firstAvailable')));
  }
  if (exactly) errs.push(...validateDeviceChoice(exactly, fld.child('exactly')));
  if (alternatives.length === 0 && !exactly) errs.push(required(String(fld), 'exactly one of `exactly` or `firstAvailable` is required'));
  else if (alternatives.length > 0 && exactly) errs.push(invalid(String(fld), null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'));
  return errs;
}

/** validateResourceClaimSpec (its DeviceClaim). */
export function validateResourceClaimSpec(spec: Obj, fld: Path): FieldError[] {
  const devices = obj(spec, 'devices');
  const p = fld.child('devices');
  const names = requestNames(devices);
  const refs = (o: Obj, q: Path) => validateSet(strs(o, 'requests'), limits.deviceRequests, (n, r) => validateRequestNameRef(n, r, names), (n) => [n, ''], q.child('requests'));
  return [
    ...validateSet(objs(devices, 'requests'), limits.deviceRequests, validateDeviceRequest, (r) => [str(r, 'name'), 'name'], p.child('requests')),
    ...validateSlice(objs(devices, 'constraints'), limits.deviceConstraints, (c, q) => {
      const errs = refs(c, q);
      const match = str(c, 'matchAttribute');
      if (match) errs.push(...validateFullyQualifiedName(match, q.child('matchAttribute')));
      else errs.push(required(String(q.child('matchAttribute'))));
      return errs;
    }, p.child('constraints')),
    ...validateSlice(objs(devices, 'config'), limits.deviceConfig, (c, q) => [...refs(c, q), ...validateDeviceConfiguration(c, q)], p.child('config')),
  ];
}

/** The claim spec is immutable; kube prints the whole struct as the value, abbreviated here. */
const immutableSpec = (next: unknown, old: unknown, fld: Path, typeName: string) => validateImmutableField(next, old, fld, `${typeName}{...}`);

const reservedForMax = 256;

/** validateResourceClaimStatusUpdate: consumers named fully and once each, only on an allocated claim whose allocation then stays. */
function validateClaimStatusUpdate(status: Obj, oldStatus: Obj): FieldError[] {
  const fld = newPath('status');
  const reservedFor = objs(status, 'reservedFor');
  const errs = validateSet(reservedFor, reservedForMax, (r, p) => ['resource', 'name', 'uid'].filter((k) => !str(r, k)).map((k) => required(String(p.child(k)))), (r) => [str(r, 'uid'), 'uid'], fld.child('reservedFor'));
  const allocation = optObj(status, 'allocation');
  const oldAllocation = optObj(oldStatus, 'allocation');
  if (allocation && oldAllocation) errs.push(...validateImmutableField(allocation, oldAllocation, fld.child('allocation'), 'resource.AllocationResult{...}'));
  if (reservedFor.length > 0 && !allocation) errs.push(forbidden(String(fld.child('reservedFor')), 'may not be specified when `allocated` is not set'));
  return errs;
}

export const resourceClaimValidation: KindValidation = {
  validate: (o) => validateResourceClaimSpec(obj(o, 'spec'), newPath('spec')),
  validateUpdate: (o, old, ctx) => {
    if (ctx.subresource === 'status') return validateClaimStatusUpdate(obj(o, 'status'), obj(old, 'status'));
    return [...immutableSpec(o['spec'], old['spec'], newPath('spec'), 'resource.ResourceClaimSpec'), ...validateResourceClaimSpec(obj(o, 'spec'), newPath('spec'))];
  },
};

/** ValidateTemplateObjectMeta: a template's metadata carries labels and annotations only. */
function validateTemplateMeta(meta: Obj, fld: Path): FieldError[] {
  return [...validateLabels(meta['labels'], String(fld.child('labels'))), ...validateAnnotations(meta['annotations'], String(fld.child('annotations')))];
}

function validateTemplate(o: Obj): FieldError[] {
  const spec = obj(o, 'spec');
  const fld = newPath('spec');
  const errs = validateTemplateMeta(obj(spec, 'metadata'), fld.child('metadata'));
  errs.push(...validateResourceClaimSpec(obj(spec, 'spec'), fld.child('spec')));
  return errs;
}

export const resourceClaimTemplateValidation: KindValidation = {
  validate: (o) => validateTemplate(o),
  validateUpdate: (o, old) => [...immutableSpec(o['spec'], old['spec'], newPath('spec'), 'resource.ResourceClaimTemplateSpec'), ...validateTemplate(o)],
};

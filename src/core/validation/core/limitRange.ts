/** LimitRange validation (ValidateLimitRange): types, resource names and how min, max and defaults relate. */
import { duplicate, forbidden, invalid, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, objs, str, type Obj } from '../values';
import { compareQuantities, quantityOf, quantityString, type QuantityValue } from './quantityCheck';
import { validateContainerResourceName, validateResourceName, validateResourceQuantityValue } from './resourceNames';

const standardLimitTypes = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);
const one = quantityOf('1')!;

function validateLimitTypeName(type: string, fld: Path): FieldError[] {
  const errs = isQualifiedName(type).map((m) => invalid(String(fld), type, m));
  if (!type.includes('/') && !standardLimitTypes.has(type)) errs.push(invalid(String(fld), type, 'must be a standard limit type or fully qualified'));
  return errs;
}

function validateLimitResourceName(type: string, name: string, fld: Path): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, fld) : validateResourceName(name, fld);
}

function validateLimitRange(lr: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(obj(lr, 'spec'), 'limits').forEach((limit, i) => {
    const idx = newPath('spec', 'limits').index(i);
    const type = str(limit, 'type');
    errs.push(...validateLimitTypeName(type, idx.child('type')));
    if (seen.has(type)) errs.push(duplicate(String(idx.child('type')), type));
    seen.add(type);

    const keys = new Set<string>();
    const read = (field: string, checkValue: boolean): Map<string, QuantityValue> => {
      const out = new Map<string, QuantityValue>();
      for (const [k, v] of Object.entries(obj(limit, field))) {
        const p = idx.child(field).key(k);
        errs.push(...validateLimitResourceName(type, k, p));
        if (checkValue) errs.push(...validateResourceQuantityValue(k, v, p));
        keys.add(k);
        const q = quantityOf(v);
        if (q) out.set(k, q);
      }
      return out;
    };
    const max = read('max', true);
    const min = read('min', true);
    let defaults = new Map<string, QuantityValue>();
    let defaultRequests = new Map<string, QuantityValue>();
    let ratios = new Map<string, QuantityValue>();
    if (type === 'Pod') {
      if (Object.keys(obj(limit, 'default')).length) errs.push(forbidden(String(idx.child('default')), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(obj(limit, 'defaultRequest')).length) errs.push(forbidden(String(idx.child('defaultRequest')), "may not be specified when `type` is 'Pod'"));
    } else {
      defaults = read('default', true);
      defaultRequests = read('defaultRequest', true);
    }
    ratios = read('maxLimitRequestRatio', true);
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      errs.push(required(String(idx.child('limits')), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    for (const k of keys) {
      const mn = min.get(k);
      const mx = max.get(k);
      const df = defaults.get(k);
      const dr = defaultRequests.get(k);
      const ratio = ratios.get(k);
      const s = (q: QuantityValue) => quantityString(q);
      if (mn && mx && compareQuantities(mn, mx) > 0) errs.push(invalid(String(idx.child('min').key(k)), s(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
      if (dr && mn && compareQuantities(mn, dr) > 0) errs.push(invalid(String(idx.child('defaultRequest').key(k)), s(dr), `min value ${s(mn)} is greater than default request value ${s(dr)}`));
      if (dr && mx && compareQuantities(dr, mx) > 0) errs.push(invalid(String(idx.child('defaultRequest').key(k)), s(dr), `default request value ${s(dr)} is greater than max value ${s(mx)}`));
      if (dr && df && compareQuantities(dr, df) > 0) errs.push(invalid(String(idx.child('defaultRequest').key(k)), s(dr), `default request value ${s(dr)} is greater than default limit value ${s(df)}`));
      if (df && mn && compareQuantities(mn, df) > 0) errs.push(invalid(String(idx.child('default').key(k)), s(mn), `min value ${s(mn)} is greater than default value ${s(df)}`));
      if (df && mx && compareQuantities(df, mx) > 0) errs.push(invalid(String(idx.child('default').key(k)), s(mx), `default value ${s(df)} is greater than max value ${s(mx)}`));
      if (ratio && compareQuantities(ratio, one) < 0) errs.push(invalid(String(idx.child('maxLimitRequestRatio').key(k)), s(ratio), `ratio ${s(ratio)} is less than 1`));
    }
  });
  return errs;
}

export const limitRangeValidation: KindValidation = {
  validate: (lr) => validateLimitRange(lr),
  validateUpdate: (lr) => validateLimitRange(lr),
};

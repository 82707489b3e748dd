/** ResourceQuota validation (ValidateResourceQuota / ...Update): hard limits, scopes and the scope selector. */
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { obj, objs, str, strs, type Obj } from '../values';
import { validateQuotaResourceName, validateResourceQuantityValue } from './resourceNames';
import { goStringSlice } from '../../errors';

const scopes = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];
const selectorOperators = ['DoesNotExist', 'Exists', 'In', 'NotIn'];

function validateResourceList(list: Obj, fld: Path): FieldError[] {
  return Object.entries(list).flatMap(([k, v]) => [...validateQuotaResourceName(k, fld.key(k)), ...validateResourceQuantityValue(k, v, fld.key(k))]);
}

function validateResourceQuotaSpec(spec: Obj, fld: Path): FieldError[] {
  const errs = validateResourceList(obj(spec, 'hard'), fld.child('hard'));
  const specScopes = strs(spec, 'scopes');
  const has = (s: string) => specScopes.includes(s);
  for (const s of specScopes) {
    if (!scopes.includes(s)) errs.push({ ...invalid(String(fld.child('scopes')), null, 'unsupported scope'), valueText: goStringSlice(specScopes).replace('[]string', '[]core.ResourceQuotaScope') });
  }
  if ((has('Terminating') && has('NotTerminating')) || (has('BestEffort') && has('NotBestEffort'))) {
    errs.push({ ...invalid(String(fld.child('scopes')), null, 'conflicting scopes'), valueText: goStringSlice(specScopes).replace('[]string', '[]core.ResourceQuotaScope') });
  }
  const selector = obj(spec, 'scopeSelector');
  objs(selector, 'matchExpressions').forEach((req, i) => {
    const p = fld.child('scopeSelector', 'matchExpressions').index(i);
    const scope = str(req, 'scopeName');
    if (!scopes.includes(scope)) errs.push(invalid(String(p.child('scopeName')), scope, 'unsupported scope'));
    const op = str(req, 'operator');
    const values = strs(req, 'values');
    if (!selectorOperators.includes(op)) errs.push(notSupported(String(p.child('operator')), op, selectorOperators));
    else if ((op === 'In' || op === 'NotIn') && values.length === 0) errs.push(required(String(p.child('values')), 'must be at least one value when `operator` is \'In\' or \'NotIn\' for scope selector'));
    else if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) errs.push(invalid(String(p.child('values')), null, 'must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector'));
  });
  return errs;
}

function validateResourceQuota(rq: Obj): FieldError[] {
  const status = obj(rq, 'status');
  return [
    ...validateResourceQuotaSpec(obj(rq, 'spec'), newPath('spec')),
    ...validateResourceList(obj(status, 'hard'), newPath('status', 'hard')),
    ...validateResourceList(obj(status, 'used'), newPath('status', 'used')),
  ];
}

export const resourceQuotaValidation: KindValidation = {
  validate: (rq) => validateResourceQuota(rq),
  validateUpdate: (rq) => validateResourceQuota(rq),
};

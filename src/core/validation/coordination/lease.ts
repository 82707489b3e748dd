/** Lease validation (ValidateLease / ValidateLeaseUpdate): durations, transitions, the coordinated-leader strategy. */
import { forbidden, invalid, notSupported, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, optNum, optStr, type Obj } from '../values';

const strategies = ['OldestEmulationVersion'];

function validateLease(lease: Obj): FieldError[] {
  const spec = obj(lease, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const duration = optNum(spec, 'leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) errs.push(invalid(String(fld.child('leaseDurationSeconds')), duration, 'must be greater than 0'));
  const transitions = optNum(spec, 'leaseTransitions');
  if (transitions !== undefined && transitions < 0) errs.push(invalid(String(fld.child('leaseTransitions')), transitions, 'must be greater than or equal to 0'));
  const strategy = optStr(spec, 'strategy');
  if (strategy !== undefined) {
    // kube-apiserver nests the child name once more here.
    const p = String(fld.child('strategy', 'strategy'));
    if (!strategy.includes('/')) {
      if (!strategies.includes(strategy)) errs.push(notSupported(p, strategy, strategies));
    } else {
      for (const m of isQualifiedName(strategy)) errs.push(invalid(p, strategy, m));
    }
  }
  if (optStr(spec, 'preferredHolder') && !strategy) errs.push(forbidden(String(fld.child('preferredHolder')), 'may only be specified if `strategy` is defined'));
  return errs;
}

export const leaseValidation: KindValidation = {
  validate: (lease) => validateLease(lease),
  validateUpdate: (lease) => validateLease(lease),
};

/** Lease validation (ValidateLease / ValidateLeaseUpdate): durations, transitions, the coordinated-leader strategy. */
import { forbidden, invalid, notSupported, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, optNum, optStr, type Obj } from '../values';

const strategies = ['OldestEmulationVersion'];

/** ValidateCoordinatedLeaseStrategy: a Kubernetes strategy name, or a qualified custom one. Upstream names the child once more. */
export function validateCoordinatedLeaseStrategy(strategy: string, fld: Path): FieldError[] {
  const p = String(fld.child('strategy'));
  if (!strategy.includes('/')) return strategies.includes(strategy) ? [] : [notSupported(p, strategy, strategies)];
  return isQualifiedName(strategy).map((m) => invalid(p, strategy, m));
}

function validateLease(lease: Obj): FieldError[] {
  const spec = obj(lease, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const duration = optNum(spec, 'leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) errs.push(invalid(String(fld.child('leaseDurationSeconds')), duration, 'must be greater than 0'));
  const transitions = optNum(spec, 'leaseTransitions');
  if (transitions !== undefined && transitions < 0) errs.push(invalid(String(fld.child('leaseTransitions')), transitions, 'must be greater than or equal to 0'));
  const strategy = optStr(spec, 'strategy');
  if (strategy !== undefined) errs.push(...validateCoordinatedLeaseStrategy(strategy, fld.child('strategy')));
  if (optStr(spec, 'preferredHolder') && !strategy) errs.push(forbidden(String(fld.child('preferredHolder')), 'may only be specified if `strategy` is defined'));
  return errs;
}

export const leaseValidation: KindValidation = {
  validate: (lease) => validateLease(lease),
  validateUpdate: (lease) => validateLease(lease),
};

/** LeaseCandidate validation (ValidateLeaseCandidate / ...Update): lease name (fixed), semantic versions, strategy. */
import { invalid, required, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { obj, str, validateImmutableField, type Obj } from '../values';
import { validateCoordinatedLeaseStrategy } from './lease';

const semverRe = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** Major, minor, patch of a semantic version, or undefined when it is not one. */
function parseSemver(v: string): [number, number, number] | undefined {
  const m = semverRe.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

const lessThan = (a: [number, number, number], b: [number, number, number]) => a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];

function validateLeaseCandidate(lc: Obj): FieldError[] {
  const spec = obj(lc, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  if (!str(spec, 'leaseName')) errs.push(required(String(fld.child('leaseName'))));
  const emulation = str(spec, 'emulationVersion');
  const binary = str(spec, 'binaryVersion');
  let ev: [number, number, number] = [0, 0, 0];
  if (emulation) {
    const parsed = parseSemver(emulation);
    if (!parsed) errs.push(invalid(String(fld.child('emulationVersion')), emulation, 'must be a valid semantic version'));
    else ev = parsed;
  }
  let bv: [number, number, number] = [0, 0, 0];
  if (!binary) errs.push(required(String(fld.child('binaryVersion'))));
  else {
    const parsed = parseSemver(binary);
    if (!parsed) errs.push(invalid(String(fld.child('binaryVersion')), binary, 'must be a valid semantic version'));
    else bv = parsed;
  }
  if (binary && emulation && lessThan(bv, ev)) errs.push(invalid(String(fld.child('binaryVersion')), binary, 'must be greater than or equal to `emulationVersion`'));
  const strategy = str(spec, 'strategy');
  if (!strategy) errs.push(required(String(fld.child('strategy'))));
  else {
    if (strategy === 'OldestEmulationVersion' && ev.every((x) => x === 0)) {
      errs.push(required(String(fld.child('emulationVersion')), "must be specified when `strategy` is 'OldestEmulationVersion'"));
    }
    errs.push(...validateCoordinatedLeaseStrategy(strategy, fld.child('strategy')));
  }
  return errs;
}

export const leaseCandidateValidation: KindValidation = {
  validate: (lc) => validateLeaseCandidate(lc),
  validateUpdate: (lc, old) => [
    ...validateLeaseCandidate(lc),
    ...validateImmutableField(str(obj(lc, 'spec'), 'leaseName'), str(obj(old, 'spec'), 'leaseName'), newPath('spec', 'leaseName')),
  ],
};

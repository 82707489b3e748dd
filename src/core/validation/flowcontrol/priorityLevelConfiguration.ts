/** PriorityLevelConfiguration validation (ValidatePriorityLevelConfiguration): Exempt only for `exempt`, Limited settings and queuing. */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { obj, optNum, optObj, str, type Obj } from '../values';

const types = ['Exempt', 'Limited'];
const limitResponseTypes = ['Queue', 'Reject'];
const maxQueues = 10 * 1000 * 1000;

function validateQueuing(q: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  // Defaults: 50, 64 and 8.
  const lengthLimit = optNum(q, 'queueLengthLimit') ?? 50;
  const queues = optNum(q, 'queues') ?? 64;
  const handSize = optNum(q, 'handSize') ?? 8;
  if (lengthLimit <= 0) errs.push(invalid(String(fld.child('queueLengthLimit')), lengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(invalid(String(fld.child('queues')), queues, 'must be positive'));
  else if (queues > maxQueues) errs.push(invalid(String(fld.child('queues')), queues, `must not be greater than ${maxQueues}`));
  if (handSize <= 0) errs.push(invalid(String(fld.child('handSize')), handSize, 'must be positive'));
  else if (handSize > queues) errs.push(invalid(String(fld.child('handSize')), handSize, `should not be greater than queues (${queues})`));
  return errs;
}

function validateLimited(limited: Obj, concurrencyField: string, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const shares = optNum(limited, concurrencyField) ?? 30;
  if (shares < 0) errs.push(invalid(String(fld.child(concurrencyField)), shares, 'must be a non-negative integer'));
  const response = obj(limited, 'limitResponse');
  const rp = fld.child('limitResponse');
  const queuing = optObj(response, 'queuing');
  switch (str(response, 'type')) {
    case 'Reject':
      if (queuing) errs.push(forbidden(String(rp.child('queuing')), 'must be nil if limited.limitResponse.type is not Limited'));
      break;
    case 'Queue':
      if (!queuing) errs.push(required(String(rp.child('queuing')), 'must not be empty if limited.limitResponse.type is Limited'));
      else errs.push(...validateQueuing(queuing, rp.child('queuing')));
      break;
    default:
      errs.push(notSupported(String(rp.child('type')), str(response, 'type'), limitResponseTypes));
  }
  const lendable = optNum(limited, 'lendablePercent');
  if (lendable !== undefined && !(lendable >= 0 && lendable <= 100)) errs.push(invalid(String(fld.child('lendablePercent')), lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = optNum(limited, 'borrowingLimitPercent');
  if (borrowing !== undefined && borrowing < 0) errs.push(invalid(String(fld.child('borrowingLimitPercent')), borrowing, 'if specified, must be a non-negative integer'));
  return errs;
}

function validatePriorityLevel(pl: Obj): FieldError[] {
  const spec = obj(pl, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const type = str(spec, 'type');
  const name = str(pl['metadata'], 'name');
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(invalid(String(fld.child('type')), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = optObj(spec, 'limited');
  switch (type) {
    case 'Exempt':
      if (limited) errs.push(forbidden(String(fld.child('limited')), 'must be nil if the type is not Limited'));
      break;
    case 'Limited': {
      if (optObj(spec, 'exempt')) errs.push(forbidden(String(fld.child('exempt')), 'must be nil if the type is Limited'));
      // Older versions call the shares assuredConcurrencyShares.
      const apiVersion = str(pl, 'apiVersion');
      const sharesField = /v1beta[12]$/.test(apiVersion) ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares';
      if (!limited) errs.push(required(String(fld.child('limited')), 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(limited, sharesField, fld.child('limited')));
      break;
    }
    default:
      errs.push(notSupported(String(fld.child('type')), type, types));
  }
  return errs;
}

export const priorityLevelConfigurationValidation: KindValidation = {
  validate: (pl) => validatePriorityLevel(pl),
  validateUpdate: (pl, _old, ctx) => (ctx.subresource === 'status' ? [] : validatePriorityLevel(pl)),
};

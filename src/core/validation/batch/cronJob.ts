/** CronJobs (ValidateCronJobCreate, ValidateCronJobUpdate): schedule, time zone, concurrency and the job template. */
import type { KubeObject } from '../../api/types';
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { invalidText, obj, str, validateNonnegativeField, type Obj } from '../core/common';
import { goLabelSelector } from '../core/goSyntax';
import { cronScheduleError, isKnownTimeZone } from './cron';
import { validateJobSpec } from './job';

const specPath = newPath('spec');
const concurrencyPolicies = ['Allow', 'Forbid', 'Replace'];
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateScheduleFormat(schedule: string, allowTZ: boolean, timeZone: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const err = cronScheduleError(schedule);
  if (err) errs.push(invalid(String(fld), schedule, err));
  if (allowTZ && schedule.includes('TZ') && timeZone !== undefined && timeZone !== null) {
    errs.push(invalid(String(fld), schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push(invalid(String(fld), schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

function validateTimeZone(timeZone: unknown, fld: Path): FieldError[] {
  if (typeof timeZone !== 'string') return [];
  if (timeZone === '') return [invalid(String(fld), timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !validTimeZoneCharacters.test(part)) {
      return [invalid(String(fld), timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') errs.push(invalid(String(fld), timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  if (!isKnownTimeZone(timeZone)) errs.push(invalid(String(fld), timeZone, `unknown time zone ${timeZone}`));
  return errs;
}

/** ValidateJobTemplateSpec: the job spec, with the selector left to the generator. */
function validateJobTemplateSpec(tmpl: Obj, fld: Path): FieldError[] {
  const spec = obj(tmpl['spec']) ?? {};
  const errs = validateJobSpec(spec, fld.child('spec'));
  if (obj(spec['selector'])) errs.push(invalidText(fld.child('spec', 'selector'), goLabelSelector(spec['selector']), '`selector` will be auto-generated'));
  if (spec['manualSelector'] === true) errs.push({ ...notSupported(String(fld.child('spec', 'manualSelector')), true, ['nil', 'false']), valueText: 'true' });
  return errs;
}

function validateCronJobSpec(spec: Obj, oldSpec: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec['schedule']);
  if (!schedule) errs.push(required(String(specPath.child('schedule'))));
  else errs.push(...validateScheduleFormat(schedule, str(oldSpec?.['schedule']).includes('TZ'), spec['timeZone'], specPath.child('schedule')));
  if (spec['startingDeadlineSeconds'] !== undefined && spec['startingDeadlineSeconds'] !== null) {
    errs.push(...validateNonnegativeField(spec['startingDeadlineSeconds'], specPath.child('startingDeadlineSeconds')));
  }
  if (!oldSpec || oldSpec['timeZone'] !== spec['timeZone']) errs.push(...validateTimeZone(spec['timeZone'], specPath.child('timeZone')));
  const cp = str(spec['concurrencyPolicy']);
  if (!cp) errs.push(required(String(specPath.child('concurrencyPolicy'))));
  else if (!concurrencyPolicies.includes(cp)) errs.push(notSupported(String(specPath.child('concurrencyPolicy')), cp, concurrencyPolicies));
  errs.push(...validateJobTemplateSpec(obj(spec['jobTemplate']) ?? {}, specPath.child('jobTemplate')));
  for (const k of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    if (spec[k] !== undefined && spec[k] !== null) errs.push(...validateNonnegativeField(spec[k], specPath.child(k)));
  }
  return errs;
}

function validateCronJob(cj: KubeObject): FieldError[] {
  const errs = validateCronJobSpec(obj(cj['spec']) ?? {}, undefined);
  const name = cj.metadata.name ?? '';
  // The controller appends an 11-character suffix to name its Jobs (at most 63 characters).
  if (name.length > 52) errs.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  return errs;
}

export const cronJobValidation: KindValidation = {
  validate: (o) => validateCronJob(o),
  validateUpdate: (o, old, ctx) => (ctx.subresource === 'status' ? [] : validateCronJobSpec(obj(o['spec']) ?? {}, obj(old['spec']) ?? {})),
};

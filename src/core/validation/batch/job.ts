/**
 * Jobs (ValidateJob, ValidateJobUpdate) and the job template of a CronJob
 * (ValidateJobTemplateSpec): counts, completion mode, the generated selector
 * and its labels, restartPolicy OnFailure or Never, and what an update may change.
 */
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../../selectors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { fieldImmutableErrorMsg, invalidText, num, obj, str, validateNonnegativeField, type Obj } from '../core/common';
import { goLabelSelector, goStringMap } from '../core/goSyntax';
import { validatePodTemplateSpec } from '../core/podSpec';

const specPath = newPath('spec');
const maxParallelismForIndexedJob = 100000;
const completionModes = ['NonIndexed', 'Indexed'];
const podReplacementPolicies = ['TerminatingOrFailed', 'Failed'];

export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const legacyJobNameLabel = 'job-name';
export const legacyControllerUidLabel = 'controller-uid';

const present = (v: unknown) => v !== undefined && v !== null;

/** validateJobSpec: what a Job and a CronJob's job template share. */
export function validateJobSpec(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    if (present(spec[k])) errs.push(...validateNonnegativeField(spec[k], fld.child(k)));
  }
  const mode = spec['completionMode'];
  if (typeof mode === 'string') {
    if (!completionModes.includes(mode)) errs.push(notSupported(String(fld.child('completionMode')), mode, completionModes));
    if (mode === 'Indexed') {
      if (!present(spec['completions'])) errs.push(required(String(fld.child('completions')), 'when completion mode is Indexed'));
      const parallelism = num(spec['parallelism']);
      if (parallelism !== undefined && parallelism > maxParallelismForIndexedJob) {
        errs.push(invalid(String(fld.child('parallelism')), parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
      }
    }
  }
  if (present(spec['backoffLimitPerIndex']) && mode !== 'Indexed') {
    errs.push(invalid(String(fld.child('backoffLimitPerIndex')), spec['backoffLimitPerIndex'], 'requires indexed completion mode'));
  }
  const replacement = spec['podReplacementPolicy'];
  if (typeof replacement === 'string' && !podReplacementPolicies.includes(replacement)) {
    errs.push(notSupported(String(fld.child('podReplacementPolicy')), replacement, podReplacementPolicies));
  }
  const template = obj(spec['template']) ?? {};
  errs.push(...validatePodTemplateSpec(template, fld.child('template')));
  const restartPolicy = str(obj(template['spec'])?.['restartPolicy']);
  const rp = String(fld.child('template', 'spec', 'restartPolicy'));
  // SetDefaults_PodSpec makes a missing restartPolicy Always, so both mean "not chosen".
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(required(rp, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(notSupported(rp, restartPolicy, ['OnFailure', 'Never']));
  else if (present(spec['podFailurePolicy']) && restartPolicy !== 'Never') errs.push(invalid(rp, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** ValidateJobSpec: validateJobSpec plus the selector, which must select the template. */
function validateFullJobSpec(spec: Obj): FieldError[] {
  const errs = validateJobSpec(spec, specPath);
  const sel = spec['selector'];
  if (!obj(sel)) errs.push(required(String(specPath.child('selector'))));
  else errs.push(...validateLabelSelector(sel, {}, specPath.child('selector')));
  const parsed = labelSelectorFromObject(obj(sel) as LabelSelectorObject | undefined);
  const labels = obj(obj(spec['template'])?.['metadata'])?.['labels'];
  if (!isSelectorError(parsed) && !parsed.matches((obj(labels) ?? {}) as Record<string, string>)) {
    errs.push(invalidText(specPath.child('template', 'metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** validateGeneratedSelector: unless manualSelector, the template carries the job's uid and name labels. */
function validateGeneratedSelector(job: KubeObject): FieldError[] {
  const spec = obj(job['spec']) ?? {};
  if (spec['manualSelector'] === true) return [];
  const errs: FieldError[] = [];
  const templateMeta = obj(obj(spec['template'])?.['metadata']) ?? {};
  const labels = obj(templateMeta['labels']);
  const metaPath = specPath.child('template', 'metadata');
  if (!labels) errs.push(required(String(metaPath.child('labels'))));
  if (!obj(spec['selector'])) errs.push(required(String(specPath.child('selector'))));
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (!uid) errs.push(required('metadata.uid'));
  const hasLabel = (key: string, want: string) => {
    const have = labels?.[key];
    if (have === undefined) errs.push(required(String(metaPath.child('labels').key(key)), `must be '${want}'`));
    else if (have !== want) errs.push(invalidText(metaPath.child('labels').key(key), goStringMap(labels), `must be '${want}'`));
  };
  hasLabel(legacyControllerUidLabel, uid);
  hasLabel(legacyJobNameLabel, name);
  hasLabel(controllerUidLabel, uid);
  hasLabel(jobNameLabel, name);
  const parsed = labelSelectorFromObject(obj(spec['selector']) as LabelSelectorObject | undefined);
  if (obj(spec['selector']) && (isSelectorError(parsed) || !parsed.matches({ [controllerUidLabel]: uid }))) {
    errs.push(invalidText(specPath.child('selector'), goLabelSelector(spec['selector']), '`selector` not auto-generated'));
  }
  return errs;
}

/** ValidateJob */
function validateJob(job: KubeObject): FieldError[] {
  const spec = obj(job['spec']) ?? {};
  const errs = [...validateGeneratedSelector(job), ...validateFullJobSpec(spec)];
  const completions = num(spec['completions']);
  if (spec['completionMode'] === 'Indexed' && completions !== undefined && completions > 0) {
    const name = job.metadata.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (hostname.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(hostname)) {
      errs.push(invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

function immutable(next: Obj, old: Obj, key: string, render: (v: unknown) => string = (v) => JSON.stringify(v)): FieldError[] {
  if (jsonEqual(next[key] ?? null, old[key] ?? null)) return [];
  const v = next[key];
  const fld = specPath.child(key);
  if (v === undefined || v === null) return [invalid(String(fld), null, fieldImmutableErrorMsg)];
  if (typeof v === 'string' || typeof v === 'number') return [invalid(String(fld), v, fieldImmutableErrorMsg)];
  return [invalidText(fld, render(v), fieldImmutableErrorMsg)];
}

/** The template may change only while the job is suspended and never started, and then only its scheduling directives. */
function validatePodTemplateUpdate(next: Obj, old: Obj, oldStatus: Obj): FieldError[] {
  const t = obj(next['template']) ?? {};
  let o = obj(old['template']) ?? {};
  if (old['suspend'] === true && !present(oldStatus['startTime'])) {
    const ts = obj(t['spec']) ?? {};
    const os = { ...(obj(o['spec']) ?? {}) };
    const na = obj(ts['affinity'])?.['nodeAffinity'];
    const oa = obj(os['affinity']);
    if (!obj(ts['affinity']) && oa) {
      const rest = { ...oa };
      delete rest['nodeAffinity'];
      if (Object.keys(rest).length === 0) delete os['affinity'];
      else os['affinity'] = rest;
    } else if (obj(ts['affinity'])) {
      os['affinity'] = { ...(oa ?? {}), nodeAffinity: na };
      if (na === undefined) delete (os['affinity'] as Obj)['nodeAffinity'];
    }
    for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) {
      if (ts[k] === undefined) delete os[k];
      else os[k] = ts[k];
    }
    const tm = obj(t['metadata']) ?? {};
    const om = { ...(obj(o['metadata']) ?? {}) };
    for (const k of ['labels', 'annotations']) {
      if (tm[k] === undefined) delete om[k];
      else om[k] = tm[k];
    }
    o = { ...o, metadata: om, spec: os };
  }
  if (jsonEqual(JSON.parse(JSON.stringify(t)), JSON.parse(JSON.stringify(o)))) return [];
  // kube prints the whole core.PodTemplateSpec struct here.
  return [invalidText(specPath.child('template'), 'core.PodTemplateSpec{...}', fieldImmutableErrorMsg)];
}

/** ValidateJobSpecUpdate */
function validateJobUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(job['spec']) ?? {};
  const oldSpec = obj(old['spec']) ?? {};
  const errs = validateFullJobSpec(spec);
  if (spec['completionMode'] !== 'Indexed') errs.push(...immutable(spec, oldSpec, 'completions'));
  else if (!jsonEqual(spec['completions'], oldSpec['completions']) && present(spec['completions']) && spec['completions'] !== spec['parallelism']) {
    errs.push(invalid(String(specPath.child('completions')), spec['completions'], 'can only be modified in tandem with spec.parallelism'));
  }
  errs.push(...immutable(spec, oldSpec, 'selector', goLabelSelector));
  errs.push(...validatePodTemplateUpdate(spec, oldSpec, obj(old['status']) ?? {}));
  for (const k of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) errs.push(...immutable(spec, oldSpec, k));
  return errs;
}

export const jobValidation: KindValidation = {
  validate: (o) => validateJob(o),
  validateUpdate: (o, old, ctx) => (ctx.subresource === 'status' ? [] : validateJobUpdate(o, old)),
};

/**
 * Pieces the apps kinds share (kube's pkg/apis/apps/validation): the
 * selector and the template it must select, int-or-percent fields, and
 * `spec.selector` being immutable on apps/v1.
 */
import { isObject, type KubeObject } from '../../api/types';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../selectors';
import type { Path } from '../field';
import { validateLabelSelector } from '../metav1';
import { fieldImmutableErrorMsg, invalidText, obj, str, validateNonnegativeField, type Obj } from '../core/common';
import { goIntOrString, goLabelSelector, goStringMap } from '../core/goSyntax';
import { validatePodTemplateSpec } from '../core/podSpec';
import { jsonEqual } from '../../api/equality';

export { obj, str, validateNonnegativeField, type Obj };

/**
 * The selector's own errors (required, syntax, empty), then the selector as
 * metav1.LabelSelectorAsSelector builds it (undefined when it does not parse).
 */
export function validateSelector(spec: Obj, fld: Path, kind: string): { errs: FieldError[]; selector: LabelSelector | undefined } {
  const errs: FieldError[] = [];
  const sel = spec['selector'];
  if (!isObject(sel)) errs.push(required(String(fld)));
  else {
    errs.push(...validateLabelSelector(sel, {}, fld));
    const n = Object.keys(obj(sel['matchLabels']) ?? {}).length + (Array.isArray(sel['matchExpressions']) ? sel['matchExpressions'].length : 0);
    if (n === 0) errs.push(invalidText(fld, goLabelSelector(sel), `empty selector is invalid for ${kind}`));
  }
  const parsed = labelSelectorFromObject(isObject(sel) ? (sel as LabelSelectorObject) : undefined);
  return { errs, selector: isSelectorError(parsed) ? undefined : parsed };
}

/** The `selector` does not match template `labels` check, at `<template>.metadata.labels`. */
export function validateSelectorMatchesTemplate(selector: LabelSelector, template: Obj, fld: Path): FieldError[] {
  const labels = obj(template['metadata'])?.['labels'];
  if (selector.empty() || selector.matches((obj(labels) ?? {}) as Record<string, string>)) return [];
  return [invalidText(fld.child('metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`')];
}

/** ValidatePodTemplateSpecForReplicaSet (Deployments and ReplicaSets). */
export function validatePodTemplateSpecForReplicaSet(template: Obj, selector: LabelSelector, fld: Path, kind: string): FieldError[] {
  const errs = validateSelectorMatchesTemplate(selector, template, fld);
  errs.push(...validatePodTemplateSpec(template, fld));
  errs.push(...validateTemplateRestartAndDeadline(template, fld, kind));
  return errs;
}

/** Workload pods run forever: restartPolicy Always, no activeDeadlineSeconds. */
export function validateTemplateRestartAndDeadline(template: Obj, fld: Path, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(template['spec']) ?? {};
  const restartPolicy = str(spec['restartPolicy']);
  if (restartPolicy !== 'Always') errs.push(notSupported(String(fld.child('spec', 'restartPolicy')), restartPolicy, ['Always']));
  if (spec['activeDeadlineSeconds'] !== undefined && spec['activeDeadlineSeconds'] !== null) {
    errs.push(forbidden(String(fld.child('spec', 'activeDeadlineSeconds')), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

const percentRe = /^[0-9]+%$/;
const percentMsg = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** ValidatePositiveIntOrPercent */
export function validatePositiveIntOrPercent(v: unknown, fld: Path): FieldError[] {
  if (typeof v === 'string') return percentRe.test(v) ? [] : [invalidText(fld, goIntOrString(v), percentMsg)];
  return validateNonnegativeField(v, fld);
}

/** getIntOrPercentValue: the number, for ints and valid percents alike. */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && percentRe.test(v)) return Number(v.slice(0, -1));
  return 0;
}

/** IsNotMoreThan100Percent */
export function isNotMoreThan100Percent(v: unknown, fld: Path): FieldError[] {
  if (typeof v !== 'string' || !percentRe.test(v) || Number(v.slice(0, -1)) <= 100) return [];
  return [invalidText(fld, goIntOrString(v), 'must not be greater than 100%')];
}

/** The apps/v1 strategies' ValidateUpdate: `spec.selector` may not change. */
export function validateSelectorImmutable(next: KubeObject, old: KubeObject, fld: Path): FieldError[] {
  const a = obj(next['spec'])?.['selector'];
  const b = obj(old['spec'])?.['selector'];
  if (jsonEqual(a ?? null, b ?? null)) return [];
  return [a === undefined || a === null ? invalid(String(fld), null, fieldImmutableErrorMsg) : invalidText(fld, goLabelSelector(a), fieldImmutableErrorMsg)];
}

/**
 * HorizontalPodAutoscaler validation (ValidateHorizontalPodAutoscaler / ...Update /
 * ...StatusUpdate of autoscaling's internal version): replica bounds, the
 * scale target, each metric (exactly its own source, a sane target) and the
 * scaling behavior. An autoscaling/v1 object is read as its conversion: its
 * targetCPUUtilizationPercentage is the Resource metric spec.metrics[0].
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { validateContainerResourceName } from '../core/resourceNames';
import { quantityOf, quantitySign } from '../core/quantityCheck';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { isDNS1123Label, isValidPathSegmentName } from '../names';
import { has, num, obj, objs, optNum, optObj, optStr, str, validateNonnegativeField, type Obj } from '../values';

const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceFields: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };
const selectPolicies = ['Disabled', 'Max', 'Min'];
const policyTypes = ['Percent', 'Pods'];
const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;

/** ValidateCrossVersionObjectReference */
function validateCrossVersionObjectReference(ref: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = str(ref, key);
    if (!v) errs.push(required(String(fld.child(key))));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(String(fld.child(key)), v, m));
  }
  return errs;
}

function validateMetricIdentifier(id: Obj, fld: Path): FieldError[] {
  const name = str(id, 'name');
  const errs = name ? isValidPathSegmentName(name).map((m) => invalid(String(fld.child('name')), name, m)) : [required(String(fld.child('name')), 'must specify a metric name')];
  if (optObj(id, 'selector')) errs.push(...validateLabelSelector(id['selector'], {}, fld.child('selector')));
  return errs;
}

function validateMetricTarget(target: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(target, 'type');
  if (!type) errs.push(required(String(fld.child('type')), 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(invalid(String(fld.child('type')), type, 'must be either Utilization, Value, or AverageValue'));
  for (const key of ['value', 'averageValue']) {
    if (!has(target, key)) continue;
    const q = quantityOf(target[key]);
    if (!q || quantitySign(q) !== 1) errs.push(invalid(String(fld.child(key)), target[key], 'must be positive'));
  }
  const utilization = optNum(target, 'averageUtilization');
  if (utilization !== undefined && utilization < 1) errs.push(invalid(String(fld.child('averageUtilization')), utilization, 'must be greater than 0'));
  return errs;
}

function validateSource(type: string, src: Obj, fld: Path): FieldError[] {
  const target = obj(src, 'target');
  const targetPath = fld.child('target');
  const errs: FieldError[] = [];
  switch (type) {
    case 'object':
      errs.push(...validateCrossVersionObjectReference(obj(src, 'describedObject'), fld.child('describedObject')));
      errs.push(...validateMetricIdentifier(obj(src, 'metric'), fld.child('metric')));
      errs.push(...validateMetricTarget(target, targetPath));
      if (!has(target, 'value') && !has(target, 'averageValue')) errs.push(required(String(targetPath.child('averageValue')), 'must set either a target value or averageValue'));
      break;
    case 'external':
      errs.push(...validateMetricIdentifier(obj(src, 'metric'), fld.child('metric')));
      errs.push(...validateMetricTarget(target, targetPath));
      if (!has(target, 'value') && !has(target, 'averageValue')) errs.push(required(String(targetPath.child('averageValue')), 'must set either a target value for metric or a per-pod target'));
      if (has(target, 'value') && has(target, 'averageValue')) errs.push(forbidden(String(targetPath.child('value')), 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      errs.push(...validateMetricIdentifier(obj(src, 'metric'), fld.child('metric')));
      errs.push(...validateMetricTarget(target, targetPath));
      if (!has(target, 'averageValue')) errs.push(required(String(targetPath.child('averageValue')), 'must specify a positive target averageValue'));
      break;
    case 'resource':
    case 'containerResource': {
      const name = str(src, 'name');
      if (!name) errs.push(required(String(fld.child('name')), 'must specify a resource name'));
      else errs.push(...validateContainerResourceName(name, fld.child('name')));
      if (type === 'containerResource') {
        const container = str(src, 'container');
        if (!container) errs.push(required(String(fld.child('container')), 'must specify a container'));
        else for (const m of isDNS1123Label(container)) errs.push(invalid(String(fld.child('container')), container, m));
      }
      errs.push(...validateMetricTarget(target, targetPath));
      const utilization = has(target, 'averageUtilization');
      const average = has(target, 'averageValue');
      if (!utilization && !average) errs.push(required(String(targetPath.child('averageUtilization')), 'must set either a target raw value or a target utilization'));
      if (utilization && average) errs.push(forbidden(String(targetPath.child('averageValue')), 'may not set both a target raw value and a target utilization'));
      break;
    }
  }
  return errs;
}

function validateMetricSpec(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec, 'type');
  if (!type) errs.push(required(String(fld.child('type')), 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) errs.push(notSupported(String(fld.child('type')), type, metricSourceTypes));
  const present: string[] = [];
  for (const key of ['object', 'external', 'pods', 'resource', 'containerResource']) {
    const src = optObj(spec, key);
    if (!src) continue;
    present.push(key);
    // Only the first source present is looked into.
    if (present.length === 1) errs.push(...validateSource(key, src, fld.child(key)));
  }
  const expected = sourceFields[type];
  if (expected) {
    if (!present.includes(expected)) errs.push(required(String(fld.child(expected)), 'must populate information for the given metric source'));
  } else {
    errs.push(notSupported(String(fld.child('type')), type, metricSourceTypes));
  }
  if (present.length !== 1) {
    for (const key of present) if (key !== expected) errs.push(forbidden(String(fld.child(key)), 'must populate the given metric source only'));
  }
  return errs;
}

function validateScalingRules(rules: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const window = optNum(rules, 'stabilizationWindowSeconds');
  if (window !== undefined && window < 0) errs.push(invalid(String(fld.child('stabilizationWindowSeconds')), window, 'must be greater than or equal to zero'));
  if (window !== undefined && window > maxStabilizationWindowSeconds) {
    errs.push(invalid(String(fld.child('stabilizationWindowSeconds')), window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  const select = optStr(rules, 'selectPolicy');
  if (select !== undefined && !selectPolicies.includes(select)) errs.push(notSupported(String(fld.child('selectPolicy')), select, selectPolicies));
  // Absent policies are defaulted; an explicit empty list is not.
  const policies = objs(rules, 'policies');
  if (Array.isArray(rules['policies']) && policies.length === 0) errs.push(required(String(fld.child('policies')), 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const idx = fld.child('policies').index(i);
    const type = str(p, 'type');
    if (!policyTypes.includes(type)) errs.push(notSupported(String(idx.child('type')), type, policyTypes));
    if (num(p, 'value') <= 0) errs.push(invalid(String(idx.child('value')), num(p, 'value'), 'must be greater than zero'));
    const period = num(p, 'periodSeconds');
    if (period <= 0) errs.push(invalid(String(idx.child('periodSeconds')), period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) errs.push(invalid(String(idx.child('periodSeconds')), period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return errs;
}

/** The spec in autoscaling's internal shape: v1's CPU target becomes a Resource metric. */
function internalSpec(hpa: Obj): Obj {
  const spec = obj(hpa, 'spec');
  if (str(hpa, 'apiVersion') !== 'autoscaling/v1') return spec;
  const cpu = optNum(spec, 'targetCPUUtilizationPercentage');
  const metrics = cpu === undefined ? [] : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } }];
  return { ...spec, metrics };
}

function validateHorizontalPodAutoscalerSpec(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const min = optNum(spec, 'minReplicas');
  const max = num(spec, 'maxReplicas');
  if (min !== undefined && min < 1) errs.push(invalid(String(fld.child('minReplicas')), min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(invalid(String(fld.child('maxReplicas')), max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(invalid(String(fld.child('maxReplicas')), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(obj(spec, 'scaleTargetRef'), fld.child('scaleTargetRef')));
  objs(spec, 'metrics').forEach((m, i) => errs.push(...validateMetricSpec(m, fld.child('metrics').index(i))));
  const behavior = optObj(spec, 'behavior');
  if (behavior) {
    for (const key of ['scaleUp', 'scaleDown']) {
      const rules = optObj(behavior, key);
      if (rules) errs.push(...validateScalingRules(rules, fld.child('behavior', key)));
    }
  }
  return errs;
}

function validateStatus(hpa: Obj): FieldError[] {
  const status = obj(hpa, 'status');
  return [
    ...validateNonnegativeField(num(status, 'currentReplicas'), newPath('status', 'currentReplicas')),
    // kube-apiserver's own spelling of this path.
    ...validateNonnegativeField(num(status, 'desiredReplicas'), newPath('status', 'desiredReplicasa')),
  ];
}

export const horizontalPodAutoscalerValidation: KindValidation = {
  validate: (hpa) => validateHorizontalPodAutoscalerSpec(internalSpec(hpa), newPath('spec')),
  validateUpdate: (hpa, _old, ctx) => (ctx.subresource === 'status' ? validateStatus(hpa) : validateHorizontalPodAutoscalerSpec(internalSpec(hpa), newPath('spec'))),
};

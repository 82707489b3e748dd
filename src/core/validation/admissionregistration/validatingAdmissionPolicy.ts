/**
 * ValidatingAdmissionPolicy and its binding, structurally
 * (ValidateValidatingAdmissionPolicy / ...Binding): failure policy, param
 * kind, match constraints, validations and audit annotations, binding
 * references and actions. Compiling the CEL expressions is the CEL
 * environment's part, not this module's.
 */
import { duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName, nameIsDNSSubdomain } from '../names';
import { objs, optObj, optStr, str, strs, type Obj } from '../values';
import { failurePolicies, matchPolicies, validateMatchConditions, validateRuleWithOperations } from './rules';

const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const validationActions = ['Audit', 'Deny', 'Warn'];
const celIdentRe = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

export function validateParamKind(kind: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(kind, 'apiVersion');
  const p = String(fld.child('apiVersion'));
  if (!apiVersion) errs.push(required(p));
  else if ((apiVersion.match(/\//g) ?? []).length > 1) errs.push(invalid(p, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
    if (group) {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length) errs.push(invalid(p, group, msgs.join(',')));
    }
    if (!version) errs.push(invalid(p, apiVersion, 'version must be specified'));
    else {
      const msgs = isDNS1035Label(version);
      if (msgs.length) errs.push(invalid(p, version, msgs.join(',')));
    }
  }
  const k = str(kind, 'kind');
  if (!k) errs.push(required(String(fld.child('kind'))));
  else {
    const msgs = isDNS1035Label(k.toLowerCase());
    if (msgs.length) errs.push(invalid(String(fld.child('kind')), k, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  return errs;
}

/** validateMatchResources; matchPolicy and both selectors default when absent. */
export function validateMatchResources(mc: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const matchPolicy = optStr(mc, 'matchPolicy');
  if (matchPolicy !== undefined && !matchPolicies.includes(matchPolicy)) errs.push(notSupported(String(fld.child('matchPolicy')), matchPolicy, matchPolicies));
  for (const key of ['namespaceSelector', 'objectSelector']) errs.push(...validateLabelSelector(mc[key], {}, fld.child(key)));
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    objs(mc, key).forEach((rule, i) => {
      const p = fld.child(key).index(i);
      const names = new Set<string>();
      strs(rule, 'resourceNames').forEach((n, j) => {
        for (const m of isValidPathSegmentName(n)) errs.push(invalid(String(p.child('resourceNames').index(j)), n, m));
        if (names.has(n)) errs.push(duplicate(String(p.child('resourceNames').index(j)), n));
        names.add(n);
      });
      errs.push(...validateRuleWithOperations(rule, p));
    });
  }
  return errs;
}

/** validateVariable for each entry: a CEL identifier and an expression (compiled by the CEL environment). */
export function validateVariables(vars: Obj[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  vars.forEach((v, i) => {
    const p = fld.index(i);
    const name = str(v, 'name');
    if (!name.trim()) errs.push(required(String(p.child('name')), 'name is not specified'));
    else if (!celIdentRe.test(name) || celReserved.has(name)) errs.push(invalid(String(p.child('name')), name, 'name is not a valid CEL identifier'));
    if (!str(v, 'expression').trim()) errs.push(required(String(p.child('expression')), 'expression is not specified'));
  });
  return errs;
}

/**
 * What validating and mutating admission policies check alike: failurePolicy
 * (defaults to Fail, so only a wrong value is an error), paramKind,
 * matchConstraints with resource rules (they give the expressions their
 * types), matchConditions and variables.
 */
export function validatePolicySpecCommon(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const failurePolicy = optStr(spec, 'failurePolicy');
  if (failurePolicy !== undefined && !failurePolicies.includes(failurePolicy)) errs.push(notSupported(String(fld.child('failurePolicy')), failurePolicy, failurePolicies));
  const paramKind = optObj(spec, 'paramKind');
  if (paramKind) errs.push(...validateParamKind(paramKind, fld.child('paramKind')));
  const mc = optObj(spec, 'matchConstraints');
  if (!mc) errs.push(required(String(fld.child('matchConstraints'))));
  else {
    errs.push(...validateMatchResources(mc, fld.child('matchConstraints')));
    if (objs(mc, 'resourceRules').length === 0) errs.push(required(String(fld.child('matchConstraints', 'resourceRules'))));
  }
  errs.push(...validateMatchConditions(objs(spec, 'matchConditions'), fld.child('matchConditions')));
  errs.push(...validateVariables(objs(spec, 'variables'), fld.child('variables')));
  return errs;
}

function validatePolicy(policy: Obj): FieldError[] {
  const spec = optObj(policy, 'spec') ?? {};
  const fld = newPath('spec');
  const errs: FieldError[] = validatePolicySpecCommon(spec, fld);
  const validations = objs(spec, 'validations');
  const audits = objs(spec, 'auditAnnotations');
  if (validations.length === 0 && audits.length === 0) {
    const msg = 'validations or auditAnnotations must contain at least one item';
    errs.push(required(String(fld.child('validations')), msg), required(String(fld.child('auditAnnotations')), msg));
    return errs;
  }
  validations.forEach((v, i) => {
    const p = fld.child('validations').index(i);
    if (!str(v, 'expression').trim()) errs.push(required(String(p.child('expression')), 'expression is not specified'));
    const messageExpression = str(v, 'messageExpression');
    if (messageExpression && !messageExpression.trim()) errs.push(invalid(String(p.child('messageExpression')), messageExpression, 'must be non-empty if specified'));
    const message = str(v, 'message');
    if (message && !message.trim()) errs.push(invalid(String(p.child('message')), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim())) errs.push(invalid(String(p.child('message')), message, 'message must not contain line breaks'));
    const reason = optStr(v, 'reason');
    if (reason !== undefined && !reasons.includes(reason)) errs.push(notSupported(String(p.child('reason')), reason, reasons));
  });
  if (audits.length > maxAuditAnnotations) {
    errs.push({ ...invalid(String(fld.child('auditAnnotations')), null, `must not have more than ${maxAuditAnnotations} auditAnnotations`), valueText: '[]admissionregistration.AuditAnnotation{...}' });
  }
  const keys = new Set<string>();
  const name = str(policy['metadata'], 'name');
  audits.forEach((a, i) => {
    const p = fld.child('auditAnnotations').index(i);
    const key = str(a, 'key');
    if (name) for (const m of isQualifiedName(`${name}/${key}`)) errs.push(invalid(String(p.child('key')), `${name}/${key}`, m));
    else errs.push(invalid(String(p.child('key')), key, 'requires metadata.name be non-empty'));
    const value = str(a, 'valueExpression').trim();
    if (!value) errs.push(required(String(p.child('valueExpression')), 'valueExpression is not specified'));
    else if (value.length > maxAuditAnnotationValueExpressionLength) errs.push(required(String(p.child('valueExpression')), `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
    if (keys.has(key)) errs.push(duplicate(String(p.child('key')), key));
    keys.add(key);
  });
  return errs;
}

/** validateParamRef: a name or a selector, and what to do when no parameter is found. */
export function validateParamRef(paramRef: Obj, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(paramRef, 'name');
  const selector = optObj(paramRef, 'selector');
  if (name) {
    for (const m of isValidPathSegmentName(name)) errs.push(invalid(String(p.child('name')), name, m));
    if (selector) errs.push(forbidden(String(p.child('name')), 'name and selector are mutually exclusive'));
  }
  if (selector) {
    errs.push(...validateLabelSelector(selector, {}, p.child('selector')));
    if (name) errs.push(forbidden(String(p.child('selector')), 'name and selector are mutually exclusive'));
  }
  if (!name && !selector) errs.push(required(String(p), 'one of name or selector must be specified'));
  const action = str(paramRef, 'parameterNotFoundAction');
  if (!action) errs.push(required(String(p.child('parameterNotFoundAction'))));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(notSupported(String(p.child('parameterNotFoundAction')), action, ['Deny', 'Allow']));
  return errs;
}

/** What validating and mutating policy bindings check alike: policyName, paramRef, matchResources. */
export function validateBindingSpecCommon(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const policyName = str(spec, 'policyName');
  if (!policyName) errs.push(required(String(fld.child('policyName'))));
  else for (const m of nameIsDNSSubdomain(policyName, false)) errs.push(invalid(String(fld.child('policyName')), policyName, m));
  const paramRef = optObj(spec, 'paramRef');
  if (paramRef) errs.push(...validateParamRef(paramRef, fld.child('paramRef')));
  // kube-apiserver's own spelling of this path.
  const mr = optObj(spec, 'matchResources');
  if (mr) errs.push(...validateMatchResources(mr, fld.child('matchResouces')));
  return errs;
}

function validateBinding(binding: Obj): FieldError[] {
  const spec = optObj(binding, 'spec') ?? {};
  const fld = newPath('spec');
  const errs: FieldError[] = validateBindingSpecCommon(spec, fld);
  const actions = strs(spec, 'validationActions');
  const ap = fld.child('validationActions');
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validationActions.includes(a)) errs.push(notSupported(String(ap.index(i)), a, validationActions));
    if (seen.has(a)) errs.push(duplicate(String(ap.index(i)), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push({
      ...invalid(String(ap), null, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'),
      valueText: `[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(', ')}}`,
    });
  }
  if (seen.size === 0) errs.push(required(String(ap), 'at least one validation action is required'));
  return errs;
}

export const validatingAdmissionPolicyValidation: KindValidation = {
  validate: (p) => validatePolicy(p),
  validateUpdate: (p, _old, ctx) => (ctx.subresource === 'status' ? [] : validatePolicy(p)),
};

export const validatingAdmissionPolicyBindingValidation: KindValidation = {
  validate: (b) => validateBinding(b),
  validateUpdate: (b) => validateBinding(b),
};

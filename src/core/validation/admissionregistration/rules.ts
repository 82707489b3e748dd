/** Rules shared by webhooks and admission policies (validateRuleWithOperations, validateRule, label selectors, match conditions). */
import { duplicate, goStringSlice, invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isQualifiedName } from '../names';
import { optStr, str, strs, type Obj } from '../values';

const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];
export const failurePolicies = ['Fail', 'Ignore'];
export const matchPolicies = ['Equivalent', 'Exact'];

const invalidList = (fld: Path, values: string[], detail: string, type = '[]string'): FieldError => ({
  ...invalid(String(fld), null, detail),
  valueText: goStringSlice(values).replace('[]string', type),
});

/** validateResources: sub-resource wildcards may not overlap. */
function validateResources(resources: string[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(String(fld)));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === '') {
      errs.push(required(String(fld.index(i))));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      withoutSub = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(invalid(String(fld.index(i)), rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(invalid(String(fld.index(i)), rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidList(fld, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalidList(fld, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

export function validateRuleWithOperations(rule: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strs(rule, 'operations');
  if (ops.length === 0) errs.push(required(String(fld.child('operations'))));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalidList(fld.child('operations'), ops, "if '*' is present, must not specify other operations", '[]admissionregistration.OperationType'));
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(notSupported(String(fld.child('operations').index(i)), op, operations));
  });
  const groups = strs(rule, 'apiGroups');
  if (groups.length === 0) errs.push(required(String(fld.child('apiGroups'))));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalidList(fld.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  const versions = strs(rule, 'apiVersions');
  if (versions.length === 0) errs.push(required(String(fld.child('apiVersions'))));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalidList(fld.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(String(fld.child('apiVersions').index(i))));
  });
  errs.push(...validateResources(strs(rule, 'resources'), fld.child('resources')));
  const scope = optStr(rule, 'scope');
  if (scope !== undefined && !scopes.includes(scope)) errs.push(notSupported(String(fld.child('scope')), scope, scopes));
  return errs;
}

/** validateMatchConditions, without compiling the expressions (the CEL environment checks those). */
export function validateMatchConditions(conditions: Obj[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > 64) errs.push({ type: 'FieldValueTooMany', field: String(fld), value: conditions.length, detail: 'must have at most 64 items', showValue: true });
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const p = fld.index(i);
    if (!str(c, 'expression').trim()) errs.push(required(String(p.child('expression'))));
    const name = str(c, 'name');
    if (!name) errs.push(required(String(p.child('name'))));
    else {
      for (const m of isQualifiedName(name)) errs.push(invalid(String(p.child('name')), name, m));
      if (names.has(name)) errs.push(duplicate(String(p.child('name')), name));
      names.add(name);
    }
  });
  return errs;
}


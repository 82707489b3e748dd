/** PolicyRule validation (ValidatePolicyRule): verbs, and either resources with groups or non-resource URLs. */
import { goStringSlice, invalid, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { strs, type Obj } from '../values';

export function validatePolicyRule(rule: Obj, namespaced: boolean, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (strs(rule, 'verbs').length === 0) errs.push(required(String(fld.child('verbs')), 'verbs must contain at least one value'));
  const urls = strs(rule, 'nonResourceURLs');
  if (urls.length > 0) {
    const shown = goStringSlice(urls);
    if (namespaced) errs.push({ ...invalid(String(fld.child('nonResourceURLs')), null, 'namespaced rules cannot apply to non-resource URLs'), valueText: shown });
    if (strs(rule, 'apiGroups').length || strs(rule, 'resources').length || strs(rule, 'resourceNames').length) {
      errs.push({ ...invalid(String(fld.child('nonResourceURLs')), null, 'rules cannot apply to both regular resources and non-resource URLs'), valueText: shown });
    }
    return errs;
  }
  if (strs(rule, 'apiGroups').length === 0) errs.push(required(String(fld.child('apiGroups')), 'resource rules must supply at least one api group'));
  if (strs(rule, 'resources').length === 0) errs.push(required(String(fld.child('resources')), 'resource rules must supply at least one resource'));
  return errs;
}

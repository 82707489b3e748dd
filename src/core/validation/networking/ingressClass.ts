/** IngressClass validation (ValidateIngressClass / ...Update): a domain-prefixed controller, fixed once set; parameters. */
import { forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isDNS1123Subdomain, isValidPathSegmentName, nameIsDNSLabel } from '../names';
import { obj, optObj, optStr, str, validateImmutableField, type Obj } from '../values';

const maxControllerLength = 250;
const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);
const scopes = ['Cluster', 'Namespace'];

/** IsDomainPrefixedPath */
function isDomainPrefixedPath(fld: Path, value: string): FieldError[] {
  if (!value) return [required(String(fld))];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || !host || !path) return [invalid(String(fld), value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => invalid(String(fld), host, m));
  if (!httpPathRe.test(path)) errs.push(invalid(String(fld), path, `Invalid path (regex used for validation is '${httpPathFmt}')`));
  return errs;
}

function validateParameters(params: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = optStr(params, 'apiGroup');
  if (apiGroup !== undefined) for (const m of isDNS1123Subdomain(apiGroup)) errs.push(invalid(String(fld.child('apiGroup')), apiGroup, m));
  for (const key of ['kind', 'name']) {
    const v = str(params, key);
    if (!v) errs.push(required(String(fld.child(key))));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(String(fld.child(key)), v, m));
  }
  const scope = optStr(params, 'scope');
  if (scope === undefined) return [...errs, required(String(fld.child('scope')))];
  const namespace = optStr(params, 'namespace');
  if (!scopes.includes(scope)) errs.push(notSupported(String(fld.child('scope')), scope, scopes));
  else if (scope === 'Namespace') {
    if (namespace === undefined) errs.push(required(String(fld.child('namespace')), "`parameters.scope` is set to 'Namespace'"));
    else for (const m of nameIsDNSLabel(namespace, false)) errs.push(invalid(String(fld.child('namespace')), namespace, m));
  } else if (namespace !== undefined) {
    errs.push(forbidden(String(fld.child('namespace')), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

function validateIngressClass(ic: Obj): FieldError[] {
  const spec = obj(ic, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const controller = str(spec, 'controller');
  if (!controller) errs.push(required(String(fld.child('controller'))));
  else {
    if (controller.length > maxControllerLength) errs.push(tooLong(String(fld.child('controller')), '', maxControllerLength));
    errs.push(...isDomainPrefixedPath(fld.child('controller'), controller));
  }
  const params = optObj(spec, 'parameters');
  if (params) errs.push(...validateParameters(params, fld.child('parameters')));
  return errs;
}

export const ingressClassValidation: KindValidation = {
  validate: (ic) => validateIngressClass(ic),
  validateUpdate: (ic, old) => [
    ...validateImmutableField(str(obj(ic, 'spec'), 'controller'), str(obj(old, 'spec'), 'controller'), newPath('spec', 'controller')),
    ...validateIngressClass(ic),
  ],
};

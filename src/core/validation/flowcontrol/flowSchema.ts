/** FlowSchema validation (ValidateFlowSchema): precedence, distinguisher, the priority level reference, rules and subjects. */
import { forbidden, goQuote, goStringSlice, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { nameIsDNSLabel, nameIsDNSSubdomain, isValidPathSegmentName } from '../names';
import { obj, objs, optNum, optObj, str, strs, type Obj } from '../values';

const maxMatchingPrecedence = 10000;
const distinguishers = ['ByNamespace', 'ByUser'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];
const supportedVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

const invalidList = (fld: Path, values: string[], detail: string): FieldError => ({ ...invalid(String(fld), null, detail), valueText: goStringSlice(values) });

function validateVerbs(verbs: string[], fld: Path): FieldError[] {
  if (verbs.length === 0) return [required(String(fld), 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [invalidList(fld, verbs, "if '*' is present, must not specify other verbs")] : [];
  if (verbs.every((v) => supportedVerbs.includes(v))) return [];
  return [{ ...notSupported(String(fld), null, supportedVerbs), valueText: goStringSlice(verbs) }];
}

function validateNonResourceURLPath(path: string, fld: Path): FieldError[] {
  const f = String(fld);
  if (!path) return [invalid(f, path, 'must not be empty')];
  if (path === '/') return [];
  if (!path.startsWith('/')) return [invalid(f, path, 'must start with slash')];
  if (path.includes(' ')) return [invalid(f, path, 'must not contain white-space')];
  if (path.includes('//')) return [invalid(f, path, 'must not contain double slash')];
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return [invalid(f, path, 'wildcard can only do suffix glob matching')];
  return [];
}

function validateResourceRule(rule: Obj, fld: Path): FieldError[] {
  const errs = validateVerbs(strs(rule, 'verbs'), fld.child('verbs'));
  const groups = strs(rule, 'apiGroups');
  if (groups.length === 0) errs.push(required(String(fld.child('apiGroups')), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalidList(fld.child('apiGroups'), groups, "if '*' is present, must not specify other api groups"));
  const resources = strs(rule, 'resources');
  if (resources.length === 0) errs.push(required(String(fld.child('resources')), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalidList(fld.child('resources'), resources, "if '*' is present, must not specify other resources"));
  const namespaces = strs(rule, 'namespaces');
  if (namespaces.length === 0 && rule['clusterScope'] !== true) {
    errs.push(required(String(fld.child('namespaces')), 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalidList(fld.child('namespaces'), namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(String(fld.child('namespaces').index(i)), ns, nsErrIntro + m));
    });
  }
  return errs;
}

function validateNonResourceRule(rule: Obj, fld: Path): FieldError[] {
  const errs = validateVerbs(strs(rule, 'verbs'), fld.child('verbs'));
  const urls = strs(rule, 'nonResourceURLs');
  if (urls.length === 0) errs.push(required(String(fld.child('nonResourceURLs')), 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalidList(fld.child('nonResourceURLs'), urls, "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((u, i) => errs.push(...validateNonResourceURLPath(u, fld.child('nonResourceURLs').index(i))));
  return errs;
}

function validateSubject(subject: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const kind = str(subject, 'kind');
  const others: Record<string, string> = { ServiceAccount: 'serviceAccount', User: 'user', Group: 'group' };
  const own = others[kind];
  if (!own) return [notSupported(String(fld.child('kind')), kind, subjectKinds)];
  const detail = optObj(subject, own);
  if (!detail) errs.push(required(String(fld.child(own)), `${own} is required when subject kind is '${kind}'`));
  else if (kind === 'ServiceAccount') {
    const name = str(detail, 'name');
    const namespace = str(detail, 'namespace');
    if (!name) errs.push(required(String(fld.child(own, 'name'))));
    else if (name !== '*') for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(String(fld.child(own, 'name')), name, m));
    if (namespace) for (const m of nameIsDNSLabel(namespace, false)) errs.push(invalid(String(fld.child(own, 'namespace')), namespace, m));
    else errs.push(required(String(fld.child(own, 'namespace')), 'must specify namespace for service account'));
  } else if (!str(detail, 'name')) errs.push(required(String(fld.child(own, 'name'))));
  for (const [otherKind, key] of Object.entries(others)) {
    if (key === own || !optObj(subject, key)) continue;
    errs.push(forbidden(String(fld.child(key)), `${key} is forbidden when subject kind is not '${otherKind}'`));
  }
  return errs;
}

function validateFlowSchema(fs: Obj): FieldError[] {
  const spec = obj(fs, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const name = str(fs['metadata'], 'name');
  // matchingPrecedence defaults to 1000.
  const precedence = optNum(spec, 'matchingPrecedence') ?? 1000;
  if (precedence <= 0) errs.push(invalid(String(fld.child('matchingPrecedence')), precedence, 'must be a positive value'));
  if (precedence > maxMatchingPrecedence) errs.push(invalid(String(fld.child('matchingPrecedence')), precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && name !== 'exempt') errs.push(invalid(String(fld.child('matchingPrecedence')), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const distinguisher = optObj(spec, 'distinguisherMethod');
  if (distinguisher && !distinguishers.includes(str(distinguisher, 'type'))) {
    errs.push({ ...notSupported(String(fld.child('distinguisherMethod', 'type')), null, distinguishers), valueText: `flowcontrol.FlowDistinguisherMethod{Type:${goQuote(str(distinguisher, 'type'))}}` });
  }
  const level = str(obj(spec, 'priorityLevelConfiguration'), 'name');
  if (level) for (const m of isValidPathSegmentName(level)) errs.push(invalid(String(fld.child('priorityLevelConfiguration', 'name')), level, m));
  else errs.push(required(String(fld.child('priorityLevelConfiguration', 'name')), 'must reference a priority level'));
  objs(spec, 'rules').forEach((rule, i) => {
    const p = fld.child('rules').index(i);
    const subjects = objs(rule, 'subjects');
    if (subjects.length === 0) errs.push(required(String(p.child('subjects')), 'subjects must contain at least one value'));
    subjects.forEach((s, j) => errs.push(...validateSubject(s, p.child('subjects').index(j))));
    const resourceRules = objs(rule, 'resourceRules');
    const nonResourceRules = objs(rule, 'nonResourceRules');
    if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(required(String(p), 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((r, j) => errs.push(...validateResourceRule(r, p.child('resourceRules').index(j))));
    nonResourceRules.forEach((r, j) => errs.push(...validateNonResourceRule(r, p.child('nonResourceRules').index(j))));
  });
  return errs;
}

export const flowSchemaValidation: KindValidation = {
  validate: (fs) => validateFlowSchema(fs),
  validateUpdate: (fs, _old, ctx) => (ctx.subresource === 'status' ? [] : validateFlowSchema(fs)),
};

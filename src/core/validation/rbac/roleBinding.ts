/**
 * RoleBinding and ClusterRoleBinding validation (ValidateRoleBinding /
 * ValidateClusterRoleBinding and their updates): roleRef (fixed after
 * creation) and subjects.
 */
import { goQuote, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isValidPathSegmentName, nameIsDNSSubdomain } from '../names';
import { obj, objs, str, type Obj } from '../values';

const rbacGroup = 'rbac.authorization.k8s.io';

/** ValidateRoleBindingSubject; User and Group subjects default their apiGroup to rbac's. */
function validateSubject(subject: Obj, namespaced: boolean, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(subject, 'name');
  const kind = str(subject, 'kind');
  const apiGroup = str(subject, 'apiGroup') || (kind === 'User' || kind === 'Group' ? rbacGroup : '');
  if (!name) errs.push(required(String(fld.child('name'))));
  switch (kind) {
    case 'ServiceAccount':
      if (name) for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(String(fld.child('name')), name, m));
      if (apiGroup) errs.push(notSupported(String(fld.child('apiGroup')), apiGroup, ['']));
      if (!namespaced && !str(subject, 'namespace')) errs.push(required(String(fld.child('namespace'))));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroup) errs.push(notSupported(String(fld.child('apiGroup')), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(notSupported(String(fld.child('kind')), kind, ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const roleRef = obj(binding, 'roleRef');
  const apiGroup = str(roleRef, 'apiGroup');
  if (apiGroup !== rbacGroup) errs.push(notSupported('roleRef.apiGroup', apiGroup, [rbacGroup]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  const kind = str(roleRef, 'kind');
  if (!kinds.includes(kind)) errs.push(notSupported('roleRef.kind', kind, kinds));
  const name = str(roleRef, 'name');
  if (!name) errs.push(required('roleRef.name'));
  else for (const m of isValidPathSegmentName(name)) errs.push(invalid('roleRef.name', name, m));
  objs(binding, 'subjects').forEach((s, i) => errs.push(...validateSubject(s, namespaced, newPath('subjects').index(i))));
  return errs;
}

/** Go's %#v of rbac.RoleRef, as the roleRef error shows it. */
function roleRefText(ref: Obj): string {
  return `rbac.RoleRef{APIGroup:${goQuote(str(ref, 'apiGroup'))}, Kind:${goQuote(str(ref, 'kind'))}, Name:${goQuote(str(ref, 'name'))}}`;
}

function validateBindingUpdate(binding: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const errs = validateBinding(binding, namespaced);
  const ref = obj(binding, 'roleRef');
  const oldRef = obj(old, 'roleRef');
  if (['apiGroup', 'kind', 'name'].some((k) => str(ref, k) !== str(oldRef, k))) {
    errs.push({ ...invalid('roleRef', null, 'cannot change roleRef'), valueText: roleRefText(ref) });
  }
  return errs;
}

export const roleBindingValidation: KindValidation = {
  validate: (b) => validateBinding(b, true),
  validateUpdate: (b, old) => validateBindingUpdate(b, old, true),
};

export const clusterRoleBindingValidation: KindValidation = {
  validate: (b) => validateBinding(b, false),
  validateUpdate: (b, old) => validateBindingUpdate(b, old, false),
};

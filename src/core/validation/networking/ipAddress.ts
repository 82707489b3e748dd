/**
 * IPAddress (ValidateIPAddress / ValidateIPAddressUpdate): the name is the
 * address itself in canonical form, and spec.parentRef names the object
 * the address is allocated to; it never changes.
 */
import { invalid, required, type FieldError } from '../../errors';
import { goQuote } from '../../errors/goFormat';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isDNS1123Subdomain, isValidPathSegmentName, type NameValidator } from '../names';
import { optObj, str, validateImmutableField, type Obj } from '../values';
import { canonicalIP, parseAddrError } from './netip';

/** ValidateIPAddressName: netip must parse it, and it must be the address's canonical text. */
export const nameIsIPAddress: NameValidator = (name) => {
  const err = parseAddrError(name);
  if (err) return [err];
  return canonicalIP(name) === name ? [] : ['must be a canonical format IP address'];
};

function validateParentReference(ref: Obj | undefined, spec: Path): FieldError[] {
  if (!ref) return [required(String(spec.child('parentRef')))];
  const fld = spec.child('parentRef');
  const errs: FieldError[] = [];
  // The core group of Services is the empty string, so group cannot be required.
  const group = str(ref, 'group');
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(invalid(String(fld.child('group')), group, m));
  for (const key of ['resource', 'name']) {
    const v = str(ref, key);
    if (!v) errs.push(required(String(fld.child(key))));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(String(fld.child(key)), v, m));
  }
  const namespace = str(ref, 'namespace');
  if (namespace) for (const m of isValidPathSegmentName(namespace)) errs.push(invalid(String(fld.child('namespace')), namespace, m));
  return errs;
}

/** %#v of a *networking.ParentReference as field errors print it (pointer dereferenced). */
function parentRefText(ref: Obj | undefined): string {
  if (!ref) return 'null';
  const f = (k: string) => goQuote(str(ref, k));
  return `networking.ParentReference{Group:${f('group')}, Resource:${f('resource')}, Namespace:${f('namespace')}, Name:${f('name')}}`;
}

export const ipAddressValidation: KindValidation = {
  validate: (o) => validateParentReference(optObj(o['spec'], 'parentRef'), newPath('spec')),
  validateUpdate: (o, old) => {
    const next = optObj(o['spec'], 'parentRef');
    const prev = optObj(old['spec'], 'parentRef');
    const norm = (r: Obj | undefined) => (r ? { group: str(r, 'group'), resource: str(r, 'resource'), namespace: str(r, 'namespace'), name: str(r, 'name') } : null);
    return validateImmutableField(norm(next), norm(prev), newPath('spec', 'parentRef'), parentRefText(next));
  },
};

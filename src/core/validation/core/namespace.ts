/** Namespace validation (ValidateNamespace / ValidateNamespaceFinalizeUpdate): spec.finalizers names. */
import { invalid, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, str, strs, type Obj } from '../values';

/** Finalizers kube-apiserver knows without a domain prefix (helper.IsStandardFinalizerName). */
const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** validateFinalizerName of pkg/apis/core/validation: a qualified name, domain-prefixed unless standard. */
export function validateKubeFinalizerName(name: string, fld: Path): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(String(fld), name, m));
  if (!name.includes('/') && !standardFinalizers.has(name)) {
    errs.push(invalid(String(fld), name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

function validateSpecFinalizers(ns: Obj): FieldError[] {
  return strs(obj(ns, 'spec'), 'finalizers').flatMap((f) => validateKubeFinalizerName(f, newPath('spec', 'finalizers')));
}

/** ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp. */
function validateStatus(ns: Obj): FieldError[] {
  const phase = str(obj(ns, 'status'), 'phase');
  // kube-apiserver capitalises this path.
  if (!str(ns['metadata'], 'deletionTimestamp')) {
    return phase === 'Active' ? [] : [invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

export const namespaceValidation: KindValidation = {
  validate: (ns) => validateSpecFinalizers(ns),
  validateUpdate(ns, _old, ctx) {
    if (ctx.subresource === 'finalize') return validateSpecFinalizers(ns);
    if (ctx.subresource === 'status') return validateStatus(ns);
    return [];
  },
};

// Kubernetes JSONPatch library (MutatingAdmissionPolicy's JSON patches, in the base
// environment since 1.32): jsonpatch.escapeKey escapes a key for a JSON Pointer
// path (RFC 6901: `~` as `~0`, `/` as `~1`). Its cost is the library estimator's.

import { def, type Library } from '../../interpreter/functions';

export function k8sJSONPatchLibrary(): Library {
  return {
    name: 'k8s.jsonpatch',
    overloads: [def('string_jsonpatch_escapekey_string', 'jsonpatch.escapeKey(string) -> string', (k) => (k as string).replaceAll('~', '~0').replaceAll('/', '~1'))],
  };
}

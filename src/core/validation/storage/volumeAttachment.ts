/** VolumeAttachment validation (ValidateVolumeAttachment / ...Update): attacher, exactly one source, node name; the spec is fixed. */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, required, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { nameIsDNSSubdomain } from '../names';
import { obj, optObj, optStr, str, type Obj } from '../values';
import { validateCSIDriverName } from './csi';

function validateVolumeAttachment(va: Obj): FieldError[] {
  const spec = obj(va, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const attacher = str(spec, 'attacher');
  if (!attacher) errs.push(required(String(fld.child('attacher'))));
  else errs.push(...validateCSIDriverName(attacher, fld.child('attacher')));
  const source = obj(spec, 'source');
  const pvName = optStr(source, 'persistentVolumeName');
  const inline = optObj(source, 'inlineVolumeSpec');
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (pvName === undefined && !inline) errs.push(required(String(fld.child('source')), exactlyOne));
  else if (pvName !== undefined && inline) errs.push(forbidden(String(fld.child('source')), exactlyOne));
  else if (pvName === '') errs.push(required(String(fld.child('source', 'persistentVolumeName')), 'must specify non empty persistentVolumeName'));
  const nodeName = str(spec, 'nodeName');
  for (const m of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(String(fld.child('nodeName')), nodeName, m));
  return errs;
}

export const volumeAttachmentValidation: KindValidation = {
  validate: (va) => validateVolumeAttachment(va),
  validateUpdate(va, old, ctx) {
    if (ctx.subresource === 'status') return [];
    const errs = validateVolumeAttachment(va);
    if (!jsonEqual(va['spec'] ?? null, old['spec'] ?? null)) errs.push({ ...invalid('spec', null, 'field is immutable'), valueText: 'storage.VolumeAttachmentSpec{...}' });
    return errs;
  },
};

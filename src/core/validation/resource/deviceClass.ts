/** DeviceClass (ValidateDeviceClass / ValidateDeviceClassUpdate): CEL selectors and opaque driver configuration, within their list limits. */
import type { FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { obj, objs, type Obj } from '../values';
import { limits, validateDeviceConfiguration, validateSelectors, validateSlice } from './common';

function validateDeviceClassSpec(spec: Obj): FieldError[] {
  const fld = newPath('spec');
  return [...validateSelectors(spec, fld), ...validateSlice(objs(spec, 'config'), limits.deviceConfig, validateDeviceConfiguration, fld.child('config'))];
}

export const deviceClassValidation: KindValidation = {
  validate: (o) => validateDeviceClassSpec(obj(o, 'spec')),
  validateUpdate: (o) => validateDeviceClassSpec(obj(o, 'spec')),
};

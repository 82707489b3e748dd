/** APIService validation (kube-aggregator's ValidateAPIService / ...Update): name version.group, priorities, service or local. */
import { invalid, required, type FieldError } from '../../errors';
import type { KindValidation } from '../kinds';
import { isDNS1035Label, isDNS1123Subdomain } from '../names';
import { isValidPortNum, num, obj, optNum, optObj, str, type Obj } from '../values';

function validateAPIService(svc: Obj): FieldError[] {
  const spec = obj(svc, 'spec');
  const errs: FieldError[] = [];
  const group = str(spec, 'group');
  const version = str(spec, 'version');
  const requiredName = `${version}.${group}`;
  const name = str(svc['metadata'], 'name');
  if (name && name !== requiredName) errs.push(invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${requiredName}"`));
  if (!group && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(invalid('spec.version', version, m));
  const groupPriority = num(spec, 'groupPriorityMinimum');
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = num(spec, 'versionPriority');
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = str(spec, 'caBundle');
  const insecure = spec['insecureSkipTLSVerify'] === true;
  const service = optObj(spec, 'service');
  if (!service) {
    if (caBundle) errs.push(invalid('spec.caBundle', `${atobLength(caBundle)} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!str(service, 'namespace')) errs.push(required('spec.service.namespace'));
  if (!str(service, 'name')) errs.push(required('spec.service.name'));
  // The port defaults to 443.
  const port = optNum(service, 'port') ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
  if (insecure && caBundle) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

/** Bytes a base64 caBundle decodes to. */
function atobLength(b64: string): number {
  try {
    return atob(b64).length;
  } catch {
    return 0;
  }
}

export const apiServiceValidation: KindValidation = {
  validate: (svc) => validateAPIService(svc),
  validateUpdate: (svc, _old, ctx) => (ctx.subresource === 'status' ? [] : validateAPIService(svc)),
};

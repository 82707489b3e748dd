/** Endpoints validation (ValidateEndpoints / ValidateEndpointsUpdate): subsets need addresses; addresses, hostnames and ports are checked. */
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isDNS1123Label, isQualifiedName, nameIsDNSSubdomain } from '../names';
import { isValidPortNum, num, objs, optStr, str, type Obj } from '../values';
import { validateIPForLegacyField, validateNonSpecialIP } from './addresses';

export const portProtocols = ['SCTP', 'TCP', 'UDP'];

function validateAddress(addr: Obj, fld: Path): FieldError[] {
  const ip = str(addr, 'ip');
  const errs = validateIPForLegacyField(ip, fld.child('ip'));
  const hostname = str(addr, 'hostname');
  if (hostname) for (const m of isDNS1123Label(hostname)) errs.push(invalid(String(fld.child('hostname')), hostname, m));
  const nodeName = optStr(addr, 'nodeName');
  if (nodeName !== undefined) for (const m of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(String(fld.child('nodeName')), nodeName, m));
  errs.push(...validateNonSpecialIP(ip, fld.child('ip')));
  return errs;
}

function validatePort(port: Obj, requireName: boolean, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port, 'name');
  if (requireName && !name) errs.push(required(String(fld.child('name'))));
  else if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(String(fld.child('name')), name, m));
  for (const m of isValidPortNum(num(port, 'port'))) errs.push(invalid(String(fld.child('port')), num(port, 'port'), m));
  // protocol defaults to TCP.
  const protocol = optStr(port, 'protocol') ?? 'TCP';
  if (!protocol) errs.push(required(String(fld.child('protocol'))));
  else if (!portProtocols.includes(protocol)) errs.push(notSupported(String(fld.child('protocol')), protocol, portProtocols));
  const appProtocol = optStr(port, 'appProtocol');
  if (appProtocol !== undefined) for (const m of isQualifiedName(appProtocol)) errs.push(invalid(String(fld.child('appProtocol')), appProtocol, m));
  return errs;
}

function validateEndpoints(ep: Obj): FieldError[] {
  const errs: FieldError[] = [];
  objs(ep, 'subsets').forEach((ss, i) => {
    const idx = newPath('subsets').index(i);
    const addresses = objs(ss, 'addresses');
    const notReady = objs(ss, 'notReadyAddresses');
    if (addresses.length === 0 && notReady.length === 0) errs.push(required(String(idx), 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateAddress(a, idx.child('addresses').index(j))));
    notReady.forEach((a, j) => errs.push(...validateAddress(a, idx.child('notReadyAddresses').index(j))));
    const ports = objs(ss, 'ports');
    ports.forEach((p, j) => errs.push(...validatePort(p, ports.length > 1, idx.child('ports').index(j))));
  });
  return errs;
}

export const endpointsValidation: KindValidation = {
  validate: (ep) => validateEndpoints(ep),
  validateUpdate: (ep) => validateEndpoints(ep),
};

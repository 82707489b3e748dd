/** EndpointSlice validation (ValidateEndpointSliceCreate / ...Update): address type (fixed), endpoints and their addresses, ports. */
import { duplicate, invalid, notSupported, required, type FieldError } from '../../errors';
import { validateNonSpecialIP } from '../core/addresses';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabels } from '../labels';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../names';
import { parseIP } from '../net';
import { objs, optStr, str, strs, validateImmutableField, type Obj } from '../values';

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const maxEndpoints = 1000;
const maxAddresses = 100;
const maxPorts = 20000;

const tooMany = (fld: Path, n: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field: String(fld), value: n, detail: `must have at most ${max} items`, showValue: true });

/** IsFullyQualifiedDomainName */
function isFullyQualifiedDomainName(fld: Path, name: string): FieldError[] {
  let s = name;
  if (s.endsWith('.')) s = s.slice(0, -1);
  if (!s) return [required(String(fld))];
  const msgs = isDNS1123Subdomain(s);
  if (msgs.length) return [invalid(String(fld), name, msgs.join(','))];
  if (s.split('.').length < 2) return [invalid(String(fld), name, 'should be a domain with at least two segments separated by dots')];
  return [];
}

function validateAddress(type: string, address: string, fld: Path): FieldError[] {
  switch (type) {
    case 'IPv4':
    case 'IPv6': {
      const ip = parseIP(address);
      if (!ip || ip.v4 !== (type === 'IPv4')) return [invalid(String(fld), address, `must be a valid ${type} address`)];
      return validateNonSpecialIP(address, fld);
    }
    case 'FQDN':
      return isFullyQualifiedDomainName(fld, address);
  }
  return [];
}

function validateEndpointSlice(slice: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(slice, 'addressType');
  if (!type) errs.push(required('addressType'));
  else if (!addressTypes.includes(type)) errs.push(notSupported('addressType', type, addressTypes));

  const endpoints = objs(slice, 'endpoints');
  if (endpoints.length > maxEndpoints) errs.push(tooMany(newPath('endpoints'), endpoints.length, maxEndpoints));
  else {
    endpoints.forEach((ep, i) => {
      const idx = newPath('endpoints').index(i);
      const addresses = strs(ep, 'addresses');
      const addrPath = idx.child('addresses');
      if (addresses.length === 0) errs.push(required(String(addrPath), 'must contain at least 1 address'));
      else if (addresses.length > maxAddresses) errs.push(tooMany(addrPath, addresses.length, maxAddresses));
      addresses.forEach((a, j) => errs.push(...validateAddress(type, a, addrPath.index(j))));
      const nodeName = optStr(ep, 'nodeName');
      if (nodeName !== undefined) for (const m of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(String(idx.child('nodeName')), nodeName, m));
      errs.push(...validateLabels(ep['deprecatedTopology'], String(idx.child('deprecatedTopology'))));
      const hostname = optStr(ep, 'hostname');
      if (hostname !== undefined) for (const m of isDNS1123Label(hostname)) errs.push(invalid(String(idx.child('hostname')), hostname, m));
    });
  }

  const ports = objs(slice, 'ports');
  if (ports.length > maxPorts) return [...errs, tooMany(newPath('ports'), ports.length, maxPorts)];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const idx = newPath('ports').index(i);
    const name = str(p, 'name');
    if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(String(idx.child('name')), name, m));
    if (names.has(name)) errs.push(duplicate(String(idx.child('name')), name));
    names.add(name);
    // protocol defaults to TCP.
    const protocol = optStr(p, 'protocol') ?? 'TCP';
    if (!protocols.includes(protocol)) errs.push(notSupported(String(idx.child('protocol')), protocol, protocols));
    const appProtocol = optStr(p, 'appProtocol');
    if (appProtocol !== undefined) for (const m of isQualifiedName(appProtocol)) errs.push(invalid(String(idx.child('appProtocol')), appProtocol, m));
  });
  return errs;
}

export const endpointSliceValidation: KindValidation = {
  validate: (slice) => validateEndpointSlice(slice),
  validateUpdate: (slice, old) => [...validateEndpointSlice(slice), ...validateImmutableField(str(slice, 'addressType'), str(old, 'addressType'), newPath('addressType'))],
};


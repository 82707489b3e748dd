/**
 * Pieces every resource.k8s.io kind shares (kube's pkg/apis/resource/validation):
 * list limits, driver and qualified names, CEL device selectors and opaque
 * driver configuration. Compiling the CEL selectors is the CEL environment's part.
 */
import { invalid, required, tooLong, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isDNS1123Label, isDNS1123Subdomain } from '../names';
import { has, objs, optObj, str, type Obj } from '../values';

/** The limits of k8s.io/api/resource/v1 (types.go constants). */
export const limits = {
  deviceRequests: 32,
  deviceConstraints: 32,
  deviceConfig: 32,
  deviceSelectors: 32,
  deviceTolerations: 16,
  firstAvailable: 8,
  sliceDevices: 128,
  attributesAndCapacities: 32,
  attributeValueLength: 64,
  domainLength: 63,
  idLength: 32,
  driverNameLength: 63,
  poolNameLength: 253,
  opaqueParametersLength: 10 * 1024,
  celExpressionLength: 10 * 1024,
};

export const tooMany = (fld: Path, n: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field: String(fld), value: n, detail: `must have at most ${max} items`, showValue: true });

/** validateSlice: each item, then the length limit (the count only: the list itself would be too long to show). */
export function validateSlice(items: Obj[], max: number, item: (o: Obj, p: Path) => FieldError[], fld: Path): FieldError[] {
  const errs = items.flatMap((o, i) => item(o, fld.index(i)));
  if (items.length > max) errs.push(tooMany(fld, items.length, max));
  return errs;
}

/** validateSet: validateSlice, and no two items with the same key (reported at <item>.<keyField>). */
export function validateSet<T>(items: T[], max: number, item: (o: T, p: Path) => FieldError[], key: (o: T) => [string, string], fld: Path): FieldError[] {
  const errs = items.flatMap((o, i) => item(o, fld.index(i)));
  if (items.length > max) errs.push(tooMany(fld, items.length, max));
  const seen = new Set<string>();
  items.forEach((o, i) => {
    const [k, field] = key(o);
    const p = field ? fld.index(i).child(field) : fld.index(i);
    if (seen.has(k)) errs.push({ type: 'FieldValueDuplicate', field: String(p), value: k });
    seen.add(k);
  });
  return errs;
}

export const dns1123Label = (v: string, fld: Path): FieldError[] => isDNS1123Label(v).map((m) => invalid(String(fld), v, m));
export const dns1123Subdomain = (v: string, fld: Path): FieldError[] => isDNS1123Subdomain(v).map((m) => invalid(String(fld), v, m));

/** validateDriverName: a DNS subdomain (case-insensitively) of at most 63 characters. */
export function validateDriverName(name: string, fld: Path): FieldError[] {
  if (!name) return [required(String(fld))];
  const errs: FieldError[] = [];
  if (name.length > limits.driverNameLength) errs.push(tooLong(String(fld), name, limits.driverNameLength));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(String(fld), name, m));
  return errs;
}

const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentifierRe = new RegExp(`^${cIdentifierFmt}$`);

function validateCIdentifier(id: string, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (id.length > limits.idLength) errs.push(tooLong(String(fld), id, limits.idLength));
  if (!cIdentifierRe.test(id)) {
    errs.push({
      type: 'FieldValueTypeInvalid', field: String(fld), value: id,
      detail: `a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '${cIdentifierFmt}')`,
    });
  }
  return errs;
}

/** validateQualifiedName: a C identifier, optionally after a DNS domain and '/'. */
export function validateQualifiedName(name: string, fld: Path): FieldError[] {
  if (!name) return [required(String(fld), 'name required')];
  const parts = name.split('/');
  if (parts.length > 2) return [invalid(String(fld), name, 'must be either a C identifier or a domain followed by a slash and a C identifier')];
  if (parts.length === 1) return validateCIdentifier(name, fld);
  const [domain, id] = parts as [string, string];
  const errs: FieldError[] = [];
  if (!domain) errs.push(required(String(fld), 'the domain must not be empty'));
  else {
    if (domain.length > limits.domainLength) errs.push(tooLong(String(fld), domain, limits.domainLength));
    errs.push(...dns1123Subdomain(domain, fld));
  }
  if (!id) errs.push(required(String(fld), 'the name must not be empty'));
  else errs.push(...validateCIdentifier(id, fld));
  return errs;
}

/** validateFullyQualifiedName: a qualified name that really has a domain. */
export function validateFullyQualifiedName(name: string, fld: Path): FieldError[] {
  const errs = validateQualifiedName(name, fld);
  if (name && !name.includes('/')) errs.push(invalid(String(fld), name, 'must include a domain'));
  return errs;
}

/** validateSelector: a CEL selector with a non-empty expression within the length limit. */
export function validateSelector(selector: Obj, fld: Path): FieldError[] {
  const cel = optObj(selector, 'cel');
  if (!cel) return [required(String(fld.child('cel')))];
  const expression = str(cel, 'expression');
  if (!expression) return [required(String(fld.child('cel', 'expression')))];
  if (expression.length > limits.celExpressionLength) return [{ ...tooLong(String(fld.child('cel', 'expression')), '', limits.celExpressionLength) }];
  return [];
}

export const validateSelectors = (o: Obj, fld: Path): FieldError[] => validateSlice(objs(o, 'selectors'), limits.deviceSelectors, validateSelector, fld.child('selectors'));

/** validateDeviceConfiguration: opaque driver parameters, a JSON object within 10 KiB. */
export function validateDeviceConfiguration(config: Obj, fld: Path): FieldError[] {
  const opaque = optObj(config, 'opaque');
  if (!opaque) return [required(String(fld.child('opaque')))];
  const p = fld.child('opaque');
  const errs = validateDriverName(str(opaque, 'driver'), p.child('driver'));
  const pp = p.child('parameters');
  if (!has(opaque, 'parameters')) errs.push(required(String(pp)));
  else if (JSON.stringify(opaque['parameters']).length > limits.opaqueParametersLength) errs.push(tooLong(String(pp), '', limits.opaqueParametersLength));
  else if (typeof opaque['parameters'] !== 'object' || Array.isArray(opaque['parameters'])) errs.push(invalid(String(pp), '<value omitted>', 'must be a valid JSON object'));
  return errs;
}

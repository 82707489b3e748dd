/**
 * ClusterTrustBundle validation (ValidateClusterTrustBundle / ...Update): the
 * name follows the signer, the signer name, and a bundle of CERTIFICATE
 * blocks without headers or duplicates. X.509 contents (CA bit, basic
 * constraints) are not parsed here.
 */
import { invalid, tooLong, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { nameIsDNSSubdomain } from '../names';
import { obj, str, validateImmutableField, type Obj } from '../values';
import { validateSignerName } from './signerName';

const maxTrustBundleSize = 1024 * 1024;

function nameErrors(name: string, signer: string): string[] {
  if (!signer) return name.includes(':') ? ['ClusterTrustBundle without signer name must not have ":" in its name'] : nameIsDNSSubdomain(name, false);
  const prefix = `${signer.replaceAll('/', ':')}:`;
  if (!name.startsWith(prefix)) return [`ClusterTrustBundle for signerName ${signer} must be named with prefix ${prefix}`];
  return nameIsDNSSubdomain(name.slice(prefix.length), false);
}

function validateTrustBundle(bundle: string): FieldError[] {
  const fld = 'spec.trustBundle';
  if (bundle.length > maxTrustBundleSize) return [tooLong(fld, `<value omitted, len ${bundle.length}>`, maxTrustBundleSize)];
  const errs: FieldError[] = [];
  const seen = new Map<string, number[]>();
  const re = /-----BEGIN ([^-\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  let i = -1;
  for (let m = re.exec(bundle); m; m = re.exec(bundle)) {
    i++;
    const [, type, body] = m as unknown as [string, string, string];
    if (type !== 'CERTIFICATE') {
      errs.push(invalid(fld, '<value omitted>', `entry ${i} has bad block type: ${type}`));
      continue;
    }
    if (/^[^\s:]+:/m.test(body)) {
      errs.push(invalid(fld, '<value omitted>', `entry ${i} has PEM block headers`));
      continue;
    }
    const key = body.replace(/\s+/g, '');
    seen.set(key, [...(seen.get(key) ?? []), i]);
  }
  if (errs.length === 0 && seen.size === 0) errs.push(invalid(fld, '<value omitted>', 'at least one trust anchor must be provided'));
  for (const indices of seen.values()) {
    if (indices.length > 1) errs.push(invalid(fld, '<value omitted>', `duplicate trust anchor (indices [${indices.join(' ')}])`));
  }
  return errs;
}

function validateClusterTrustBundle(ctb: Obj): FieldError[] {
  const spec = obj(ctb, 'spec');
  const signer = str(spec, 'signerName');
  const name = str(ctb['metadata'], 'name');
  const errs = name ? nameErrors(name, signer).map((m) => invalid('metadata.name', name, m)) : [];
  if (signer) errs.push(...validateSignerName(newPath('spec', 'signerName'), signer));
  errs.push(...validateTrustBundle(str(spec, 'trustBundle')));
  return errs;
}

export const clusterTrustBundleValidation: KindValidation = {
  validate: (ctb) => validateClusterTrustBundle(ctb),
  validateUpdate: (ctb, old) => [
    ...validateClusterTrustBundle(ctb),
    ...validateImmutableField(str(obj(ctb, 'spec'), 'signerName'), str(obj(old, 'spec'), 'signerName'), newPath('spec', 'signerName')),
  ],
};

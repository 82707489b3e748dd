/**
 * CertificateSigningRequest validation (ValidateCertificateSigningRequestCreate
 * and the update, approval and status variants): the request PEM, usages,
 * signer name, expiration, conditions and the issued certificate's PEM. What
 * the stored object already got away with stays allowed on update.
 */
import { duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { jsonEqual } from '../../api/equality';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { objs, obj, optNum, str, strs, type Obj } from '../values';
import { validateSignerName } from './signerName';

const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';
const validUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature',
  'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc',
  'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const trueOnlyConditions = ['Approved', 'Denied', 'Failed'];

interface Options {
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowDuplicateUsages: boolean;
  allowUnknownUsages: boolean;
  allowBothApprovedAndDenied: boolean;
  allowSettingCertificate: boolean;
  allowSettingApprovalConditions: boolean;
}

const strictOptions: Options = {
  allowLegacySignerName: false, allowDuplicateConditionTypes: false, allowEmptyConditionType: false, allowArbitraryCertificate: false,
  allowDuplicateUsages: false, allowUnknownUsages: false, allowBothApprovedAndDenied: false, allowSettingCertificate: false, allowSettingApprovalConditions: false,
};

const decodeBase64 = (v: string): string => {
  try {
    return atob(v.replace(/\s+/g, ''));
  } catch {
    return '';
  }
};

interface PemBlock {
  type: string;
  headers: boolean;
}

/** The PEM blocks of text, as encoding/pem finds them. */
function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^-\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ type: m[1]!, headers: /^[^\s:]+:/m.test(m[2]!) });
  return out;
}

/** Go's %#v of a []byte. */
function bytesText(bytes: string | undefined): string {
  if (bytes === undefined) return '[]byte(nil)';
  return `[]byte{${[...bytes].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join(', ')}}`;
}

/** validateCertificate: the issued certificate is CERTIFICATE blocks only, without headers. */
function certificateError(pem: string): string | undefined {
  if (!pem) return undefined;
  const blocks = pemBlocks(pem);
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
  }
  return blocks.length ? undefined : 'must contain at least one CERTIFICATE PEM block';
}

function validateConditions(csr: Obj, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const fld = newPath('status', 'conditions');
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objs(obj(csr, 'status'), 'conditions').forEach((c, i) => {
    const type = str(c, 'type');
    const status = str(c, 'status');
    if (!opts.allowEmptyConditionType && !type) errs.push(required(String(fld.index(i).child('type'))));
    const allowed = trueOnlyConditions.includes(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!status) errs.push(required(String(fld.index(i).child('status'))));
    else if (!allowed.includes(status)) errs.push(notSupported(String(fld.index(i).child('status')), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(invalid(String(fld.index(i).child('type')), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(invalid(String(fld.index(i).child('type')), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(String(fld.index(i).child('type')), type));
      seen.add(type);
    }
  });
  return errs;
}

function validateCSR(csr: Obj, opts: Options): FieldError[] {
  const spec = obj(csr, 'spec');
  const specPath = newPath('spec');
  const errs: FieldError[] = [];
  const request = typeof spec['request'] === 'string' ? decodeBase64(spec['request']) : undefined;
  const blocks = request === undefined ? [] : pemBlocks(request);
  if (blocks[0]?.type !== 'CERTIFICATE REQUEST') {
    errs.push({ ...invalid(String(specPath.child('request')), null, 'PEM block type must be CERTIFICATE REQUEST'), valueText: bytesText(request) });
  }
  const usages = strs(spec, 'usages');
  if (usages.length === 0) errs.push(required(String(specPath.child('usages'))));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!validUsages.includes(u)) errs.push(notSupported(String(specPath.child('usages').index(i)), u, validUsages));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(duplicate(String(specPath.child('usages').index(i)), u));
      seen.add(u);
    });
  }
  const signer = str(spec, 'signerName');
  if (!opts.allowLegacySignerName && signer === legacyUnknownSigner) {
    errs.push(invalid(String(specPath.child('signerName')), signer, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...validateSignerName(specPath.child('signerName'), signer));
  const expiration = optNum(spec, 'expirationSeconds');
  if (expiration !== undefined && expiration < 600) {
    errs.push(invalid(String(specPath.child('expirationSeconds')), expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const cert = str(obj(csr, 'status'), 'certificate');
    const why = certificateError(cert ? decodeBase64(cert) : '');
    if (why) errs.push(invalid('status.certificate', '<certificate data>', why));
  }
  return errs;
}

/** getValidationOptions: keep accepting what the stored object already has. */
function updateOptions(old: Obj): Options {
  const spec = obj(old, 'spec');
  const usages = strs(spec, 'usages');
  const types = objs(obj(old, 'status'), 'conditions').map((c) => str(c, 'type'));
  const cert = str(obj(old, 'status'), 'certificate');
  return {
    ...strictOptions,
    allowLegacySignerName: str(spec, 'signerName') === legacyUnknownSigner,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate: certificateError(cert ? decodeBase64(cert) : '') !== undefined,
    allowDuplicateUsages: new Set(usages).size !== usages.length,
    allowUnknownUsages: usages.some((u) => !validUsages.includes(u)),
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
  };
}

const conditionsOf = (csr: Obj, type: string) => objs(obj(csr, 'status'), 'conditions').filter((c) => str(c, 'type') === type);

function validateUpdate(csr: Obj, old: Obj, opts: Options): FieldError[] {
  const errs = validateCSR(csr, opts);
  const fld = 'status.conditions';
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) errs.push(forbidden(fld, `updates may not remove a condition of type "${t}"`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOf(old, t);
      const after = conditionsOf(csr, t);
      if (after.length > before.length) errs.push(forbidden(fld, `updates may not add a condition of type "${t}"`));
      else if (!jsonEqual(before, after)) errs.push(forbidden(fld, `updates may not modify a condition of type "${t}"`));
    }
  }
  const cert = str(obj(csr, 'status'), 'certificate');
  const oldCert = str(obj(old, 'status'), 'certificate');
  if (cert !== oldCert) {
    if (!opts.allowSettingCertificate) errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

export const certificateSigningRequestValidation: KindValidation = {
  validate: (csr) => validateCSR(csr, strictOptions),
  validateUpdate(csr, old, ctx) {
    const opts = updateOptions(old);
    if (ctx.subresource === 'approval') opts.allowSettingApprovalConditions = true;
    if (ctx.subresource === 'status') opts.allowSettingCertificate = true;
    return validateUpdate(csr, old, opts);
  },
};

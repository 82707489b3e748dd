/**
 * CertificateSigningRequest validation (ValidateCertificateSigningRequestCreate
 * and the update, approval and status variants): the request (a parsed
 * PKCS#10 whose signature verifies), usages, signer name, expiration,
 * conditions and the issued certificates. What the stored object already got
 * away with stays allowed on update.
 *
 * Verifying the request's signature needs WebCrypto, which is asynchronous:
 * the strategy's checkAsync (checkCertificateRequests below) verifies it
 * first and leaves its verdict in ctx.asyncChecks; without one (a caller that
 * skipped it) the request is only parsed.
 */
import { X509Certificate } from '@peculiar/x509';
import { duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import type { StrategyContext } from '../../registry/generic/strategy';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { objs, obj, optNum, str, strs, type Obj } from '../values';
import { parseCSR, pemBlocks, validateCSR as verifyCSR } from './csr';
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

/** Go's %#v of a []byte. */
function bytesText(bytes: string | undefined): string {
  if (bytes === undefined) return '[]byte(nil)';
  return `[]byte{${[...bytes].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join(', ')}}`;
}

/** validateCertificate: the issued certificate is CERTIFICATE blocks only, without headers, each a parseable certificate. */
function certificateError(pem: string): string | undefined {
  if (!pem) return undefined;
  const blocks = pemBlocks(pem);
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(b.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length ? undefined : 'must contain at least one CERTIFICATE PEM block';
}

/** The request's verdict: checkAsync's when it ran, else what parsing alone finds. */
function requestError(request: string, encoded: string, ctx: StrategyContext | undefined): string | undefined {
  const verdict = ctx?.asyncChecks?.get(encoded);
  if (verdict !== undefined) return verdict || undefined;
  try {
    parseCSR(request);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The strategy's checkAsync: verifies the requests validation will see (on
 * an update the stored spec is kept, so the stored request too).
 */
export async function checkCertificateRequests(csr: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): Promise<void> {
  const checks = (ctx.asyncChecks ??= new Map());
  for (const o of [csr, old]) {
    const encoded = o ? obj(o, 'spec')['request'] : undefined;
    if (typeof encoded !== 'string' || checks.has(encoded)) continue;
    checks.set(encoded, (await verifyCSR(decodeBase64(encoded))) ?? '');
  }
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

function validateCertificateSigningRequest(csr: Obj, opts: Options, ctx?: StrategyContext): FieldError[] {
  const spec = obj(csr, 'spec');
  const specPath = newPath('spec');
  const errs: FieldError[] = [];
  const encoded = typeof spec['request'] === 'string' ? spec['request'] : undefined;
  const request = encoded === undefined ? undefined : decodeBase64(encoded);
  const why = requestError(request ?? '', encoded ?? '', ctx);
  if (why) errs.push({ ...invalid(String(specPath.child('request')), null, why), valueText: bytesText(request) });
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
function updateOptions(csr: Obj, old: Obj): Options {
  const spec = obj(old, 'spec');
  const usages = strs(spec, 'usages');
  const types = objs(obj(old, 'status'), 'conditions').map((c) => str(c, 'type'));
  const cert = str(obj(old, 'status'), 'certificate');
  return {
    ...strictOptions,
    allowLegacySignerName: str(spec, 'signerName') === legacyUnknownSigner,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    // Updates that leave status.certificate alone, and stored content that never passed, are not judged again.
    allowArbitraryCertificate: str(obj(csr, 'status'), 'certificate') === cert || certificateError(cert ? decodeBase64(cert) : '') !== undefined,
    allowDuplicateUsages: new Set(usages).size !== usages.length,
    allowUnknownUsages: usages.some((u) => !validUsages.includes(u)),
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
  };
}

const conditionsOf = (csr: Obj, type: string) => objs(obj(csr, 'status'), 'conditions').filter((c) => str(c, 'type') === type);

function validateUpdate(csr: Obj, old: Obj, opts: Options, ctx: StrategyContext): FieldError[] {
  const errs = validateCertificateSigningRequest(csr, opts, ctx);
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
  validate: (csr, ctx) => validateCertificateSigningRequest(csr, strictOptions, ctx),
  validateUpdate(csr, old, ctx) {
    const opts = updateOptions(csr, old);
    if (ctx.subresource === 'approval') opts.allowSettingApprovalConditions = true;
    if (ctx.subresource === 'status') opts.allowSettingCertificate = true;
    return validateUpdate(csr, old, opts, ctx);
  },
};

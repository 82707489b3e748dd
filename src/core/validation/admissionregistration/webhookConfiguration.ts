/**
 * Validating and mutating webhook configurations (ValidateValidatingWebhookConfiguration,
 * ValidateMutatingWebhookConfiguration and their updates): each webhook's
 * name, rules, policies, side effects, timeout, selectors, client config and
 * AdmissionReview versions; webhook names unique. An update keeps what the
 * stored object already got away with (side effects, review versions, names).
 */
import { duplicate, goStringSlice, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { isDNS1035Label, isDNS1123Subdomain } from '../names';
import { isValidPortNum, objs, optNum, optObj, optStr, str, strs, type Obj } from '../values';
import { failurePolicies, matchPolicies, validateMatchConditions, validateRuleWithOperations } from './rules';

const acceptedReviewVersions = ['v1', 'v1beta1'];
const allSideEffects = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const noSideEffects = ['None', 'NoneOnDryRun'];
const reinvocationPolicies = ['IfNeeded', 'Never'];

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const createOptions: Options = { requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true, allowInvalidLabelValueInSelector: false };

/** IsFullyQualifiedName: a DNS subdomain of at least three labels. */
function isFullyQualifiedName(fld: Path, name: string): FieldError[] {
  if (!name) return [required(String(fld))];
  const msgs = isDNS1123Subdomain(name);
  if (msgs.length) return [invalid(String(fld), name, msgs.join(','))];
  if (name.split('.').length < 3) return [invalid(String(fld), name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** webhook.ValidateWebhookURL with https required, over Go's url.Parse view of the text. */
function validateWebhookURL(fld: Path, url: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const errs: FieldError[] = [];
  let rest = url;
  let fragment = '';
  let query = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) [rest, fragment] = [rest.slice(0, hash), rest.slice(hash + 1)];
  const q = rest.indexOf('?');
  if (q >= 0) [rest, query] = [rest.slice(0, q), rest.slice(q + 1)];
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(rest);
  const scheme = schemeMatch ? schemeMatch[1]!.toLowerCase() : '';
  if (schemeMatch) rest = schemeMatch[2]!;
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0]!;
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = authority.slice(0, at);
    host = at >= 0 ? authority.slice(at + 1) : authority;
  }
  if (scheme !== 'https') errs.push(invalid(String(fld), scheme, `'https' is the only allowed URL scheme${form}`));
  if (!host) errs.push(invalid(String(fld), host, `host must be specified${form}`));
  if (user !== undefined) errs.push(invalid(String(fld), user, 'user information is not permitted in the URL'));
  if (fragment) errs.push(invalid(String(fld), fragment, 'fragments are not permitted in the URL'));
  if (query) errs.push(invalid(String(fld), query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService */
function validateWebhookService(fld: Path, svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(svc, 'name')) errs.push(required(String(fld.child('name')), 'service name is required'));
  if (!str(svc, 'namespace')) errs.push(required(String(fld.child('namespace')), 'service namespace is required'));
  const port = optNum(svc, 'port') ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid(String(fld.child('port')), port, `port is not valid: ${portErrs.join(', ')}`));
  const path = optStr(svc, 'path');
  if (path === undefined || path === '/' || path === '') return errs;
  const pathField = String(fld.child('path'));
  if (path === '//') return [...errs, invalid(pathField, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(invalid(pathField, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) errs.push(invalid(pathField, path, `segment[${i}] may not be empty`));
    else for (const m of isDNS1123Subdomain(step)) errs.push(invalid(pathField, path, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateWebhook(hook: Obj, mutating: boolean, opts: Options, fld: Path): FieldError[] {
  const errs = isFullyQualifiedName(fld.child('name'), str(hook, 'name'));
  objs(hook, 'rules').forEach((r, i) => errs.push(...validateRuleWithOperations(r, fld.child('rules').index(i))));
  const failurePolicy = optStr(hook, 'failurePolicy');
  if (failurePolicy !== undefined && !failurePolicies.includes(failurePolicy)) errs.push(notSupported(String(fld.child('failurePolicy')), failurePolicy, failurePolicies));
  const matchPolicy = optStr(hook, 'matchPolicy');
  if (matchPolicy !== undefined && !matchPolicies.includes(matchPolicy)) errs.push(notSupported(String(fld.child('matchPolicy')), matchPolicy, matchPolicies));
  const allowed = opts.requireNoSideEffects ? noSideEffects : allSideEffects;
  const sideEffects = optStr(hook, 'sideEffects');
  if (sideEffects === undefined) errs.push(required(String(fld.child('sideEffects')), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(sideEffects)) errs.push(notSupported(String(fld.child('sideEffects')), sideEffects, allowed));
  const timeout = optNum(hook, 'timeoutSeconds');
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) errs.push(invalid(String(fld.child('timeoutSeconds')), timeout, 'the timeout value must be between 1 and 30 seconds'));
  const selectorOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (optObj(hook, key)) errs.push(...validateLabelSelector(hook[key], selectorOpts, fld.child(key)));
  }
  if (mutating) {
    const reinvocation = optStr(hook, 'reinvocationPolicy');
    if (reinvocation !== undefined && !reinvocationPolicies.includes(reinvocation)) errs.push(notSupported(String(fld.child('reinvocationPolicy')), reinvocation, reinvocationPolicies));
  }
  const cc = optObj(hook, 'clientConfig') ?? {};
  const url = optStr(cc, 'url');
  const service = optObj(cc, 'service');
  if ((url === undefined) === (service === undefined)) errs.push(required(String(fld.child('clientConfig')), 'exactly one of url or service is required'));
  else if (url !== undefined) errs.push(...validateWebhookURL(fld.child('clientConfig', 'url'), url));
  else if (service) errs.push(...validateWebhookService(fld.child('clientConfig', 'service'), service));
  errs.push(...validateMatchConditions(objs(hook, 'matchConditions'), fld.child('matchConditions')));
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, fld: Path): FieldError[] {
  if (versions.length < 1) return [required(String(fld), `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(String(fld.index(i)), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(String(fld.index(i)), v, m));
    if (acceptedReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errs.push({ ...invalid(String(fld), null, `must include at least one of ${acceptedReviewVersions.join(', ')}`), valueText: goStringSlice(versions) });
  }
  return errs;
}

function validateConfiguration(config: Obj, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(config, 'webhooks').forEach((hook, i) => {
    const p = newPath('webhooks').index(i);
    errs.push(...validateWebhook(hook, mutating, opts, p));
    errs.push(...validateAdmissionReviewVersions(strs(hook, 'admissionReviewVersions'), opts.requireRecognizedReviewVersion, p.child('admissionReviewVersions')));
    const name = str(hook, 'name');
    if (opts.requireUniqueNames && name) {
      if (names.has(name)) errs.push(duplicate(String(p.child('name')), name));
      names.add(name);
    }
  });
  return errs;
}

/** What the stored configuration already satisfies, so an update is held to no more. */
function updateOptions(old: Obj): Options {
  const hooks = objs(old, 'webhooks');
  const names = hooks.map((h) => str(h, 'name'));
  return {
    requireNoSideEffects: hooks.every((h) => noSideEffects.includes(optStr(h, 'sideEffects') ?? '')),
    requireRecognizedReviewVersion: hooks.every((h) => {
      const versions = strs(h, 'admissionReviewVersions');
      return versions.length === 0 || versions.some((v) => acceptedReviewVersions.includes(v));
    }),
    requireUniqueNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: hooks.some((h) =>
      ['namespaceSelector', 'objectSelector'].some((k) => optObj(h, k) && validateLabelSelector(h[k], {}, newPath(k)).length > 0),
    ),
  };
}

function configurationValidation(mutating: boolean): KindValidation {
  return {
    validate: (config) => validateConfiguration(config, mutating, createOptions),
    validateUpdate: (config, old) => validateConfiguration(config, mutating, updateOptions(old)),
  };
}

export const validatingWebhookConfigurationValidation = configurationValidation(false);
export const mutatingWebhookConfigurationValidation = configurationValidation(true);

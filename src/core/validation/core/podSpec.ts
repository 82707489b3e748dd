/**
 * PodSpec (ValidatePodSpec) and PodTemplateSpec (ValidatePodTemplateSpec):
 * shared by Pods and every workload's template. Runs on the defaulted spec,
 * as kube-apiserver validates after defaulting.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { validateLabels } from '../labels';
import { validateLabelName, validateLabelSelector } from '../metav1';
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../names';
import { validateAnnotations } from '../objectMeta';
import {
  append, arr, inclusiveRangeError, isIP, maxInt32, num, obj, objects, str, validateDNS1123Label, validateDNS1123Subdomain, type Obj,
} from './common';
import { validateContainers, validateEphemeralContainers, validateInitContainers, validateSeccompProfile } from './container';
import { goToleration } from './goSyntax';
import { validateVolumes } from './volume';

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateEnum(value: unknown, allowed: string[], fld: Path): FieldError[] {
  const v = str(value);
  if (!v) return [required(String(fld))];
  return allowed.includes(v) ? [] : [notSupported(String(fld), v, allowed)];
}

/** ValidateTolerations */
export function validateTolerations(tolerations: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [t, i] of objects(tolerations)) {
    const p = fld.index(i);
    const key = str(t['key']);
    const operator = str(t['operator']);
    const value = str(t['value']);
    const effect = str(t['effect']);
    if (key) append(errs, validateLabelName(key, p.child('key')));
    if (!key && operator !== 'Exists') {
      errs.push(invalid(String(p.child('operator')), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t['tolerationSeconds'] !== undefined && t['tolerationSeconds'] !== null && effect !== 'NoExecute') {
      errs.push(invalid(String(p.child('effect')), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length) errs.push(invalid(String(p.child('operator')), value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value) errs.push({ type: 'FieldValueInvalid', field: String(p.child('operator')), valueText: goToleration(t), detail: "value must be empty when `operator` is 'Exists'" });
        break;
      default:
        errs.push(notSupported(String(p.child('operator')), operator, ['Equal', 'Exists']));
    }
    if (effect && !taintEffects.includes(effect)) errs.push(notSupported(String(p.child('effect')), effect, taintEffects));
  }
  return errs;
}

/** ValidateNodeSelectorRequirement */
function validateNodeSelectorRequirement(rq: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = arr(rq['values']);
  const operator = str(rq['operator']);
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(String(fld.child('values')), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(String(fld.child('values')), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(required(String(fld.child('values')), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(invalid(String(fld.child('operator')), operator, 'not a valid selector operator'));
  }
  append(errs, validateLabelName(str(rq['key']), fld.child('key')));
  return errs;
}

export function validateNodeSelectorTerm(term: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [rq, j] of objects(term['matchExpressions'])) append(errs, validateNodeSelectorRequirement(rq, fld.child('matchExpressions').index(j)));
  for (const [rq, j] of objects(term['matchFields'])) {
    const p = fld.child('matchFields').index(j);
    if (str(rq['key']) !== 'metadata.name') errs.push(invalid(String(p.child('key')), str(rq['key']), 'not a valid field selector key'));
    const op = str(rq['operator']);
    if (op !== 'In' && op !== 'NotIn') errs.push(invalid(String(p.child('operator')), op, 'not a valid selector operator'));
    if (arr(rq['values']).length !== 1) errs.push(required(String(p.child('values')), 'must be only one value when `operator` is \'In\' or \'NotIn\' for node field selector'));
  }
  return errs;
}

function validatePodAffinityTerm(term: Obj, fld: Path): FieldError[] {
  const errs = validateLabelSelector(term['labelSelector'], {}, fld.child('labelSelector'));
  append(errs, validateLabelSelector(term['namespaceSelector'], {}, fld.child('namespaceSelector')));
  for (const [ns, i] of arr(term['namespaces']).map((n, i) => [str(n), i] as const)) {
    for (const m of isDNS1123Subdomain(ns)) errs.push(invalid(String(fld.child('namespace').index(i)), ns, m));
  }
  append(errs, validateMatchLabelKeysAndMismatchLabelKeys(term, fld));
  const topologyKey = str(term['topologyKey']);
  if (!topologyKey) errs.push(required(String(fld.child('topologyKey')), 'can not be empty'));
  else append(errs, validateLabelName(topologyKey, fld.child('topologyKey')));
  return errs;
}

/**
 * validateMatchLabelKeysAndMismatchLabelKeys. It runs after the pod strategy
 * merged the keys into labelSelector (a `key In (value)` per key the pod's
 * labels have), so a key is refused only when an expression repeats one seen
 * before it; kube reports that error at the term's path indexed by the key's
 * position, as here.
 */
function validateMatchLabelKeysAndMismatchLabelKeys(term: Obj, fld: Path): FieldError[] {
  const selector = obj(term['labelSelector']);
  const matchKeys = arr(term['matchLabelKeys']).map(str);
  const mismatchKeys = arr(term['mismatchLabelKeys']).map(str);
  const errs: FieldError[] = [];
  for (const [keys, field] of [[matchKeys, 'matchLabelKeys'], [mismatchKeys, 'mismatchLabelKeys']] as const) {
    if (!keys.length) continue;
    if (!selector) {
      errs.push(forbidden(String(fld.child(field)), 'must not be specified when labelSelector is not set'));
      continue;
    }
    keys.forEach((key, i) => append(errs, validateLabelName(key, fld.child(field).index(i))));
  }
  if (selector) {
    const seen = new Set(Object.keys(obj(selector['matchLabels']) ?? {}));
    for (const expression of objects(selector['matchExpressions']).map(([e]) => e)) {
      const key = str(expression['key']);
      const i = matchKeys.lastIndexOf(key);
      if (i >= 0 && seen.has(key)) errs.push(invalid(String(fld.index(i)), key, 'exists in both matchLabelKeys and labelSelector'));
      seen.add(key);
    }
  }
  matchKeys.forEach((key, i) => {
    if (mismatchKeys.includes(key)) errs.push(invalid(String(fld.child('matchLabelKeys').index(i)), key, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

function validateWeight(weight: unknown, fld: Path): FieldError[] {
  const w = num(weight) ?? 0;
  return w <= 0 || w > 100 ? [invalid(String(fld), w, 'must be in the range 1-100')] : [];
}

/** validateAffinity: node affinity terms, pod (anti-)affinity terms and weights. */
function validateAffinity(value: unknown, fld: Path): FieldError[] {
  const a = obj(value);
  if (!a) return [];
  const errs: FieldError[] = [];
  const na = obj(a['nodeAffinity']);
  if (na) {
    const p = fld.child('nodeAffinity');
    const req = obj(na['requiredDuringSchedulingIgnoredDuringExecution']);
    if (req) {
      const rp = p.child('requiredDuringSchedulingIgnoredDuringExecution');
      const terms = objects(req['nodeSelectorTerms']);
      if (terms.length === 0) errs.push(required(String(rp.child('nodeSelectorTerms')), 'must have at least one node selector term'));
      for (const [t, i] of terms) append(errs, validateNodeSelectorTerm(t, rp.child('nodeSelectorTerms').index(i)));
    }
    for (const [t, i] of objects(na['preferredDuringSchedulingIgnoredDuringExecution'])) {
      const tp = p.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
      append(errs, validateWeight(t['weight'], tp.child('weight')));
      append(errs, validateNodeSelectorTerm(obj(t['preference']) ?? {}, tp.child('preference')));
    }
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pa = obj(a[kind]);
    if (!pa) continue;
    const p = fld.child(kind);
    for (const [t, i] of objects(pa['requiredDuringSchedulingIgnoredDuringExecution'])) {
      append(errs, validatePodAffinityTerm(t, p.child('requiredDuringSchedulingIgnoredDuringExecution').index(i)));
    }
    for (const [t, i] of objects(pa['preferredDuringSchedulingIgnoredDuringExecution'])) {
      const tp = p.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
      append(errs, validateWeight(t['weight'], tp.child('weight')));
      append(errs, validatePodAffinityTerm(obj(t['podAffinityTerm']) ?? {}, tp.child('podAffinityTerm')));
    }
  }
  return errs;
}

/** validatePodDNSConfig */
function validatePodDNSConfig(value: unknown, dnsPolicy: string, fld: Path): FieldError[] {
  const cfg = obj(value);
  const errs: FieldError[] = [];
  if (dnsPolicy === 'None' && !cfg) return [required(String(fld), 'must provide `dnsConfig` when `dnsPolicy` is None')];
  if (!cfg) return errs;
  const nameservers = arr(cfg['nameservers']).map(str);
  if (dnsPolicy === 'None' && nameservers.length === 0) errs.push(required(String(fld.child('nameservers')), 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
  if (nameservers.length > 3) errs.push({ type: 'FieldValueInvalid', field: String(fld.child('nameservers')), valueText: `[]string{${nameservers.map((n) => JSON.stringify(n)).join(', ')}}`, detail: 'must not have more than 3 nameservers' });
  nameservers.forEach((ns, i) => {
    if (!isIP(ns)) errs.push(invalid(String(fld.child('nameservers').index(i)), ns, 'must be a valid IP address'));
  });
  arr(cfg['searches']).map(str).forEach((s, i) => {
    const domain = s.endsWith('.') ? s.slice(0, -1) : s;
    for (const m of isDNS1123Subdomain(domain)) errs.push(invalid(String(fld.child('searches').index(i)), s, m));
  });
  for (const [o, i] of objects(cfg['options'])) if (!str(o['name'])) errs.push(required(String(fld.child('options').index(i)), 'Option.Name must not be empty'));
  return errs;
}

function validateIDRange(value: unknown, fld: Path): FieldError[] {
  const n = num(value);
  return n !== undefined && (n < 0 || n > maxInt32) ? [invalid(String(fld), n, inclusiveRangeError(0, maxInt32))] : [];
}

/** validatePodSpecSecurityContext: ids in range, fsGroupChangePolicy, seccomp, sysctls. */
function validatePodSecurityContext(value: unknown, fld: Path): FieldError[] {
  const sc = obj(value);
  if (!sc || Object.keys(sc).length === 0) return [];
  const errs: FieldError[] = [];
  append(errs, validateIDRange(sc['fsGroup'], fld.child('fsGroup')));
  errs.push(...validateIDRange(sc['runAsUser'], fld.child('runAsUser')), ...validateIDRange(sc['runAsGroup'], fld.child('runAsGroup')));
  arr(sc['supplementalGroups']).forEach((g, i) => errs.push(...validateIDRange(g, fld.child('supplementalGroups').index(i))));
  const policy = sc['fsGroupChangePolicy'];
  if (typeof policy === 'string' && policy !== 'OnRootMismatch' && policy !== 'Always') {
    errs.push(notSupported(String(fld.child('fsGroupChangePolicy')), policy, ['OnRootMismatch', 'Always']));
  }
  append(errs, validateSeccompProfile(sc['seccompProfile'], fld.child('seccompProfile')));
  const seen = new Set<string>();
  for (const [s, i] of objects(sc['sysctls'])) {
    const p = fld.child('sysctls').index(i);
    const name = str(s['name']);
    if (!name) errs.push(required(String(p.child('name'))));
    else if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('name')), value: name });
    seen.add(name);
  }
  return errs;
}

const whenUnsatisfiable = ['DoNotSchedule', 'ScheduleAnyway'];

/** validateTopologySpreadConstraints: skew, key, action, and one constraint per key and action. */
function validateTopologySpreadConstraints(value: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [c, i] of objects(value)) {
    const p = fld.index(i);
    const skew = num(c['maxSkew']) ?? 0;
    if (skew <= 0) errs.push(invalid(String(p.child('maxSkew')), skew, 'must be greater than zero'));
    const key = str(c['topologyKey']);
    if (!key) errs.push(required(String(p.child('topologyKey')), 'can not be empty'));
    else append(errs, validateLabelName(key, p.child('topologyKey')));
    const action = str(c['whenUnsatisfiable']);
    if (!whenUnsatisfiable.includes(action)) errs.push(notSupported(String(p.child('whenUnsatisfiable')), action, whenUnsatisfiable));
    const pair = `${key}/${action}`;
    if (seen.has(pair)) errs.push({ type: 'FieldValueDuplicate', field: String(p), valueText: `{${JSON.stringify(key)}, ${JSON.stringify(action)}}` });
    seen.add(pair);
    const minDomains = num(c['minDomains']);
    if (minDomains !== undefined) {
      if (minDomains <= 0) errs.push(invalid(String(p.child('minDomains')), minDomains, 'must be greater than 0'));
      else if (action !== 'DoNotSchedule') errs.push(invalid(String(p.child('minDomains')), minDomains, 'can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway'));
    }
    append(errs, validateLabelSelector(c['labelSelector'], {}, p.child('labelSelector')));
  }
  return errs;
}

/** validateSchedulingGates: qualified names, each once. */
function validateSchedulingGates(gates: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [g, i] of objects(gates)) {
    const name = str(g['name']);
    for (const m of isQualifiedName(name)) errs.push(invalid(String(fld.index(i)), name, m));
    if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(fld.index(i)), value: name });
    seen.add(name);
  }
  return errs;
}

const dns1123SubdomainFields = ['serviceAccountName', 'nodeName'];
const dns1123LabelFields = ['hostname', 'subdomain'];
const has = (spec: Obj, k: string) => spec[k] !== undefined && spec[k] !== null;

/** ValidatePodSpec */
export function validatePodSpec(spec: Obj, fld: Path): FieldError[] {
  // Optional fields that are absent have nothing to check; their paths are not even built (Pod creates are hot).
  const { names: volumes, errs } = has(spec, 'volumes') ? validateVolumes(spec['volumes'], fld.child('volumes')) : { names: new Set<string>(), errs: [] };
  append(errs, validateContainers(spec['containers'], volumes, fld.child('containers'), str(spec['restartPolicy'])));
  if (has(spec, 'initContainers')) append(errs, validateInitContainers(spec['initContainers'], spec['containers'], volumes, fld.child('initContainers')));
  if (has(spec, 'ephemeralContainers')) append(errs, validateEphemeralContainers(spec['ephemeralContainers'], spec, volumes, fld.child('ephemeralContainers')));
  const restartPolicy = spec['restartPolicy'];
  if (restartPolicy !== 'Always') append(errs, validateEnum(restartPolicy, restartPolicies, fld.child('restartPolicy')));
  const dnsPolicy = spec['dnsPolicy'];
  if (dnsPolicy !== 'ClusterFirst') append(errs, validateEnum(dnsPolicy, dnsPolicies, fld.child('dnsPolicy')));
  if (has(spec, 'nodeSelector')) append(errs, validateLabels(spec['nodeSelector'], String(fld.child('nodeSelector'))));
  if (has(spec, 'securityContext')) append(errs, validatePodSecurityContext(spec['securityContext'], fld.child('securityContext')));
  if (has(spec, 'affinity')) append(errs, validateAffinity(spec['affinity'], fld.child('affinity')));
  if (has(spec, 'dnsConfig') || dnsPolicy === 'None') append(errs, validatePodDNSConfig(spec['dnsConfig'], str(dnsPolicy), fld.child('dnsConfig')));
  if (has(spec, 'topologySpreadConstraints')) append(errs, validateTopologySpreadConstraints(spec['topologySpreadConstraints'], fld.child('topologySpreadConstraints')));
  for (const k of dns1123SubdomainFields) {
    const v = str(spec[k]);
    if (v) append(errs, validateDNS1123Subdomain(v, fld.child(k)));
  }
  const ads = num(spec['activeDeadlineSeconds']);
  if (ads !== undefined && (ads < 1 || ads > maxInt32)) errs.push(invalid(String(fld.child('activeDeadlineSeconds')), ads, inclusiveRangeError(1, maxInt32)));
  for (const k of dns1123LabelFields) {
    const v = str(spec[k]);
    if (v) append(errs, validateDNS1123Label(v, fld.child(k)));
  }
  if (has(spec, 'tolerations')) append(errs, validateTolerations(spec['tolerations'], fld.child('tolerations')));
  for (const [alias, i] of objects(spec['hostAliases'])) {
    const ip = str(alias['ip']);
    if (!isIP(ip)) errs.push(invalid(String(fld.child('hostAliases').index(i).child('ip')), ip, 'must be a valid IP address'));
    arr(alias['hostnames']).map(str).forEach((h, j) => errs.push(...validateDNS1123Subdomain(h, fld.child('hostAliases').index(i).child('hostnames').index(j))));
  }
  const priorityClassName = str(spec['priorityClassName']);
  if (priorityClassName) append(errs, validateDNS1123Subdomain(priorityClassName, fld.child('priorityClassName')));
  const schedulerName = str(spec['schedulerName']);
  if (schedulerName && schedulerName !== 'default-scheduler') append(errs, validateDNS1123Subdomain(schedulerName, fld.child('schedulerName')));
  const preemption = spec['preemptionPolicy'];
  if (typeof preemption === 'string' && preemption !== 'PreemptLowerPriority' && preemption !== 'Never') {
    errs.push(notSupported(String(fld.child('preemptionPolicy')), preemption, ['Never', 'PreemptLowerPriority']));
  }
  const runtimeClassName = spec['runtimeClassName'];
  if (typeof runtimeClassName === 'string') append(errs, validateDNS1123Subdomain(runtimeClassName, fld.child('runtimeClassName')));
  for (const [gate, i] of objects(spec['readinessGates'])) {
    const type = str(gate['conditionType']);
    for (const m of isQualifiedName(type)) errs.push(invalid(String(fld.child('readinessGates').index(i).child('conditionType')), type, m));
  }
  if (has(spec, 'schedulingGates')) append(errs, validateSchedulingGates(spec['schedulingGates'], fld.child('schedulingGates')));
  const os = obj(spec['os']);
  if (os) {
    const osName = str(os['name']);
    if (!osName) errs.push(required(String(fld.child('os', 'name'))));
    else if (osName !== 'linux' && osName !== 'windows') errs.push(notSupported(String(fld.child('os', 'name')), osName, ['linux', 'windows']));
  }
  return errs;
}

/** ValidatePodTemplateSpec: labels at `<path>.labels` (kube's own path), annotations, the spec; no ephemeral containers. */
export function validatePodTemplateSpec(template: Obj, fld: Path): FieldError[] {
  const meta = obj(template['metadata']) ?? {};
  const spec = obj(template['spec']) ?? {};
  const errs = validateLabels(meta['labels'], String(fld.child('labels')));
  append(errs, validateAnnotations(meta['annotations'], String(fld.child('annotations'))));
  append(errs, validatePodSpec(spec, fld.child('spec')));
  if (arr(spec['ephemeralContainers']).length > 0) errs.push(forbidden(String(fld.child('spec', 'ephemeralContainers')), 'ephemeral containers not allowed in pod template'));
  return errs;
}

/**
 * Container environment (ValidateEnv, ValidateEnvFrom): variable names
 * (relaxed rules, on by default since 1.32), exactly one valueFrom source,
 * and the downward API paths an env var may read.
 */
import { isObject } from '../../api/types';
import { invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isDNS1123Subdomain, isQualifiedName } from '../names';
import { obj, objects, str, append, type Obj } from './common';

/** IsRelaxedEnvVarName: printable ASCII other than '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name must be non-empty');
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x3d) {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

const configKeyRe = /^[-._a-zA-Z0-9]+$/;

/** IsConfigMapKey */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!configKeyRe.test(value)) {
    errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** What podshelper.ConvertDownwardAPIFieldLabel accepts for a pod. */
const downwardLabels = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid',
  'spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs',
]);
const envFieldPaths = [
  'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs',
];
const subscriptRe = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/;
const anySubscriptRe = /^([^[]+)\[/;

/** validateObjectFieldSelector for env vars. */
export function validateObjectFieldSelector(fs: Obj, fld: Path, allowed: readonly string[] = envFieldPaths): FieldError[] {
  const apiVersion = str(fs['apiVersion']);
  const fieldPath = str(fs['fieldPath']);
  if (!apiVersion) return [required(String(fld.child('apiVersion')))];
  if (!fieldPath) return [required(String(fld.child('fieldPath')))];
  const sub = subscriptRe.exec(fieldPath);
  let convErr = '';
  if (apiVersion !== 'v1') convErr = `unsupported pod version: ${apiVersion}`;
  else if (!sub && anySubscriptRe.test(fieldPath)) convErr = `field label does not support subscript: ${fieldPath}`;
  else if (!sub && !downwardLabels.has(fieldPath)) convErr = `field label not supported: ${fieldPath}`;
  if (convErr) return [invalid(String(fld.child('fieldPath')), fieldPath, `error converting fieldPath: ${convErr}`)];
  if (sub) {
    const key = sub[1] === 'metadata.annotations' ? sub[2]!.toLowerCase() : sub[2]!;
    return isQualifiedName(key).map((m) => invalid(String(fld), key, m));
  }
  if (!allowed.includes(fieldPath)) return [notSupported(String(fld.child('fieldPath')), fieldPath, [...allowed].sort())];
  return [];
}

const resourceFieldPaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateResourceFieldRef(rf: Obj, fld: Path): FieldError[] {
  const resource = str(rf['resource']);
  if (!resource) return [required(String(fld.child('resource')))];
  if (resourceFieldPaths.includes(resource) || resource.startsWith('limits.hugepages-') || resource.startsWith('requests.hugepages-')) return [];
  return [notSupported(String(fld.child('resource')), resource, resourceFieldPaths)];
}

function validateKeySelector(sel: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sel['name']);
  for (const m of isDNS1123Subdomain(name)) errs.push(invalid(String(fld.child('name')), name, m));
  const key = str(sel['key']);
  if (!key) errs.push(required(String(fld.child('key'))));
  else for (const m of isConfigMapKey(key)) errs.push(invalid(String(fld.child('key')), key, m));
  return errs;
}

function validateEnvVarValueFrom(ev: Obj, fld: Path): FieldError[] {
  const vf = obj(ev['valueFrom']);
  if (!vf) return [];
  const errs: FieldError[] = [];
  let n = 0;
  const fieldRef = obj(vf['fieldRef']);
  if (fieldRef) {
    n++;
    append(errs, validateObjectFieldSelector(fieldRef, fld.child('fieldRef')));
  }
  const resourceFieldRef = obj(vf['resourceFieldRef']);
  if (resourceFieldRef) {
    n++;
    append(errs, validateResourceFieldRef(resourceFieldRef, fld.child('resourceFieldRef')));
  }
  for (const k of ['configMapKeyRef', 'secretKeyRef']) {
    const sel = obj(vf[k]);
    if (sel) {
      n++;
      append(errs, validateKeySelector(sel, fld.child(k)));
    }
  }
  if (n === 0) errs.push(invalid(String(fld), '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (str(ev['value'])) errs.push(invalid(String(fld), '', 'may not be specified when `value` is not empty'));
  else if (n > 1) errs.push(invalid(String(fld), '', 'may not have more than one field specified at a time'));
  return errs;
}

export function validateEnv(vars: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(vars)) return errs;
  for (let i = 0; i < vars.length; i++) {
    const ev: unknown = vars[i];
    if (!isObject(ev)) continue;
    const name = str(ev['name']);
    if (!name) errs.push(required(String(fld.index(i).child('name'))));
    else for (const m of isRelaxedEnvVarName(name)) errs.push(invalid(String(fld.index(i).child('name')), name, m));
    // Most variables have a value, not a source: no path for valueFrom then.
    if (ev['valueFrom'] !== undefined) append(errs, validateEnvVarValueFrom(ev, fld.index(i).child('valueFrom')));
  }
  return errs;
}

export function validateEnvFrom(sources: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [src, i] of objects(sources)) {
    const p = fld.index(i);
    const prefix = str(src['prefix']);
    if (prefix) for (const m of isRelaxedEnvVarName(prefix)) errs.push(invalid(String(p.child('prefix')), prefix, m));
    let n = 0;
    for (const k of ['configMapRef', 'secretRef']) {
      const ref = obj(src[k]);
      if (!ref) continue;
      n++;
      const name = str(ref['name']);
      if (!name) errs.push(required(String(p.child(k, 'name'))));
      else for (const m of isDNS1123Subdomain(name.replace(/-+$/, '') || name)) errs.push(invalid(String(p.child(k, 'name')), name, m));
    }
    if (n === 0) errs.push(invalid(String(fld), '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(invalid(String(fld), '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

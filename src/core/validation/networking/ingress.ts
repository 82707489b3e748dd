/**
 * Ingress validation (ValidateIngressCreate / ValidateIngressUpdate /
 * ValidateIngressStatusUpdate): rules, paths and their pathType, backends,
 * TLS hosts and secrets, the class name.
 */
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { isDNS1123Subdomain, nameIsDNS1035Label, nameIsDNSSubdomain, isValidPathSegmentName } from '../names';
import { parseIP } from '../net';
import { has, isValidPortName, isValidPortNum, num, obj, objs, optObj, optStr, str, strs, type Obj } from '../values';
import { validateHost } from './hosts';

const supportedPathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

/** TypedLocalObjectReference of a resource backend. */
export function validateTypedLocalObjectReference(ref: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = optStr(ref, 'apiGroup');
  if (apiGroup !== undefined) for (const m of isDNS1123Subdomain(apiGroup)) errs.push(invalid(String(fld.child('apiGroup')), apiGroup, m));
  for (const key of ['kind', 'name']) {
    const v = str(ref, key);
    if (!v) errs.push(required(String(fld.child(key))));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(String(fld.child(key)), v, m));
  }
  return errs;
}

function validateIngressBackend(backend: Obj, fld: Path): FieldError[] {
  const resource = optObj(backend, 'resource');
  const service = optObj(backend, 'service');
  if (resource && service) return [invalid(String(fld), '', 'cannot set both resource and service backends')];
  if (resource) return validateTypedLocalObjectReference(resource, fld.child('resource'));
  if (!service) return [invalid(String(fld), '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = str(service, 'name');
  if (!name) errs.push(required(String(fld.child('service', 'name'))));
  else for (const m of nameIsDNS1035Label(name, false)) errs.push(invalid(String(fld.child('service', 'name')), name, m));
  const port = obj(service, 'port');
  const portName = str(port, 'name');
  const portNumber = num(port, 'number');
  if (portName && portNumber) errs.push(invalid(String(fld), '', 'cannot set both port name & port number'));
  else if (portName) for (const m of isValidPortName(portName)) errs.push(invalid(String(fld.child('service', 'port', 'name')), portName, m));
  else if (portNumber) for (const m of isValidPortNum(portNumber)) errs.push(invalid(String(fld.child('service', 'port', 'number')), portNumber, m));
  else errs.push(required(String(fld), 'port name or number is required'));
  return errs;
}

function validateHTTPIngressPath(p: Obj, fld: Path): FieldError[] {
  const pathType = optStr(p, 'pathType');
  if (pathType === undefined) return [required(String(fld.child('pathType')), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const path = str(p, 'path');
  const pathField = String(fld.child('path'));
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!path.startsWith('/')) errs.push(invalid(pathField, path, 'must be an absolute path'));
      if (path) {
        for (const seq of invalidPathSequences) if (path.includes(seq)) errs.push(invalid(pathField, path, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (path.endsWith(suffix)) errs.push(invalid(pathField, path, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (path && !path.startsWith('/')) errs.push(invalid(pathField, path, 'must be an absolute path'));
      break;
    default:
      errs.push(notSupported(String(fld.child('pathType')), pathType, supportedPathTypes));
  }
  errs.push(...validateIngressBackend(obj(p, 'backend'), fld.child('backend')));
  return errs;
}

function validateIngressRules(rules: Obj[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = str(rule, 'host');
    if (host) {
      if (parseIP(host)) errs.push(invalid(String(fld.index(i).child('host')), host, 'must be a DNS name, not an IP address'));
      errs.push(...validateHost(host, fld.index(i).child('host')));
    }
    const http = optObj(rule, 'http');
    if (http) {
      const paths = objs(http, 'paths');
      const httpPath = fld.index(i).child('http');
      if (paths.length === 0) errs.push(required(String(httpPath.child('paths'))));
      paths.forEach((p, j) => errs.push(...validateHTTPIngressPath(p, httpPath.child('paths').index(j))));
    }
  });
  return errs;
}

function validateIngressSpec(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const rules = objs(spec, 'rules');
  const defaultBackend = optObj(spec, 'defaultBackend');
  if (rules.length === 0 && !defaultBackend) {
    const shown = Array.isArray(spec['rules']) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)';
    errs.push({ ...invalid(String(fld), null, 'either `defaultBackend` or `rules` must be specified'), valueText: shown });
  }
  if (defaultBackend) errs.push(...validateIngressBackend(defaultBackend, fld.child('defaultBackend')));
  if (rules.length) errs.push(...validateIngressRules(rules, fld.child('rules')));
  objs(spec, 'tls').forEach((tls, i) => {
    const tlsPath = fld.child('tls').index(i);
    strs(tls, 'hosts').forEach((h, j) => errs.push(...validateHost(h, tlsPath.child('hosts').index(j))));
    const secretName = str(tls, 'secretName');
    if (secretName) for (const m of nameIsDNSSubdomain(secretName, false)) errs.push(invalid(String(tlsPath.child('secretName')), secretName, m));
  });
  const className = optStr(spec, 'ingressClassName');
  if (className !== undefined) for (const m of nameIsDNSSubdomain(className, false)) errs.push(invalid(String(fld.child('ingressClassName')), className, m));
  return errs;
}

function validateIngressStatus(ing: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  objs(obj(obj(ing, 'status'), 'loadBalancer'), 'ingress').forEach((lb, i) => {
    const p = fld.child('ingress').index(i);
    const ip = str(lb, 'ip');
    if (ip && !parseIP(ip)) {
      errs.push(invalid(String(p.child('ip')), ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    }
    const hostname = str(lb, 'hostname');
    if (hostname) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(invalid(String(p.child('hostname')), hostname, m));
      if (parseIP(hostname)) errs.push(invalid(String(p.child('hostname')), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

const ingressClassAnnotation = 'kubernetes.io/ingress.class';

export const ingressValidation: KindValidation = {
  validate(ing) {
    const errs = validateIngressSpec(obj(ing, 'spec'), newPath('spec'));
    const annotations = obj(ing['metadata'], 'annotations');
    const className = optStr(obj(ing, 'spec'), 'ingressClassName');
    if (has(annotations, ingressClassAnnotation) && className !== undefined && annotations[ingressClassAnnotation] !== className) {
      // kube-apiserver names this field without its metadata prefix.
      errs.push(invalid(String(newPath('annotations').child(ingressClassAnnotation)), annotations[ingressClassAnnotation], 'must match `ingressClassName` when both are specified'));
    }
    return errs;
  },
  validateUpdate(ing, _old, ctx) {
    if (ctx.subresource === 'status') return validateIngressStatus(ing, newPath('status', 'loadBalancer'));
    return validateIngressSpec(obj(ing, 'spec'), newPath('spec'));
  },
};

/**
 * Probes and lifecycle hooks (validateProbe, validateHandler,
 * validateLifecycle): exactly one handler, its own fields, and the probe's
 * counters non-negative; liveness and startup probes succeed once.
 */
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { arr, isValidPortNum, num, obj, objects, str, validateNonnegativeField, validatePortNumOrName, append, type Obj } from './common';

const httpHeaderNameRe = /^[-A-Za-z0-9]+$/;
const handlerKinds = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'] as const;

function validateHandlerKind(kind: (typeof handlerKinds)[number], h: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  switch (kind) {
    case 'exec':
      if (arr(h['command']).length === 0) errs.push(required(String(fld.child('command'))));
      break;
    case 'httpGet': {
      if (!str(h['path'])) errs.push(required(String(fld.child('path'))));
      append(errs, validatePortNumOrName(h['port'], fld.child('port')));
      const scheme = str(h['scheme']);
      if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(notSupported(String(fld.child('scheme')), scheme, ['HTTP', 'HTTPS']));
      for (const [hdr] of objects(h['httpHeaders'])) {
        const name = str(hdr['name']);
        if (!httpHeaderNameRe.test(name)) {
          errs.push(invalid(String(fld.child('httpHeaders')), name, "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"));
        }
      }
      break;
    }
    case 'tcpSocket':
      append(errs, validatePortNumOrName(h['port'], fld.child('port')));
      break;
    case 'grpc': {
      const port = num(h['port']) ?? 0;
      for (const m of isValidPortNum(port)) errs.push(invalid(String(fld.child('port')), port, m));
      break;
    }
    case 'sleep': {
      const secs = num(h['seconds']) ?? 0;
      if (secs < 0) errs.push(invalid(String(fld.child('seconds')), secs, 'must be non-negative'));
      break;
    }
  }
  return errs;
}

/** validateHandler: exactly one of exec, httpGet, tcpSocket, grpc (probes) or sleep (hooks). */
export function validateHandler(handler: Obj, fld: Path, kinds: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const kind of handlerKinds) {
    if (!kinds.includes(kind)) continue;
    const h = obj(handler[kind]);
    if (!h) continue;
    if (n > 0) errs.push(forbidden(String(fld.child(kind)), 'may not specify more than 1 handler type'));
    else {
      n++;
      append(errs, validateHandlerKind(kind, h, fld.child(kind)));
    }
  }
  if (n === 0) errs.push(required(String(fld), 'must specify a handler type'));
  return errs;
}

const probeCounters = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'];
const probeHandlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const hookHandlers = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function validateProbe(probe: Obj, fld: Path): FieldError[] {
  const errs = validateHandler(probe, fld, probeHandlers);
  for (const f of probeCounters) if ((num(probe[f]) ?? 0) < 0) append(errs, validateNonnegativeField(probe[f], fld.child(f)));
  const grace = num(probe['terminationGracePeriodSeconds']);
  if (grace !== undefined && grace <= 0) errs.push(invalid(String(fld.child('terminationGracePeriodSeconds')), grace, 'must be greater than 0'));
  return errs;
}

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** validateLivenessProbe / validateReadinessProbe / validateStartupProbe */
export function validateProbeOf(kind: ProbeKind, value: unknown, fld: Path): FieldError[] {
  const probe = obj(value);
  if (!probe) return [];
  const errs = validateProbe(probe, fld);
  if (kind === 'readinessProbe') {
    if (probe['terminationGracePeriodSeconds'] !== undefined && probe['terminationGracePeriodSeconds'] !== null) {
      errs.push(invalid(String(fld.child('terminationGracePeriodSeconds')), probe['terminationGracePeriodSeconds'], 'must not be set for readinessProbes'));
    }
  } else {
    const success = num(probe['successThreshold']) ?? 0;
    if (success !== 1) errs.push(invalid(String(fld.child('successThreshold')), success, 'must be 1'));
  }
  return errs;
}

/** validateLifecycle: each hook given has exactly one handler. */
export function validateLifecycle(value: unknown, fld: Path): FieldError[] {
  const lc = obj(value);
  if (!lc) return [];
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) {
    const h = obj(lc[hook]);
    if (h) append(errs, validateHandler(h, fld.child(hook), hookHandlers));
  }
  return errs;
}

/**
 * Event validation (ValidateEventCreate / ValidateEventUpdate): the lenient
 * legacy rules for core/v1 and the strict ones for events.k8s.io/v1. An
 * events.k8s.io/v1 object is read through its conversion to the internal
 * Event, so errors name the internal fields (message, involvedObject,
 * firstTimestamp, count, source) as kube-apiserver reports them.
 */
import { invalid, required, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { isDNS1123Subdomain, isQualifiedName } from '../names';
import { has, num, obj, optObj, str, validateImmutableField, type Obj } from '../values';

const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

/** The internal Event's fields, from either version. */
function internalEvent(ev: Obj): Obj {
  if (str(ev, 'apiVersion') !== 'events.k8s.io/v1') return ev;
  return {
    metadata: ev['metadata'],
    involvedObject: ev['regarding'],
    related: ev['related'],
    reason: ev['reason'],
    message: ev['note'],
    source: ev['deprecatedSource'],
    firstTimestamp: ev['deprecatedFirstTimestamp'],
    lastTimestamp: ev['deprecatedLastTimestamp'],
    count: ev['deprecatedCount'],
    type: ev['type'],
    eventTime: ev['eventTime'],
    series: ev['series'],
    action: ev['action'],
    reportingComponent: ev['reportingController'],
    reportingInstance: ev['reportingInstance'],
  };
}

const isStrict = (ev: Obj) => str(ev, 'apiVersion') === 'events.k8s.io/v1';

function legacyValidateEvent(ev: Obj, strict: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(ev['metadata'], 'namespace');
  const involvedNamespace = str(obj(ev, 'involvedObject'), 'namespace');
  const mismatch = () => errs.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  // core/v1 calls the controller reportingComponent.
  const controllerField = strict ? 'reportingController' : 'reportingComponent';
  if (!has(ev, 'eventTime')) {
    if (!involvedNamespace) {
      if (namespace !== '' && namespace !== 'default') mismatch();
    } else if (namespace !== involvedNamespace) mismatch();
  } else {
    if (!involvedNamespace && namespace !== 'default' && namespace !== 'kube-system') mismatch();
    const controller = str(ev, 'reportingComponent');
    if (!controller) errs.push(required(controllerField));
    for (const m of isQualifiedName(controller)) errs.push(invalid(controllerField, controller, m));
    const checks: [string, number][] = [['reportingInstance', reportingInstanceLengthLimit], ['action', actionLengthLimit], ['reason', reasonLengthLimit]];
    for (const [key, limit] of checks) {
      const v = str(ev, key);
      if (!v) errs.push(required(key));
      if (v.length > limit) errs.push(invalid(key, '', `can have at most ${limit} characters`));
    }
    if (str(ev, 'message').length > noteLengthLimit) errs.push(invalid('message', '', `can have at most ${noteLengthLimit} characters`));
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(invalid('namespace', namespace, m));
  return errs;
}

function validateSeries(ev: Obj): FieldError[] {
  const series = optObj(ev, 'series');
  if (!series) return [];
  const errs: FieldError[] = [];
  if (num(series, 'count') < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (!has(series, 'lastObservedTime')) errs.push(required('series.lastObservedTime'));
  return errs;
}

function validateStrict(ev: Obj): FieldError[] {
  const errs = validateSeries(ev);
  if (!has(ev, 'eventTime')) errs.push(required('eventTime'));
  const type = str(ev, 'type');
  if (type !== 'Normal' && type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${type}`));
  if (has(ev, 'firstTimestamp')) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (has(ev, 'lastTimestamp')) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (num(ev, 'count') !== 0) errs.push(invalid('count', '', 'needs to be unset'));
  const source = obj(ev, 'source');
  if (str(source, 'component') || str(source, 'host')) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

const immutableOnUpdate = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance'];

export const eventValidation: KindValidation = {
  validate(event) {
    const ev = internalEvent(event);
    const strict = isStrict(event);
    const errs = legacyValidateEvent(ev, strict);
    return strict ? [...errs, ...validateStrict(ev)] : errs;
  },
  validateUpdate(event, oldEvent) {
    const ev = internalEvent(event);
    const strict = isStrict(event);
    const errs = legacyValidateEvent(ev, strict);
    if (!strict) return errs;
    const old = internalEvent(oldEvent);
    for (const key of immutableOnUpdate) {
      // The internal field reportingComponent is reportingController on the wire.
      const name = key === 'reportingComponent' ? 'reportingController' : key;
      const e = validateImmutableField(ev[key], old[key], newPath(name));
      errs.push(...e.map((x) => (typeof ev[key] === 'object' && ev[key] !== null ? { ...x, valueText: '{...}' } : x)));
    }
    return [...errs, ...validateSeries(ev)];
  },
};

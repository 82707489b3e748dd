/**
 * Pod status writes (ValidatePodStatusUpdate): condition types, the
 * nominated node, observed generations, an unchanged QoS class, no
 * terminated container coming back when the pod does not restart it, and
 * pod and host IPs (valid, one per family, no duplicates). kube does not
 * check container status names against the spec, so neither does this.
 */
import { forbidden, goQuote, invalid, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import { isDNS1123Subdomain, isQualifiedName } from '../names';
import { parseIP } from '../net';
import { obj, objs, optNum, str, validateImmutableField, type Obj } from '../values';
import { ipMsg } from './addresses';

const systemConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);
const nonNegativeMsg = 'must be a non-negative integer';

/** validatePodConditions; kube reports these under metadata (its field path is built from the metadata path). */
function validatePodConditions(conditions: Obj[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  conditions.forEach((c, i) => {
    const type = str(c, 'type');
    if (systemConditions.has(type)) return;
    for (const m of isQualifiedName(type)) errs.push(invalid(String(fld.index(i).child('Type')), type, m));
  });
  return errs;
}

const terminated = (s: Obj) => obj(obj(s, 'state'), 'terminated');
const isTerminated = (s: Obj) => Object.keys(obj(s, 'state')).includes('terminated') && obj(s, 'state')['terminated'] !== null;

/** ValidateContainerStateTransition: a terminated container stays terminated unless the pod restarts it. */
function validateStateTransition(next: Obj[], old: Obj[], fld: Path, restartPolicy: string, restartable: (name: string) => boolean = () => false): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  old.forEach((o, i) => {
    if (!isTerminated(o)) return;
    if ((optNum(terminated(o), 'exitCode') ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    if (restartable(str(o, 'name'))) return;
    for (const n of next) {
      if (str(n, 'name') === str(o, 'name') && !isTerminated(n)) errs.push(forbidden(String(fld.index(i).child('state')), 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/** IsValidIPForLegacyField, strict for new values: an address already stored stays acceptable. */
function validateIP(ip: string, fld: Path, existing: Set<string>): FieldError[] {
  const parsed = parseIP(ip);
  if (!parsed) return [invalid(String(fld), ip, ipMsg)];
  if (existing.has(ip)) return [];
  const v4Text = parsed.v4 ? ip : ip.slice(ip.lastIndexOf(':') + 1);
  const errs: FieldError[] = [];
  if (v4Text.includes('.') && v4Text.split('.').some((o) => o.length > 1 && o.startsWith('0'))) errs.push(invalid(String(fld), ip, 'must not have leading 0s'));
  if (!parsed.v4 && parsed.bytes.slice(0, 10).every((b) => b === 0) && parsed.bytes[10] === 0xff && parsed.bytes[11] === 0xff) errs.push(invalid(String(fld), ip, 'must not be an IPv4-mapped IPv6 address'));
  return errs;
}

/** validatePodIPs / validateHostIPs: valid addresses, at most one per family, no duplicates. */
function validateIPList(next: Obj[], old: Obj[], fld: Path, typeName: string): FieldError[] {
  const existing = new Set(old.map((o) => str(o, 'ip')));
  const errs = next.flatMap((o, i) => validateIP(str(o, 'ip'), fld.index(i), existing));
  if (next.length > 1) {
    const ips = next.map((o) => str(o, 'ip'));
    const parsed = ips.map((ip) => parseIP(ip));
    const dual = parsed.every((p) => p) && parsed.length === 2 && parsed[0]!.v4 !== parsed[1]!.v4;
    if (!dual) {
      const text = `[]core.${typeName}{${ips.map((ip) => `core.${typeName}{IP:${goQuote(ip)}}`).join(', ')}}`;
      errs.push({ ...invalid(String(fld), null, 'may specify no more than one IP for each IP family'), valueText: text });
    }
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      if (seen.has(ip)) errs.push({ type: 'FieldValueDuplicate', field: String(fld.index(i)), valueText: `core.${typeName}{IP:${goQuote(ip)}}` });
      seen.add(ip);
    });
  }
  return errs;
}

export function validatePodStatusUpdate(pod: Obj, old: Obj): FieldError[] {
  const status = obj(pod, 'status');
  const oldStatus = obj(old, 'status');
  const oldSpec = obj(old, 'spec');
  const errs = validatePodConditions(objs(status, 'conditions'), newPath('metadata', 'conditions'));
  const fld = newPath('status');
  if (str(obj(pod, 'spec'), 'nodeName') !== str(oldSpec, 'nodeName')) errs.push(forbidden(String(fld.child('nodeName')), 'may not be changed directly'));
  const nominated = str(status, 'nominatedNodeName');
  if (nominated && nominated !== str(oldStatus, 'nominatedNodeName')) {
    for (const m of isDNS1123Subdomain(nominated)) errs.push(invalid(String(fld.child('nominatedNodeName')), nominated, m));
    if (str(oldSpec, 'nodeName')) errs.push(forbidden(String(fld.child('nominatedNodeName')), 'may not be set on pods that are already bound to a node'));
  }
  const observed = optNum(status, 'observedGeneration') ?? 0;
  if (observed < 0) errs.push(invalid(String(fld.child('observedGeneration')), observed, nonNegativeMsg));
  objs(status, 'conditions').forEach((c, i) => {
    const g = optNum(c, 'observedGeneration') ?? 0;
    if (g < 0) errs.push(invalid(String(fld.child('conditions').index(i).child('observedGeneration')), g, nonNegativeMsg));
  });
  errs.push(...validateImmutableField(str(status, 'qosClass'), str(oldStatus, 'qosClass'), fld.child('qosClass')));
  const restartPolicy = str(oldSpec, 'restartPolicy') || 'Always';
  const sidecars = new Set(objs(oldSpec, 'initContainers').filter((c) => str(c, 'restartPolicy') === 'Always').map((c) => str(c, 'name')));
  errs.push(...validateStateTransition(objs(status, 'containerStatuses'), objs(oldStatus, 'containerStatuses'), fld.child('containerStatuses'), restartPolicy));
  errs.push(...validateStateTransition(objs(status, 'initContainerStatuses'), objs(oldStatus, 'initContainerStatuses'), fld.child('initContainerStatuses'), restartPolicy, (n) => sidecars.has(n)));
  // Ephemeral containers are never restarted.
  errs.push(...validateStateTransition(objs(status, 'ephemeralContainerStatuses'), objs(oldStatus, 'ephemeralContainerStatuses'), fld.child('ephemeralContainerStatuses'), 'Never'));
  errs.push(...validateIPList(objs(status, 'podIPs'), objs(oldStatus, 'podIPs'), fld.child('podIPs'), 'PodIP'));
  errs.push(...validateIPList(objs(status, 'hostIPs'), objs(oldStatus, 'hostIPs'), fld.child('hostIPs'), 'HostIP'));
  return errs;
}

/**
 * Containers (validateContainers, validateInitContainers and
 * validateContainerCommon): names, image, ports, env, mounts, pull policy,
 * resources, probes, lifecycle and security context, with kube's rules for
 * which of those init containers may carry.
 */
import { isObject } from '../../api/types';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isValidPortName, isValidPortNum, maxInt32, num, obj, objects, str, validateDNS1123Label, inclusiveRangeError, append, type Obj } from './common';
import { validateEnv, validateEnvFrom } from './env';
import { validateLifecycle, validateProbeOf, type ProbeKind } from './probe';
import { validateContainerResourceRequirements } from './resources';
import { validateVolumeDevices, validateVolumeMounts } from './volume';

const portProtocols = ['SCTP', 'TCP', 'UDP'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const terminationMessagePolicies = ['File', 'FallbackToLogsOnError'];
const probeKinds: ProbeKind[] = ['livenessProbe', 'readinessProbe', 'startupProbe'];

function validateContainerPorts(ports: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(ports)) return errs;
  let names: Set<string> | undefined;
  for (let i = 0; i < ports.length; i++) {
    const port: unknown = ports[i];
    if (!isObject(port)) continue;
    const p = fld.index(i);
    const name = str(port['name']);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) for (const m of msgs) errs.push(invalid(String(p.child('name')), name, m));
      else if (names?.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('name')), value: name });
      else (names ??= new Set()).add(name);
    }
    const containerPort = num(port['containerPort']) ?? 0;
    if (containerPort === 0) errs.push(required(String(p.child('containerPort'))));
    else for (const m of isValidPortNum(containerPort)) errs.push(invalid(String(p.child('containerPort')), containerPort, m));
    const hostPort = num(port['hostPort']) ?? 0;
    if (hostPort !== 0) for (const m of isValidPortNum(hostPort)) errs.push(invalid(String(p.child('hostPort')), hostPort, m));
    const protocol = str(port['protocol']);
    if (!protocol) errs.push(required(String(p.child('protocol'))));
    else if (!portProtocols.includes(protocol)) errs.push(notSupported(String(p.child('protocol')), protocol, portProtocols));
  }
  return errs;
}

/** Whether any container's port asks for a host port (most pods' do not). */
function anyHostPort(containers: [Obj, number][]): boolean {
  for (const [c] of containers) {
    const ports = c['ports'];
    if (!Array.isArray(ports)) continue;
    for (const port of ports) if (isObject(port) && (num(port['hostPort']) ?? 0) !== 0) return true;
  }
  return false;
}

/** AccumulateUniqueHostPorts: one protocol/hostIP/hostPort per pod (per init container). */
function checkHostPortConflicts(containers: [Obj, number][], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!anyHostPort(containers)) return errs;
  const seen = new Set<string>();
  for (const [c, ci] of containers) {
    for (const [port, pi] of objects(c['ports'])) {
      const hostPort = num(port['hostPort']) ?? 0;
      if (hostPort === 0) continue;
      const key = `${str(port['protocol'])}/${str(port['hostIP'])}/${hostPort}`;
      if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: String(fld.index(ci).child('ports').index(pi).child('hostPort')), value: key });
      else seen.add(key);
    }
  }
  return errs;
}

function validateIDRange(value: unknown, fld: Path): FieldError[] {
  const n = num(value);
  return n !== undefined && (n < 0 || n > maxInt32) ? [invalid(String(fld), n, inclusiveRangeError(0, maxInt32))] : [];
}

const seccompTypes = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** validateSeccompProfileField */
export function validateSeccompProfile(value: unknown, fld: Path): FieldError[] {
  const sp = obj(value);
  if (!sp) return [];
  const errs: FieldError[] = [];
  const type = str(sp['type']);
  if (!type) errs.push(required(String(fld.child('type')), 'type is required when seccompProfile is set'));
  else if (!seccompTypes.includes(type)) errs.push(notSupported(String(fld.child('type')), type, seccompTypes));
  const localhost = sp['localhostProfile'];
  if (type === 'Localhost' && typeof localhost !== 'string') {
    errs.push(required(String(fld.child('localhostProfile')), 'must be set when seccomp type is Localhost'));
  }
  return errs;
}

/** ValidateSecurityContext for a container. */
function validateSecurityContext(value: unknown, fld: Path): FieldError[] {
  const sc = obj(value);
  if (!sc) return [];
  const errs: FieldError[] = [];
  errs.push(...validateIDRange(sc['runAsUser'], fld.child('runAsUser')), ...validateIDRange(sc['runAsGroup'], fld.child('runAsGroup')));
  if (sc['privileged'] === true && sc['allowPrivilegeEscalation'] === false) {
    errs.push(invalid(String(fld), sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  const caps = obj(sc['capabilities']);
  if (sc['allowPrivilegeEscalation'] === false && caps && Array.isArray(caps['add']) && caps['add'].includes('CAP_SYS_ADMIN')) {
    errs.push(invalid(String(fld), sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  const procMount = sc['procMount'];
  if (typeof procMount === 'string' && procMount !== 'Default' && procMount !== 'Unmasked') {
    errs.push(notSupported(String(fld.child('procMount')), procMount, ['Default', 'Unmasked']));
  }
  append(errs, validateSeccompProfile(sc['seccompProfile'], fld.child('seccompProfile')));
  return errs;
}

const resizeResources = ['cpu', 'memory'];
const resizePolicies = ['NotRequired', 'RestartContainer'];

/** validateResizePolicy: cpu or memory, each once, with a known restart policy (NotRequired when the pod never restarts). */
function validateResizePolicy(list: unknown, fld: Path, podRestartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [rp, i] of objects(list)) {
    const name = str(rp['resourceName']);
    if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(fld.index(i)), value: name });
    seen.add(name);
    if (!name) errs.push(required(String(fld)));
    else if (!resizeResources.includes(name)) errs.push(notSupported(String(fld), name, resizeResources));
    const policy = str(rp['restartPolicy']);
    if (!policy) errs.push(required(String(fld)));
    else if (!resizePolicies.includes(policy)) errs.push(notSupported(String(fld), policy, resizePolicies));
    if (podRestartPolicy === 'Never' && policy !== 'NotRequired') errs.push(invalid(String(fld), policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  }
  return errs;
}

/** validateContainerCommon: what every kind of container must satisfy. */
function validateContainerCommon(c: Obj, volumes: Set<string>, p: Path, podRestartPolicy = 'Always'): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c['name']);
  if (!name) errs.push(required(String(p.child('name'))));
  else append(errs, validateDNS1123Label(name, p.child('name')));
  if (!str(c['image'])) errs.push(required(String(p.child('image'))));
  const tmp = str(c['terminationMessagePolicy']);
  if (!tmp) errs.push(required(String(p.child('terminationMessagePolicy'))));
  else if (!terminationMessagePolicies.includes(tmp)) errs.push(notSupported(String(p.child('terminationMessagePolicy')), tmp, terminationMessagePolicies));
  // Absent fields have nothing to check: skip them without building their paths (Pod creates are hot).
  if (c['ports'] !== undefined) append(errs, validateContainerPorts(c['ports'], p.child('ports')));
  if (c['env'] !== undefined) append(errs, validateEnv(c['env'], p.child('env')));
  if (c['envFrom'] !== undefined) append(errs, validateEnvFrom(c['envFrom'], p.child('envFrom')));
  if (c['volumeMounts'] !== undefined) append(errs, validateVolumeMounts(c['volumeMounts'], c['volumeDevices'], volumes, p.child('volumeMounts')));
  if (c['volumeDevices'] !== undefined) append(errs, validateVolumeDevices(c['volumeDevices'], c['volumeMounts'], volumes, p.child('volumeDevices')));
  const pull = str(c['imagePullPolicy']);
  if (!pull) errs.push(required(String(p.child('imagePullPolicy'))));
  else if (!pullPolicies.includes(pull)) errs.push(notSupported(String(p.child('imagePullPolicy')), pull, pullPolicies));
  if (c['resources'] !== undefined) append(errs, validateContainerResourceRequirements(c['resources'], p.child('resources')));
  if (c['resizePolicy'] !== undefined) append(errs, validateResizePolicy(c['resizePolicy'], p.child('resizePolicy'), podRestartPolicy));
  if (c['securityContext'] !== undefined) append(errs, validateSecurityContext(c['securityContext'], p.child('securityContext')));
  return errs;
}

function validateProbesAndLifecycle(c: Obj, p: Path): FieldError[] {
  const errs = c['lifecycle'] !== undefined ? validateLifecycle(c['lifecycle'], p.child('lifecycle')) : [];
  for (const k of probeKinds) if (c[k] !== undefined) append(errs, validateProbeOf(k, c[k], p.child(k)));
  return errs;
}

/** validateContainers: the pod's regular containers. */
export function validateContainers(containers: unknown, volumes: Set<string>, fld: Path, podRestartPolicy = 'Always'): FieldError[] {
  const errs: FieldError[] = [];
  const list = objects(containers);
  if (list.length === 0) errs.push(required(String(fld)));
  const names = new Set<string>();
  for (const [c, i] of list) {
    const p = fld.index(i);
    append(errs, validateContainerCommon(c, volumes, p, podRestartPolicy));
    const name = str(c['name']);
    if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('name')), value: name });
    else names.add(name);
    append(errs, validateProbesAndLifecycle(c, p));
    if (c['restartPolicy'] !== undefined && c['restartPolicy'] !== null) errs.push(forbidden(String(p.child('restartPolicy')), 'may not be set for non-init containers'));
  }
  append(errs, checkHostPortConflicts(list, fld));
  return errs;
}

const initOnly = 'may not be set for init containers without restartPolicy=Always';

/** validateInitContainers: run one by one; only sidecars (restartPolicy Always) may have probes and hooks. */
export function validateInitContainers(containers: unknown, regular: unknown, volumes: Set<string>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objects(regular).map(([c]) => str(c['name'])));
  for (const [c, i] of objects(containers)) {
    const p = fld.index(i);
    append(errs, validateContainerCommon(c, volumes, p));
    const policy = c['restartPolicy'];
    const sidecar = policy === 'Always';
    if (policy !== undefined && policy !== null && !sidecar) errs.push(notSupported(String(p.child('restartPolicy')), policy, ['Always']));
    const name = str(c['name']);
    if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('name')), value: name });
    else if (name) names.add(name);
    append(errs, checkHostPortConflicts([[c, i]], fld));
    if (sidecar) append(errs, validateProbesAndLifecycle(c, p));
    else {
      for (const k of ['lifecycle', ...probeKinds]) if (c[k] !== undefined && c[k] !== null) errs.push(forbidden(String(p.child(k)), initOnly));
    }
  }
  return errs;
}

/** The fields validateFieldAllowList refuses on an ephemeral container, in the struct's field order. */
const ephemeralForbidden = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** reflect's IsZero on the field: a pointer, slice or string is set once present; resources, a struct, once one of its fields is. */
function isZero(field: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (field !== 'resources') return false;
  const o = obj(v);
  return !!o && Object.values(o).every((x) => x === undefined || x === null);
}

/** validateEphemeralContainers: debug containers added through the ephemeralcontainers subresource. */
export function validateEphemeralContainers(containers: unknown, spec: Obj, volumes: Set<string>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...objects(spec['containers']), ...objects(spec['initContainers'])].map(([c]) => str(c['name'])));
  const names = new Set(others);
  for (const [c, i] of objects(containers)) {
    const p = fld.index(i);
    append(errs, validateContainerCommon(c, volumes, p));
    const name = str(c['name']);
    if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('name')), value: name });
    else names.add(name);
    // The target must be one of the pod's other containers.
    const target = str(c['targetContainerName']);
    if (target && !others.has(target)) {
      errs.push({ type: 'FieldValueNotFound', field: String(p.child('targetContainerName')), value: target, showValue: true });
    }
    for (const k of ephemeralForbidden) if (!isZero(k, c[k])) errs.push(forbidden(String(p.child(k)), 'cannot be set for an Ephemeral Container'));
    // Subpaths are bind mounts that outlive the container until the pod exits.
    for (const [m, j] of objects(c['volumeMounts'])) {
      for (const k of ['subPath', 'subPathExpr']) if (str(m[k])) errs.push(forbidden(String(p.child('volumeMounts').index(j).child(k)), 'cannot be set for an Ephemeral Container'));
    }
  }
  return errs;
}

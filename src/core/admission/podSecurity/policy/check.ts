/**
 * What a Pod Security check is (k8s.io/pod-security-admission/policy
 * checks.go): an id, the level it belongs to and its revisions by minimum
 * policy version, each a function of the pod's metadata and spec. The pod
 * shapes are the JSON fields the checks read.
 */
import type { ObjectMeta } from '../../../api/types';
import type { Level } from '../api';

interface SELinuxOptions {
  type?: string;
  user?: string;
  role?: string;
  level?: string;
}

export interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: { hostProcess?: boolean };
}

export interface PodSecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: { name: string; value?: string }[];
}

/** A probe or lifecycle handler: only the handlers that reach a host. */
export interface Handler {
  httpGet?: { host?: string };
  tcpSocket?: { host?: string };
}

export interface Container {
  name: string;
  image?: string;
  ports?: { hostPort?: number }[];
  securityContext?: SecurityContext;
  livenessProbe?: Handler;
  readinessProbe?: Handler;
  startupProbe?: Handler;
  lifecycle?: { postStart?: Handler; preStop?: Handler };
}

export interface Volume {
  name: string;
  [source: string]: unknown;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: PodSecurityContext;
  runtimeClassName?: string;
  os?: { name?: string };
  hostUsers?: boolean;
}

export interface CheckResult {
  allowed: boolean;
  /** Succinct, always shown: "hostPort", "privileged". */
  forbiddenReason?: string;
  /** The values at fault, shown when one object is checked. */
  forbiddenDetail?: string;
}

export type CheckPodFn = (meta: ObjectMeta, spec: PodSpec) => CheckResult;

export interface VersionedCheck {
  /** The first policy minor (v1.x) this revision applies to. */
  minimumVersion: number;
  checkPod: CheckPodFn;
  /** Baseline checks this restricted revision supersedes at the restricted level. */
  overrideCheckIDs?: string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** Strictly increasing minimum versions. */
  versions: VersionedCheck[];
}

export const allowed: CheckResult = { allowed: true };

export const forbid = (forbiddenReason: string, forbiddenDetail = ''): CheckResult => ({ allowed: false, forbiddenReason, forbiddenDetail });

/** visitContainers: init containers, containers, then ephemeral containers. */
export function visitContainers(spec: PodSpec, visit: (c: Container) => void): void {
  for (const c of spec.initContainers ?? []) visit(c);
  for (const c of spec.containers ?? []) visit(c);
  for (const c of spec.ephemeralContainers ?? []) visit(c);
}

/** `"a", "b"` */
export const joinQuote = (items: readonly string[]): string => (items.length ? `"${items.join('", "')}"` : '');

export const pluralize = (singular: string, plural: string, count: number): string => (count === 1 ? singular : plural);

/** `container "a"` / `containers "a", "b"` */
export const containersPhrase = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

/** Go's string order (bytes), as sort.Strings and sets.String.List() give it. */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A sorted, de-duplicated list, as sets.String.List() gives it. */
export const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort(byteOrder);

/** From policy v1.25 a Windows pod (spec.os.name=windows) skips the Linux-only restricted checks. */
export const exceptWindows = (check: CheckPodFn): CheckPodFn => (meta, spec) => (spec.os?.name === 'windows' ? allowed : check(meta, spec));

/**
 * From policy v1.35 a pod in a user namespace (hostUsers: false) is not held
 * to the checks whose risk the namespace removes (runAsNonRoot, runAsUser,
 * baseline procMount): root in it is no host root.
 */
export const exceptUserNamespaces = (check: CheckPodFn): CheckPodFn => (meta, spec) => (spec.hostUsers === false ? allowed : check(meta, spec));

/**
 * Baseline checks on what a pod shares with its node: host namespaces,
 * hostPath volumes, host ports, probes and lifecycle handlers aimed at
 * another host, Windows HostProcess, /proc masks (restricted too from
 * v1.35, when baseline lets user-namespace pods unmask) and sysctls
 * (check_hostNamespaces.go, check_hostPathVolumes.go, check_hostPorts.go,
 * check_hostProbesAndhostLifecycle.go, check_windowsHostProcess.go,
 * check_procMount_baseline.go, check_procMount_restricted.go, check_sysctls.go).
 */
import { allowed, containersPhrase, exceptUserNamespaces, forbid, joinQuote, pluralize, sortedSet, visitContainers, type Check, type CheckPodFn, type Handler } from './check';

export const checkHostPathVolumesID = 'hostPathVolumes';

const hostNamespaces: CheckPodFn = (_meta, spec) => {
  const shared = [spec.hostNetwork && 'hostNetwork', spec.hostPID && 'hostPID', spec.hostIPC && 'hostIPC'].filter((n): n is string => !!n);
  return shared.length ? forbid('host namespaces', sortedSet(shared).join(', ')) : allowed;
};

const hostPathVolumes: CheckPodFn = (_meta, spec) => {
  const names = (spec.volumes ?? []).filter((v) => v['hostPath'] != null).map((v) => v.name);
  return names.length ? forbid('hostPath volumes', `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}`) : allowed;
};

const hostPorts: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const ports: string[] = [];
  visitContainers(spec, (c) => {
    const used = (c.ports ?? []).filter((p) => p.hostPort !== undefined && p.hostPort !== 0);
    if (!used.length) return;
    badContainers.push(c.name);
    for (const p of used) ports.push(String(p.hostPort));
  });
  if (!badContainers.length) return allowed;
  const list = sortedSet(ports);
  return forbid(
    'hostPort',
    `${containersPhrase(badContainers)} ${pluralize('uses', 'use', badContainers.length)} ${pluralize('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`,
  );
};

const handlerHosts = (h: Handler | undefined): string[] => [h?.httpGet?.host, h?.tcpSocket?.host].filter((host): host is string => !!host);

/** From v1.34 a probe or lifecycle handler may not name a host: the kubelet would call it (a blind SSRF). */
const hostProbesAndHostLifecycle: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const hosts: string[] = [];
  visitContainers(spec, (c) => {
    const found = [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop].flatMap(handlerHosts);
    if (!found.length) return;
    badContainers.push(c.name);
    hosts.push(...found);
  });
  if (!badContainers.length) return allowed;
  const names = sortedSet(badContainers);
  const list = sortedSet(hosts);
  return forbid(
    'probe or lifecycle host',
    `${containersPhrase(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', list.length)} ${joinQuote(list)}`,
  );
};

const windowsHostProcess: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.windowsOptions?.hostProcess === true) badContainers.push(c.name);
  });
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  if (badContainers.length) setters.push(containersPhrase(badContainers));
  return setters.length ? forbid('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`) : allowed;
};

const procMount: CheckPodFn = (_meta, spec) => {
  const badContainers: string[] = [];
  const types: string[] = [];
  visitContainers(spec, (c) => {
    const value = c.securityContext?.procMount;
    if (value === undefined || value === 'Default') return;
    badContainers.push(c.name);
    types.push(value);
  });
  return badContainers.length ? forbid('procMount', `${containersPhrase(badContainers)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`) : allowed;
};

const sysctlsV1Dot0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const sysctlsV1Dot27 = [...sysctlsV1Dot0, 'net.ipv4.ip_local_reserved_ports'];
const sysctlsV1Dot29 = [...sysctlsV1Dot27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const sysctlsV1Dot32 = [...sysctlsV1Dot29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

/** Only the "safe" sysctls, a list that grew with the kubelet's in 1.27, 1.29 and 1.32. */
function sysctls(safe: readonly string[]): CheckPodFn {
  const allowedNames = new Set(safe);
  return (_meta, spec) => {
    const forbidden = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !allowedNames.has(n));
    return forbidden.length ? forbid('forbidden sysctls', forbidden.join(', ')) : allowed;
  };
}

export const hostChecks: Check[] = [
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostNamespaces }] },
  { id: checkHostPathVolumesID, level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimumVersion: 34, checkPod: hostProbesAndHostLifecycle }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: windowsHostProcess }] },
  {
    id: 'procMount',
    level: 'baseline',
    versions: [
      { minimumVersion: 0, checkPod: procMount },
      // A user-namespace pod may unmask /proc at baseline; restricted still refuses it (procMount_restricted).
      { minimumVersion: 35, checkPod: exceptUserNamespaces(procMount) },
    ],
  },
  { id: 'procMount_restricted', level: 'restricted', versions: [{ minimumVersion: 35, checkPod: procMount }] },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: 0, checkPod: sysctls(sysctlsV1Dot0) },
      { minimumVersion: 27, checkPod: sysctls(sysctlsV1Dot27) },
      { minimumVersion: 29, checkPod: sysctls(sysctlsV1Dot29) },
      { minimumVersion: 32, checkPod: sysctls(sysctlsV1Dot32) },
    ],
  },
];

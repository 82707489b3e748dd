/**
 * Checks on the privileges a container asks for: privileged mode and added
 * capabilities (baseline), privilege escalation and capabilities beyond
 * NET_BIND_SERVICE with ALL dropped (restricted) (check_privileged.go,
 * check_capabilities_baseline.go, check_capabilities_restricted.go,
 * check_allowPrivilegeEscalation.go).
 */
import { allowed, containersPhrase, exceptWindows, forbid, joinQuote, sortedSet, visitContainers, type Check, type CheckPodFn } from './check';

export const checkCapabilitiesBaselineID = 'capabilities_baseline';

const privileged: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.privileged === true) bad.push(c.name);
  });
  return bad.length ? forbid('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`) : allowed;
};

/** The container runtime's default capability set. */
const defaultCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

const capabilitiesBaseline: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  const added: string[] = [];
  visitContainers(spec, (c) => {
    const extra = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !defaultCapabilities.has(cap));
    if (!extra.length) return;
    bad.push(c.name);
    added.push(...extra);
  });
  return bad.length ? forbid('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`) : allowed;
};

const capabilitiesRestrictedV1Dot22: CheckPodFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCaps: string[] = [];
  visitContainers(spec, (c) => {
    const caps = c.securityContext?.capabilities;
    if (!caps) {
      missingDropAll.push(c.name);
      return;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDropAll.push(c.name);
    const extra = (caps.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length) {
      addingForbidden.push(c.name);
      forbiddenCaps.push(...extra);
    }
  });
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length) details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbiddenCaps))} in securityContext.capabilities.add`);
  return details.length ? forbid('unrestricted capabilities', details.join('; ')) : allowed;
};

const allowPrivilegeEscalationV1Dot8: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.allowPrivilegeEscalation !== false) bad.push(c.name);
  });
  return bad.length ? forbid('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`) : allowed;
};

export const privilegeChecks: Check[] = [
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: privileged }] },
  { id: checkCapabilitiesBaselineID, level: 'baseline', versions: [{ minimumVersion: 0, checkPod: capabilitiesBaseline }] },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: 22, checkPod: capabilitiesRestrictedV1Dot22, overrideCheckIDs: [checkCapabilitiesBaselineID] },
      // Validation refuses capabilities on Windows pods, so one without them passes.
      { minimumVersion: 25, checkPod: exceptWindows(capabilitiesRestrictedV1Dot22), overrideCheckIDs: [checkCapabilitiesBaselineID] },
    ],
  },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      // The field exists from 1.8.
      { minimumVersion: 8, checkPod: allowPrivilegeEscalationV1Dot8 },
      { minimumVersion: 25, checkPod: exceptWindows(allowPrivilegeEscalationV1Dot8) },
    ],
  },
];

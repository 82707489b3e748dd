/**
 * Checks on the kernel security profiles: AppArmor and SELinux options
 * (baseline), seccomp (baseline forbids Unconfined, restricted requires
 * RuntimeDefault or Localhost) (check_appArmorProfile.go,
 * check_seLinuxOptions.go, check_seccompProfile_baseline.go,
 * check_seccompProfile_restricted.go).
 */
import { allowed, byteOrder, containersPhrase, exceptWindows, forbid, joinQuote, pluralize, sortedSet, visitContainers, type Check, type CheckPodFn } from './check';

export const checkSeccompBaselineID = 'seccompProfile_baseline';

const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const allowedProfileTypes = new Set(['RuntimeDefault', 'Localhost']);

const appArmorProfile: CheckPodFn = (meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podType = spec.securityContext?.appArmorProfile?.type;
  if (spec.securityContext?.appArmorProfile && !allowedProfileTypes.has(podType ?? '')) {
    setters.push('pod');
    badValues.push(podType ?? '');
  }
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    const profile = c.securityContext?.appArmorProfile;
    if (profile && !allowedProfileTypes.has(profile.type ?? '')) {
      badContainers.push(c.name);
      badValues.push(profile.type ?? '');
    }
  });
  if (badContainers.length) setters.push(containersPhrase(badContainers));
  // The beta annotations: empty, runtime/default and localhost/* stay allowed.
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(appArmorAnnotationPrefix) && !(v === '' || v === 'runtime/default' || v.startsWith('localhost/')))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .sort(byteOrder);
  const values = [...sortedSet(badValues), ...annotations];
  if (annotations.length) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (!setters.length) return allowed;
  return forbid(pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length), `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`);
};

const seLinuxAllowedTypes = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const seLinuxOptions: CheckPodFn = (_meta, spec) => {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (opts: { type?: string; user?: string; role?: string }): boolean => {
    let ok = true;
    if (!seLinuxAllowedTypes.has(opts.type ?? '')) {
      ok = false;
      badTypes.push(opts.type ?? '');
    }
    if (opts.user) {
      ok = false;
      setUser = true;
    }
    if (opts.role) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOptions = spec.securityContext?.seLinuxOptions;
  if (podOptions && !valid(podOptions)) setters.push('pod');
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    const opts = c.securityContext?.seLinuxOptions;
    if (opts && !valid(opts)) badContainers.push(c.name);
  });
  if (badContainers.length) setters.push(containersPhrase(badContainers));
  if (!setters.length) return allowed;
  const data: string[] = [];
  if (badTypes.length) {
    const types = sortedSet(badTypes);
    data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  }
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return forbid('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
};

const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

/** v1.0-v1.18: the alpha annotations. */
const seccompProfileBaselineV1Dot0: CheckPodFn = (meta, spec) => {
  const validValue = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const annotations = meta.annotations ?? {};
  const forbidden: string[] = [];
  const podValue = annotations[seccompPodAnnotation];
  if (podValue !== undefined && !validValue(podValue)) forbidden.push(`${seccompPodAnnotation}=${JSON.stringify(podValue)}`);
  visitContainers(spec, (c) => {
    const key = seccompContainerAnnotationPrefix + c.name;
    const v = annotations[key];
    if (v !== undefined && !validValue(v)) forbidden.push(`${key}=${JSON.stringify(v)}`);
  });
  const list = sortedSet(forbidden);
  return list.length ? forbid('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}`) : allowed;
};

/** Who explicitly set a seccompProfile.type outside RuntimeDefault/Localhost, and which values. */
function badSeccompSetters(spec: Parameters<CheckPodFn>[1]): { setters: string[]; values: string[]; podValid: boolean; unset: string[] } {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  let podValid = false;
  if (podProfile) {
    if (allowedProfileTypes.has(podProfile.type ?? '')) podValid = true;
    else {
      setters.push('pod');
      values.push(podProfile.type ?? '');
    }
  }
  const explicitlyBad: string[] = [];
  const unset: string[] = [];
  visitContainers(spec, (c) => {
    const profile = c.securityContext?.seccompProfile;
    if (profile) {
      if (!allowedProfileTypes.has(profile.type ?? '')) {
        explicitlyBad.push(c.name);
        values.push(profile.type ?? '');
      }
    } else if (!podValid) unset.push(c.name);
  });
  if (explicitlyBad.length) setters.push(containersPhrase(explicitlyBad));
  return { setters, values: sortedSet(values), podValid, unset };
}

/** v1.19+: securityContext.seccompProfile.type. */
const seccompProfileBaselineV1Dot19: CheckPodFn = (_meta, spec) => {
  const { setters, values } = badSeccompSetters(spec);
  return setters.length ? forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`) : allowed;
};

const seccompProfileRestrictedV1Dot19: CheckPodFn = (_meta, spec) => {
  const { setters, values, unset } = badSeccompSetters(spec);
  if (setters.length) return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`);
  if (unset.length) return forbid('seccompProfile', `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  return allowed;
};

export const profileChecks: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: appArmorProfile }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: seLinuxOptions }] },
  {
    id: checkSeccompBaselineID,
    level: 'baseline',
    versions: [
      { minimumVersion: 0, checkPod: seccompProfileBaselineV1Dot0 },
      { minimumVersion: 19, checkPod: seccompProfileBaselineV1Dot19 },
    ],
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: 19, checkPod: seccompProfileRestrictedV1Dot19, overrideCheckIDs: [checkSeccompBaselineID] },
      // Validation refuses seccompProfile on Windows pods.
      { minimumVersion: 25, checkPod: exceptWindows(seccompProfileRestrictedV1Dot19), overrideCheckIDs: [checkSeccompBaselineID] },
    ],
  },
];

/**
 * Restricted checks on the user a container runs as: runAsNonRoot must be
 * true (on the pod or every container), runAsUser must not be 0, unless
 * (from v1.35) the pod runs in a user namespace (check_runAsNonRoot.go,
 * check_runAsUser.go).
 */
import { allowed, containersPhrase, exceptUserNamespaces, forbid, visitContainers, type Check, type CheckPodFn } from './check';

const runAsNonRoot: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  visitContainers(spec, (c) => {
    const value = c.securityContext?.runAsNonRoot;
    if (value === false) explicitlyBad.push(c.name);
    else if (value === undefined && podValue !== true) implicitlyBad.push(c.name);
  });
  if (explicitlyBad.length) setters.push(containersPhrase(explicitlyBad));
  if (setters.length) return forbid('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicitlyBad.length) return forbid('runAsNonRoot != true', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
  return allowed;
};

const runAsUser: CheckPodFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.runAsUser === 0) bad.push(c.name);
  });
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? forbid('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`) : allowed;
};

export const userChecks: Check[] = [
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    versions: [
      { minimumVersion: 0, checkPod: runAsNonRoot },
      { minimumVersion: 35, checkPod: exceptUserNamespaces(runAsNonRoot) },
    ],
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    versions: [
      // runAsUser=0 is refused from policy v1.23.
      { minimumVersion: 23, checkPod: runAsUser },
      { minimumVersion: 35, checkPod: exceptUserNamespaces(runAsUser) },
    ],
  },
];

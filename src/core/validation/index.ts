/**
 * Validation of built-in kinds, one folder per API group as kube's
 * pkg/apis/<group>/validation, plus the shared pieces (field paths, names,
 * labels, object metadata). validationFor looks a resource up by group.
 */
import type { KindValidation, ValidationTable } from './kinds';
import { validation as admissionregistration } from './admissionregistration';
import { validation as apiextensions } from './apiextensions';
import { validation as apiregistration } from './apiregistration';
import { validation as apps } from './apps';
import { validation as autoscaling } from './autoscaling';
import { validation as batch } from './batch';
import { validation as certificates } from './certificates';
import { validation as coordination } from './coordination';
import { validation as core } from './core';
import { validation as discovery } from './discovery';
import { validation as events } from './events';
import { validation as flowcontrol } from './flowcontrol';
import { validation as networking } from './networking';
import { validation as node } from './node';
import { validation as policy } from './policy';
import { validation as rbac } from './rbac';
import { validation as resource } from './resource';
import { validation as scheduling } from './scheduling';
import { validation as storage } from './storage';

/** API group name -> its validation table. */
const byGroup: Record<string, ValidationTable> = {
  '': core,
  'admissionregistration.k8s.io': admissionregistration,
  'apiextensions.k8s.io': apiextensions,
  'apiregistration.k8s.io': apiregistration,
  apps,
  autoscaling,
  batch,
  'certificates.k8s.io': certificates,
  'coordination.k8s.io': coordination,
  'discovery.k8s.io': discovery,
  'events.k8s.io': events,
  'flowcontrol.apiserver.k8s.io': flowcontrol,
  'networking.k8s.io': networking,
  'node.k8s.io': node,
  policy,
  'rbac.authorization.k8s.io': rbac,
  'resource.k8s.io': resource,
  'scheduling.k8s.io': scheduling,
  'storage.k8s.io': storage,
};

export function validationFor(group: string, resource: string): KindValidation {
  return byGroup[group]?.[resource] ?? {};
}

export type { KindValidation, ValidationTable } from './kinds';
export { Path, newPath } from './field';

/**
 * Strategies for built-in kinds: the generic behaviour every resource gets
 * (status handling, generation, create-on-update), the group's own strategy
 * (registry/<group>/) and the kind's validation (validation/<group>/),
 * composed into one ResourceStrategy.
 */
import type { ResourceStrategy, StrategyContext } from './generic/strategy';
import type { ResourceType } from './types';
import { validationFor } from '../validation';
import { strategies as apiextensions } from './apiextensions';
import { strategies as apps } from './apps';
import { customResourceStrategy } from '../apiextensions/strategy';
import { validatingAdmissionPolicyStrategy } from '../admission/policyValidation';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from './admissionregistration/webhooks';
import { admissionPolicyBindingDefaults, admissionPolicyDefaults } from './admissionregistration/policies';
import { strategies as apiregistration } from './apiregistration';
import { strategies as batch } from './batch';
import { strategies as certificates } from './certificates';
import { strategies as core } from './core';
import { strategies as discovery } from './discovery';
import { hpaFromV1, hpaToV1 } from './autoscaling/hpaV1';
import { strategies as autoscaling, withStoredDefaults } from './autoscaling';
import { strategies as events } from './events';
import { strategies as flowcontrol } from './flowcontrol';
import { strategies as networking } from './networking';
import { strategies as node } from './node';
import { strategies as rbac } from './rbac';
import { strategies as resource } from './resource';
import { strategies as scheduling } from './scheduling';
import { strategies as storage } from './storage';

/** API group -> resource -> strategy. */
const byGroup: Record<string, Record<string, Partial<ResourceStrategy>>> = {
  '': core,
  'admissionregistration.k8s.io': {
    validatingadmissionpolicies: { ...validatingAdmissionPolicyStrategy, ...admissionPolicyDefaults },
    validatingadmissionpolicybindings: admissionPolicyBindingDefaults,
    mutatingadmissionpolicies: admissionPolicyDefaults,
    mutatingadmissionpolicybindings: admissionPolicyBindingDefaults,
    validatingwebhookconfigurations: validatingWebhookConfigurationStrategy,
    mutatingwebhookconfigurations: mutatingWebhookConfigurationStrategy,
  },
  'apiextensions.k8s.io': apiextensions,
  'apiregistration.k8s.io': apiregistration,
  apps,
  autoscaling,
  batch,
  'certificates.k8s.io': certificates,
  'discovery.k8s.io': discovery,
  'flowcontrol.apiserver.k8s.io': flowcontrol,
  'events.k8s.io': events,
  'networking.k8s.io': networking,
  'node.k8s.io': node,
  'rbac.authorization.k8s.io': rbac,
  'resource.k8s.io': resource,
  'scheduling.k8s.io': scheduling,
  'storage.k8s.io': storage,
};

/**
 * Strategies of one version of a resource whose versions share storage in
 * another layout: conversion from and to it (group/version -> resource).
 */
const byVersion: Record<string, Record<string, Partial<ResourceStrategy>>> = {
  'autoscaling/v1': { horizontalpodautoscalers: { fromStorage: (obj) => hpaToV1(withStoredDefaults(obj)), toStorage: hpaFromV1 } },
  'autoscaling/v2': { horizontalpodautoscalers: { fromStorage: withStoredDefaults } },
};

/** Kinds whose strategies maintain metadata.generation. */
const withGeneration = new Set([
  'apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', 'apps/controllerrevisions',
  'batch/jobs', 'batch/cronjobs', '/replicationcontrollers', '/pods',
  'autoscaling/horizontalpodautoscalers', 'policy/poddisruptionbudgets',
  'networking.k8s.io/networkpolicies', 'networking.k8s.io/ingresses',
  'apiextensions.k8s.io/customresourcedefinitions',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies', 'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations', 'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'discovery.k8s.io/endpointslices', 'resource.k8s.io/resourceclaims', 'resource.k8s.io/deviceclasses', 'resource.k8s.io/resourceslices',
]);

/** Kinds whose PUT of a missing object creates it (AllowCreateOnUpdate). */
const createOnUpdate = new Set([
  '/endpoints', '/events', 'events.k8s.io/events', 'coordination.k8s.io/leases',
  'rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings',
  '/limitranges', 'discovery.k8s.io/endpointslices',
]);

/** Kinds whose DELETE answers with the deleted object (ReturnDeletedObject). */
const returnsDeleted = new Set(['/pods', '/services', '/namespaces']);

/** Kinds whose create keeps the status it carries: a kubelet registers its Node with its addresses and capacity. */
const statusOnCreate = new Set(['/nodes']);

function genericStatusHandling(type: ResourceType): Pick<ResourceStrategy, 'prepareForCreate' | 'prepareForUpdate'> {
  const hasStatus = type.subresources.some((s) => s.name === 'status');
  if (!hasStatus) return {};
  const keepStatus = statusOnCreate.has(`${type.group}/${type.resource}`);
  return {
    prepareForCreate(obj) {
      // Status is the controllers' to write; a create starts from an empty one.
      if (!keepStatus) obj['status'] = {};
    },
    prepareForUpdate(obj, old, ctx) {
      // A CSR's /approval writes status.conditions: its own strategy (certificates/) decides.
      if (ctx.subresource === 'approval') return;
      if (ctx.subresource === 'status') {
        // A status write changes status only (and metadata other than labels).
        for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete obj[k];
        for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = structuredClone(v);
        obj.metadata.labels = old.metadata.labels;
        if (!obj.metadata.labels) delete obj.metadata.labels;
      } else if (old['status'] !== undefined) {
        obj['status'] = structuredClone(old['status']);
      } else {
        delete obj['status'];
      }
    },
  };
}

function compose(...parts: Partial<ResourceStrategy>[]): ResourceStrategy {
  const out: ResourceStrategy = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      const key = k as keyof ResourceStrategy;
      const prev = out[key];
      if (typeof v === 'function' && typeof prev === 'function') {
        const a = prev as (...args: unknown[]) => unknown;
        const b = v as (...args: unknown[]) => unknown;
        (out as Record<string, unknown>)[key] = (...args: unknown[]) => {
          const ra = a(...args);
          const rb = b(...args);
          return Array.isArray(ra) ? [...ra, ...((rb as unknown[]) ?? [])] : rb;
        };
      } else {
        (out as Record<string, unknown>)[key] = v;
      }
    }
  }
  return out;
}

/**
 * The kind's validation, looked up when a write first validates: the service
 * worker loads the kinds' validation as a part on first use (src/sw/chunkLoader.ts),
 * and strategies are built when the server starts.
 */
function kindValidation(group: string, resource: string): Partial<ResourceStrategy> {
  return {
    validate: (obj, ctx) => validationFor(group, resource).validate?.(obj, ctx) ?? [],
    validateUpdate: (obj, old, ctx) => validationFor(group, resource).validateUpdate?.(obj, old, ctx) ?? [],
  };
}

export function strategyFor(type: ResourceType): ResourceStrategy {
  if (type.custom) return customResourceStrategy(type);
  const id = `${type.group}/${type.resource}`;
  const base: ResourceStrategy = {
    hasGeneration: withGeneration.has(id) || !!type.custom,
    allowCreateOnUpdate: createOnUpdate.has(id),
    returnDeletedObject: returnsDeleted.has(id),
    // core/v1 ReplicationControllers keep their pods by default (DefaultGarbageCollectionPolicy).
    defaultPropagationPolicy: id === '/replicationcontrollers' ? 'Orphan' : undefined,
  };
  return compose(base, genericStatusHandling(type), byGroup[type.group]?.[type.resource] ?? {}, byVersion[`${type.group}/${type.version}`]?.[type.resource] ?? {}, kindValidation(type.group, type.resource));
}

export type { StrategyContext };
export { defaultPodSpec } from './core';

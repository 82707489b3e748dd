/**
 * Which printer serves which resource, keyed by group and resource as
 * kube-apiserver wires a printer-backed TableConvertor into each registry
 * store. Resources absent here (roles, cluster roles, limit ranges, CRDs,
 * ...) use the default Name / Created At table.
 */

import {
  admissionPolicyBindingPrinter,
  apiServicePrinter,
  certificateSigningRequestPrinter,
  clusterTrustBundlePrinter,
  flowSchemaPrinter,
  horizontalPodAutoscalerPrinter,
  leaseCandidatePrinter,
  leasePrinter,
  mutatingAdmissionPolicyPrinter,
  nameAgePrinter,
  podDisruptionBudgetPrinter,
  priorityClassPrinter,
  priorityLevelConfigurationPrinter,
  resourceClaimPrinter,
  resourceSlicePrinter,
  runtimeClassPrinter,
  validatingAdmissionPolicyPrinter,
  webhookConfigurationPrinter,
} from './cluster';
import {
  componentStatusPrinter,
  configMapPrinter,
  coreEventPrinter,
  endpointsPrinter,
  eventsV1Printer,
  namespacePrinter,
  nodePrinter,
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from './core';
import {
  endpointSlicePrinter,
  ingressClassPrinter,
  ingressPrinter,
  ipAddressPrinter,
  networkPolicyPrinter,
  serviceCIDRPrinter,
} from './networking';
import { podPrinter, podTemplatePrinter } from './pods';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac';
import {
  csiDriverPrinter,
  csiNodePrinter,
  csiStorageCapacityPrinter,
  storageClassPrinter,
  volumeAttachmentPrinter,
  volumeAttributesClassPrinter,
} from './storage';
import type { Printer } from './types';
import {
  controllerRevisionPrinter,
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  replicaSetPrinter,
  replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads';

const PRINTERS: Record<string, Record<string, Printer>> = {
  '': {
    pods: podPrinter,
    podtemplates: podTemplatePrinter,
    replicationcontrollers: replicationControllerPrinter,
    services: servicePrinter,
    endpoints: endpointsPrinter,
    nodes: nodePrinter,
    events: coreEventPrinter,
    namespaces: namespacePrinter,
    secrets: secretPrinter,
    serviceaccounts: serviceAccountPrinter,
    persistentvolumes: persistentVolumePrinter,
    persistentvolumeclaims: persistentVolumeClaimPrinter,
    componentstatuses: componentStatusPrinter,
    configmaps: configMapPrinter,
    resourcequotas: resourceQuotaPrinter,
  },
  apps: {
    deployments: deploymentPrinter,
    replicasets: replicaSetPrinter,
    statefulsets: statefulSetPrinter,
    daemonsets: daemonSetPrinter,
    controllerrevisions: controllerRevisionPrinter,
  },
  batch: { jobs: jobPrinter, cronjobs: cronJobPrinter },
  autoscaling: { horizontalpodautoscalers: horizontalPodAutoscalerPrinter },
  policy: { poddisruptionbudgets: podDisruptionBudgetPrinter },
  'networking.k8s.io': {
    ingresses: ingressPrinter,
    ingressclasses: ingressClassPrinter,
    networkpolicies: networkPolicyPrinter,
    servicecidrs: serviceCIDRPrinter,
    ipaddresses: ipAddressPrinter,
  },
  'discovery.k8s.io': { endpointslices: endpointSlicePrinter },
  'rbac.authorization.k8s.io': {
    rolebindings: roleBindingPrinter,
    clusterrolebindings: clusterRoleBindingPrinter,
  },
  'events.k8s.io': { events: eventsV1Printer },
  'certificates.k8s.io': {
    certificatesigningrequests: certificateSigningRequestPrinter,
    clustertrustbundles: clusterTrustBundlePrinter,
  },
  'coordination.k8s.io': { leases: leasePrinter, leasecandidates: leaseCandidatePrinter },
  'storage.k8s.io': {
    storageclasses: storageClassPrinter,
    volumeattachments: volumeAttachmentPrinter,
    csinodes: csiNodePrinter,
    csidrivers: csiDriverPrinter,
    csistoragecapacities: csiStorageCapacityPrinter,
    volumeattributesclasses: volumeAttributesClassPrinter,
  },
  'apiregistration.k8s.io': { apiservices: apiServicePrinter },
  'scheduling.k8s.io': { priorityclasses: priorityClassPrinter },
  'node.k8s.io': { runtimeclasses: runtimeClassPrinter },
  'admissionregistration.k8s.io': {
    mutatingwebhookconfigurations: webhookConfigurationPrinter,
    validatingwebhookconfigurations: webhookConfigurationPrinter,
    validatingadmissionpolicies: validatingAdmissionPolicyPrinter,
    validatingadmissionpolicybindings: admissionPolicyBindingPrinter,
    mutatingadmissionpolicies: mutatingAdmissionPolicyPrinter,
    mutatingadmissionpolicybindings: admissionPolicyBindingPrinter,
  },
  'flowcontrol.apiserver.k8s.io': {
    flowschemas: flowSchemaPrinter,
    prioritylevelconfigurations: priorityLevelConfigurationPrinter,
  },
  'resource.k8s.io': {
    deviceclasses: nameAgePrinter,
    resourceclaims: resourceClaimPrinter,
    resourceclaimtemplates: nameAgePrinter,
    resourceslices: resourceSlicePrinter,
  },
};

/** The custom printer for a resource, or undefined when it uses the default table. */
export function printerFor(group: string, resource: string): Printer | undefined {
  return PRINTERS[group]?.[resource];
}

/** Every group/resource with a custom printer (for tests and discovery of coverage). */
export function printedResources(): { group: string; resource: string }[] {
  return Object.entries(PRINTERS).flatMap(([group, byResource]) =>
    Object.keys(byResource).map((resource) => ({ group, resource })),
  );
}

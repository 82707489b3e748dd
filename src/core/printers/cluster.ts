/**
 * Cluster-level and policy kinds: horizontal pod autoscalers, pod disruption
 * budgets, priority classes, leases and lease candidates, runtime classes,
 * certificate signing requests and trust bundles, admission webhooks and
 * policies, API priority and fairness objects, and dynamic resource
 * allocation kinds.
 */

import { ageColumn, column, doc, nameColumn } from './columns';
import { humanDuration, parseTimestamp, timestampSince } from './duration';
import { arr, compareStrings, field, intOrString, labelSelectorGoString, num, str } from './format';
import { formatQuantity } from './quantity';
import type { KubeObject, Printer, TableCell } from './types';

const name = (obj: KubeObject): string => str(obj.metadata?.name);
const age = (obj: KubeObject, now: Date): string => timestampSince(obj.metadata?.creationTimestamp, now);
const present = (value: unknown): boolean => value !== undefined && value !== null;
/** Quantity pointer: Go prints a nil *Quantity as <nil>. */
const quantityPtr = (value: unknown): string => (present(value) ? formatQuantity(value) : '<nil>');

/** autoscaling/v1 objects carry one CPU target; read them as the equivalent v2 metric. */
function hpaMetrics(obj: KubeObject): { specs: unknown[]; statuses: unknown[] } {
  const target = field(obj, 'spec', 'targetCPUUtilizationPercentage');
  if (field(obj, 'spec', 'metrics') === undefined && (present(target) || obj.apiVersion === 'autoscaling/v1')) {
    const current = field(obj, 'status', 'currentCPUUtilizationPercentage');
    return {
      specs: present(target)
        ? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }]
        : [],
      statuses: present(current)
        ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: current } } }]
        : [],
    };
  }
  return { specs: arr(field(obj, 'spec', 'metrics')), statuses: arr(field(obj, 'status', 'currentMetrics')) };
}

/** A Resource or ContainerResource metric: value target, or utilization with <auto> when unset. */
function resourceMetric(source: unknown, status: unknown): string {
  const metricName = str(field(source, 'name'));
  const averageValue = field(source, 'target', 'averageValue');
  if (present(averageValue)) {
    const current = present(status) ? quantityPtr(field(status, 'current', 'averageValue')) : '<unknown>';
    return `${metricName}: ${current}/${formatQuantity(averageValue)}`;
  }
  const currentUtilization = field(status, 'current', 'averageUtilization');
  const current = present(status) && present(currentUtilization) ? `${num(currentUtilization)}%` : '<unknown>';
  const targetUtilization = field(source, 'target', 'averageUtilization');
  const target = present(targetUtilization) ? `${num(targetUtilization)}%` : '<auto>';
  return `${metricName}: ${current}/${target}`;
}

/** An Object or External metric: `current/target`, with (avg) for per-pod targets. */
function valueMetric(source: unknown, status: unknown): string {
  const averageValue = field(source, 'target', 'averageValue');
  if (present(averageValue)) {
    const currentAverage = field(status, 'current', 'averageValue');
    const current = present(status) && present(currentAverage) ? formatQuantity(currentAverage) : '<unknown>';
    return `${current}/${formatQuantity(averageValue)} (avg)`;
  }
  const current = present(status) ? quantityPtr(field(status, 'current', 'value')) : '<unknown>';
  return `${current}/${quantityPtr(field(source, 'target', 'value'))}`;
}

/** formatHPAMetrics: at most two metrics, then "+ N more...". */
function formatHPAMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    switch (field(spec, 'type')) {
      case 'External':
        return valueMetric(field(spec, 'external'), field(status, 'external'));
      case 'Object':
        return valueMetric(field(spec, 'object'), field(status, 'object'));
      case 'Pods': {
        const podsStatus = field(status, 'pods');
        const current = present(podsStatus) ? quantityPtr(field(podsStatus, 'current', 'averageValue')) : '<unknown>';
        return `${current}/${quantityPtr(field(spec, 'pods', 'target', 'averageValue'))}`;
      }
      case 'Resource':
        return resourceMetric(field(spec, 'resource'), field(status, 'resource'));
      case 'ContainerResource':
        return resourceMetric(field(spec, 'containerResource'), field(status, 'containerResource'));
      default:
        return '<unknown type>';
    }
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

export const horizontalPodAutoscalerPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Reference', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerSpec.scaleTargetRef')),
    column('Targets', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerSpec.metrics')),
    column('MinPods', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerSpec.minReplicas')),
    column('MaxPods', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerSpec.maxReplicas')),
    column('Replicas', 'string', doc('autoscaling.v2.HorizontalPodAutoscalerStatus.currentReplicas')),
    ageColumn(),
  ],
  row(obj, { now }) {
    const { specs, statuses } = hpaMetrics(obj);
    const minReplicas = field(obj, 'spec', 'minReplicas');
    return {
      cells: [
        name(obj),
        `${str(field(obj, 'spec', 'scaleTargetRef', 'kind'))}/${str(field(obj, 'spec', 'scaleTargetRef', 'name'))}`,
        formatHPAMetrics(specs, statuses),
        typeof minReplicas === 'number' ? String(minReplicas) : '<unset>',
        num(field(obj, 'spec', 'maxReplicas')),
        num(field(obj, 'status', 'currentReplicas')),
        age(obj, now),
      ],
    };
  },
};

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn(),
  ],
  row(obj, { now }) {
    const minAvailable = field(obj, 'spec', 'minAvailable');
    const maxUnavailable = field(obj, 'spec', 'maxUnavailable');
    return {
      cells: [
        name(obj),
        present(minAvailable) ? intOrString(minAvailable) : 'N/A',
        present(maxUnavailable) ? intOrString(maxUnavailable) : 'N/A',
        num(field(obj, 'status', 'disruptionsAllowed')),
        age(obj, now),
      ],
    };
  },
};

export const priorityClassPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Value', 'integer', doc('scheduling.v1.PriorityClass.value')),
    column('Global-Default', 'boolean', doc('scheduling.v1.PriorityClass.globalDefault')),
    ageColumn(),
    column('PreemptionPolicy', 'string', doc('scheduling.v1.PriorityClass.preemptionPolicy')),
  ],
  row(obj, { now }) {
    return {
      cells: [name(obj), num(obj.value), obj.globalDefault === true, age(obj, now), str(obj.preemptionPolicy)],
    };
  },
};

export const leasePrinter: Printer = {
  columns: [nameColumn(), column('Holder', 'string', doc('coordination.v1.LeaseSpec.holderIdentity')), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), str(field(obj, 'spec', 'holderIdentity')), age(obj, now)] };
  },
};

export const leaseCandidatePrinter: Printer = {
  columns: [
    nameColumn(),
    column('LeaseName', 'string', doc('coordination.v1beta1.LeaseCandidateSpec.leaseName')),
    // Upstream looks these descriptions up on ObjectMeta, which has no such fields.
    column('BinaryVersion', 'string', ''),
    column('EmulationVersion', 'string', ''),
    ageColumn(),
  ],
  row(obj, { now }) {
    const spec = field(obj, 'spec');
    return {
      cells: [
        name(obj),
        str(field(spec, 'leaseName')),
        str(field(spec, 'binaryVersion')),
        str(field(spec, 'emulationVersion')),
        age(obj, now),
      ],
    };
  },
};

export const runtimeClassPrinter: Printer = {
  // Upstream looks the Handler description up on ObjectMeta, which has no such field.
  columns: [nameColumn(), column('Handler', 'string', ''), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), str(obj.handler), age(obj, now)] };
  },
};

function csrCondition(obj: KubeObject): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const condition of arr(field(obj, 'status', 'conditions'))) {
    const type = field(condition, 'type');
    if (type === 'Approved') approved = true;
    else if (type === 'Denied') denied = true;
    else if (type === 'Failed') failed = true;
  }
  let status = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) status += ',Failed';
  if (str(field(obj, 'status', 'certificate')).length > 0) status += ',Issued';
  return status;
}

export const certificateSigningRequestPrinter: Printer = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', doc('certificates.v1.CertificateSigningRequestSpec.signerName')),
    column('Requestor', 'string', doc('certificates.v1.CertificateSigningRequestSpec.request')),
    column('RequestedDuration', 'string', doc('certificates.v1.CertificateSigningRequestSpec.expirationSeconds')),
    column('Condition', 'string', doc('certificates.v1.CertificateSigningRequestStatus.conditions')),
  ],
  row(obj, { now }) {
    const expirationSeconds = field(obj, 'spec', 'expirationSeconds');
    return {
      cells: [
        name(obj),
        age(obj, now),
        str(field(obj, 'spec', 'signerName')) || '<none>',
        str(field(obj, 'spec', 'username')),
        typeof expirationSeconds === 'number' ? humanDuration(expirationSeconds * 1000) : '<none>',
        csrCondition(obj),
      ],
    };
  },
};

export const clusterTrustBundlePrinter: Printer = {
  columns: [nameColumn(), column('SignerName', 'string', doc('certificates.v1beta1.ClusterTrustBundleSpec.signerName'))],
  row(obj) {
    return { cells: [name(obj), str(field(obj, 'spec', 'signerName')) || '<none>'] };
  },
};

const WEBHOOKS_DESCRIPTION = 'Webhooks indicates the number of webhooks registered in this configuration';

export const webhookConfigurationPrinter: Printer = {
  columns: [nameColumn(), column('Webhooks', 'integer', WEBHOOKS_DESCRIPTION), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), arr(obj.webhooks).length, age(obj, now)] };
  },
};

const PARAM_KIND_DESCRIPTION = 'ParamKind specifies the kind of resources used to parameterize this policy';

function paramKind(obj: KubeObject): string {
  const kind = field(obj, 'spec', 'paramKind');
  if (!present(kind)) return '<unset>';
  return `${str(field(kind, 'apiVersion'))}/${str(field(kind, 'kind'))}`;
}

function admissionPolicyPrinter(countColumn: string, countField: string, description: string): Printer {
  return {
    columns: [
      nameColumn(),
      column(countColumn, 'integer', description),
      column('ParamKind', 'string', PARAM_KIND_DESCRIPTION),
      ageColumn(),
    ],
    row(obj, { now }) {
      return { cells: [name(obj), arr(field(obj, 'spec', countField)).length, paramKind(obj), age(obj, now)] };
    },
  };
}

export const validatingAdmissionPolicyPrinter = admissionPolicyPrinter(
  'Validations',
  'validations',
  'Validations indicates the number of validation rules defined in this configuration',
);
export const mutatingAdmissionPolicyPrinter = admissionPolicyPrinter(
  'Mutations',
  'mutations',
  'Mutation indicates the number of mutations rules defined in this configuration',
);

function paramRefName(obj: KubeObject): string {
  const ref = field(obj, 'spec', 'paramRef');
  if (!present(ref)) return '<unset>';
  const refName = str(field(ref, 'name'));
  if (refName !== '') {
    const namespace = str(field(ref, 'namespace'));
    // Whether the param is cluster-scoped is unknown here, so no namespace reads as "*".
    return namespace !== '' ? `${namespace}/${refName}` : `*/${refName}`;
  }
  const selector = field(ref, 'selector');
  return present(selector) ? labelSelectorGoString(selector) : '<unset>';
}

export const admissionPolicyBindingPrinter: Printer = {
  columns: [
    nameColumn(),
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn(),
  ],
  row(obj, { now }) {
    return { cells: [name(obj), str(field(obj, 'spec', 'policyName')), paramRefName(obj), age(obj, now)] };
  },
};

export const flowSchemaPrinter: Printer = {
  columns: [
    nameColumn(),
    column('PriorityLevel', 'string', doc('flowcontrol.v1.PriorityLevelConfigurationReference.name')),
    column('MatchingPrecedence', 'string', doc('flowcontrol.v1.FlowSchemaSpec.matchingPrecedence')),
    column('DistinguisherMethod', 'string', doc('flowcontrol.v1.FlowSchemaSpec.distinguisherMethod')),
    ageColumn(),
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  row(obj, { now }) {
    const method = field(obj, 'spec', 'distinguisherMethod');
    const dangling = arr(field(obj, 'status', 'conditions')).find((c) => field(c, 'type') === 'Dangling');
    return {
      cells: [
        name(obj),
        str(field(obj, 'spec', 'priorityLevelConfiguration', 'name')),
        num(field(obj, 'spec', 'matchingPrecedence')),
        present(method) ? str(field(method, 'type')) : '<none>',
        age(obj, now),
        dangling === undefined ? '?' : str(field(dangling, 'status')),
      ],
    };
  },
  // Lists print in matching order: lower precedence first, then by name.
  sortList(objs) {
    return [...objs].sort(
      (a, b) =>
        num(field(a, 'spec', 'matchingPrecedence')) - num(field(b, 'spec', 'matchingPrecedence')) ||
        compareStrings(name(a), name(b)),
    );
  },
};

export const priorityLevelConfigurationPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Type', 'string', doc('flowcontrol.v1.PriorityLevelConfigurationSpec.type')),
    column(
      'NominalConcurrencyShares',
      'string',
      doc('flowcontrol.v1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares'),
    ),
    column('Queues', 'string', doc('flowcontrol.v1.QueuingConfiguration.queues')),
    column('HandSize', 'string', doc('flowcontrol.v1.QueuingConfiguration.handSize')),
    column('QueueLengthLimit', 'string', doc('flowcontrol.v1.QueuingConfiguration.queueLengthLimit')),
    ageColumn(),
  ],
  row(obj, { now }) {
    let shares: TableCell = '<none>';
    let queues: TableCell = '<none>';
    let handSize: TableCell = '<none>';
    let queueLengthLimit: TableCell = '<none>';
    const limited = field(obj, 'spec', 'limited');
    if (present(limited)) {
      shares = num(field(limited, 'nominalConcurrencyShares'));
      const queuing = field(limited, 'limitResponse', 'queuing');
      if (present(queuing)) {
        queues = num(field(queuing, 'queues'));
        handSize = num(field(queuing, 'handSize'));
        queueLengthLimit = num(field(queuing, 'queueLengthLimit'));
      }
    }
    return {
      cells: [name(obj), str(field(obj, 'spec', 'type')), shares, queues, handSize, queueLengthLimit, age(obj, now)],
    };
  },
};

export const nameAgePrinter: Printer = {
  columns: [nameColumn(), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), age(obj, now)] };
  },
};

function resourceClaimState(obj: KubeObject): string {
  const states: string[] = [];
  const deleted = parseTimestamp(obj.metadata?.deletionTimestamp) !== undefined;
  if (deleted) states.push('deleted');
  if (!present(field(obj, 'status', 'allocation'))) {
    if (!deleted) states.push('pending');
  } else {
    states.push('allocated');
    if (arr(field(obj, 'status', 'reservedFor')).length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaimPrinter: Printer = {
  columns: [
    nameColumn(),
    column('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'),
    ageColumn(),
  ],
  row(obj, { now }) {
    return { cells: [name(obj), resourceClaimState(obj), age(obj, now)] };
  },
};

export const resourceSlicePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Node', 'string', doc('resource.v1.ResourceSliceSpec.nodeName')),
    column('Driver', 'string', doc('resource.v1.ResourceSliceSpec.driver')),
    column('Pool', 'string', doc('resource.v1.ResourcePool.name')),
    ageColumn(),
  ],
  row(obj, { now }) {
    const spec = field(obj, 'spec');
    return {
      cells: [
        name(obj),
        str(field(spec, 'nodeName')),
        str(field(spec, 'driver')),
        str(field(spec, 'pool', 'name')),
        age(obj, now),
      ],
    };
  },
};

/**
 * kube-aggregator's APIService TableConvertor: SERVICE is `Local` or namespace/name; AVAILABLE is the Available
 * condition's status, `False (reason)` when not True and it has a reason, `Unknown` without the condition.
 */
export const apiServicePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    ageColumn(),
  ],
  row(obj, { now }) {
    const service = field(obj, 'spec', 'service');
    const reference = present(service) ? `${str(field(service, 'namespace'))}/${str(field(service, 'name'))}` : 'Local';
    const condition = arr(field(obj, 'status', 'conditions')).find((c) => field(c, 'type') === 'Available');
    let available = 'Unknown';
    if (condition !== undefined) {
      const status = str(field(condition, 'status'));
      const reason = str(field(condition, 'reason'));
      available = status !== 'True' && reason ? `${status} (${reason})` : status;
    }
    return { cells: [name(obj), reference, available, age(obj, now)] };
  },
};

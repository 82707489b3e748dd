/**
 * flowcontrol.apiserver.k8s.io v1 defaults (SetDefaults_FlowSchemaSpec, SetDefaults_PriorityLevelConfiguration
 * and friends), the defaulter decoding runs on every write: a Limited level's
 * nominalConcurrencyShares is 30 only when unset (an explicit 0 stays 0, the
 * change v1 made over v1beta3's defaulting), lendablePercent 0, and a limit
 * response's queuing gets 64 queues, hand size 8 and queue length limit 50; an
 * Exempt level's shares and lendable percent default to 0.
 */
import type { KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function defaultPriorityLevel(obj: KubeObject): void {
  const spec = isObj(obj['spec']) ? obj['spec'] : undefined;
  if (!spec) return;
  const limited = isObj(spec['limited']) ? spec['limited'] : undefined;
  if (limited) {
    limited['nominalConcurrencyShares'] ??= 30;
    limited['lendablePercent'] ??= 0;
    // SetDefaults_QueuingConfiguration, on whatever queuing is given (0 is unset); validation wants one for type Queue.
    const response = isObj(limited['limitResponse']) ? limited['limitResponse'] : undefined;
    const queuing = response && isObj(response['queuing']) ? response['queuing'] : undefined;
    if (queuing) {
      if (!queuing['queues']) queuing['queues'] = 64;
      if (!queuing['handSize']) queuing['handSize'] = 8;
      if (!queuing['queueLengthLimit']) queuing['queueLengthLimit'] = 50;
    }
  }
  const exempt = isObj(spec['exempt']) ? spec['exempt'] : undefined;
  if (exempt) {
    exempt['nominalConcurrencyShares'] ??= 0;
    exempt['lendablePercent'] ??= 0;
  }
}

/** SetDefaults_FlowSchemaSpec: a schema without a matchingPrecedence (or 0) is matched at 1000. */
function defaultFlowSchema(obj: KubeObject): void {
  const spec = isObj(obj['spec']) ? obj['spec'] : undefined;
  if (spec && !spec['matchingPrecedence']) spec['matchingPrecedence'] = 1000;
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  flowschemas: { defaulter: defaultFlowSchema },
  prioritylevelconfigurations: { defaulter: defaultPriorityLevel },
};

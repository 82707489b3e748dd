/**
 * flowcontrol.apiserver.k8s.io v1 defaults (SetDefaults_PriorityLevelConfiguration
 * and friends), the defaulter decoding runs on every write: a Limited level's
 * nominalConcurrencyShares is 30 only when unset (an explicit 0 stays 0, the
 * change v1 made over v1beta3's defaulting), lendablePercent 0, and a Queuing
 * limit response gets 64 queues, hand size 8 and queue length limit 50; an
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
    const response = isObj(limited['limitResponse']) ? limited['limitResponse'] : undefined;
    const queuing = response && response['type'] === 'Queuing' ? ((response['queuing'] ??= {}) as Obj) : undefined;
    if (queuing) {
      queuing['queues'] ??= 64;
      queuing['handSize'] ??= 8;
      queuing['queueLengthLimit'] ??= 50;
    }
  }
  const exempt = isObj(spec['exempt']) ? spec['exempt'] : undefined;
  if (exempt) {
    exempt['nominalConcurrencyShares'] ??= 0;
    exempt['lendablePercent'] ??= 0;
  }
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  prioritylevelconfigurations: { defaulter: defaultPriorityLevel },
};

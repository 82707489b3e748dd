/**
 * The pods/eviction sub-resource (pkg/registry/core/pod/storage/eviction.go):
 * a virtual create (policy/v1 Eviction) that deletes the pod when its
 * PodDisruptionBudget allows it. A pod that is not running (Pending,
 * Succeeded, Failed) or already terminating is deleted without a look at
 * budgets. Otherwise the one budget whose selector matches it (none: delete;
 * more than one: 500) must allow a disruption: the eviction takes one from
 * disruptionsAllowed and records the pod in disruptedPods (through the
 * budget's status, so concurrent evictions conflict and retry), or is 429
 * TooManyRequests with a DisruptionBudget cause. An unready pod is deleted
 * without taking a disruption when the budget is already met (or its
 * unhealthyPodEvictionPolicy is AlwaysAllow), on the condition that it has not
 * changed since it was read.
 */
import { formatTime, isObject, type KubeObject } from '../../api/types';
import { conditionsOf, disruptionAllowedCondition, inStatusOrder, setStatusCondition } from '../../controllers/disruption';
import { isPodReady, specOf, statusOf } from '../../controllers/controllerUtils';
import { newBadRequest, newForbidden, newNotFound, StatusError, successStatus } from '../../errors';
import type { Store } from '../../registry/generic/store';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../../selectors';
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { readBody } from './common';
import type { RequestScope } from './scope';

interface EvictionBody {
  metadata?: { name?: string };
  deleteOptions?: { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: string[]; gracePeriodSeconds?: number };
}

/** More entries than this in disruptedPods means the controller is not keeping up (MaxDisruptedPodSize). */
const maxDisruptedPodSize = 2000;

const budgetResource = { group: 'policy', resource: 'poddisruptionbudgets' };

/** errors.NewTooManyRequests with the budget's cause. */
function tooManyRequests(cause: string, retryAfterSeconds: number): StatusError {
  const details: Record<string, unknown> = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds) details['retryAfterSeconds'] = retryAfterSeconds;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: 'TooManyRequests',
    details,
    code: 429,
  });
}

/** propagateDryRun: the request's dryRun and the body's must agree when both are given. */
function dryRunOf(query: string[], body: EvictionBody): boolean {
  const inBody = body.deleteOptions?.dryRun ?? [];
  if (query.length && inBody.length && JSON.stringify(query) !== JSON.stringify(inBody)) {
    throw newBadRequest(`Non-matching dry-run options in request and content: [${query.join(' ')}] and [${inBody.join(' ')}]`);
  }
  return (query.length ? query : inBody).includes('All');
}

/** canIgnorePDB: a pod that is not running, or is already going, disrupts nothing. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = statusOf(pod)['phase'];
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** getPodDisruptionBudgets: those whose selector matches the pod; a missing or empty selector matches nothing here. */
async function budgetsFor(budgets: Store, pod: KubeObject): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const pdb of (await budgets.list(pod.metadata.namespace!)).items) {
    const selector = labelSelectorFromObject(specOf(pdb)['selector'] as LabelSelectorObject | null | undefined);
    if (isSelectorError(selector) || selector.empty() || !selector.matches(pod.metadata.labels)) continue;
    out.push(pdb);
  }
  return out;
}

/** checkAndDecrement, against the budget as stored at each try: takes one disruption and records the pod, or refuses. */
async function takeDisruption(scope: RequestScope, budgets: Store, pdb: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name!;
  const namespace = pdb.metadata.namespace!;
  const dryRunDone = new Error('dry run');
  try {
    await budgets.update(namespace, name, (cur) => {
      if (!cur) throw newNotFound(budgetResource, name);
      const status = statusOf(cur);
      const allowed = typeof status['disruptionsAllowed'] === 'number' ? status['disruptionsAllowed'] : 0;
      const disrupted = isObject(status['disruptedPods']) ? (status['disruptedPods'] as Record<string, string>) : {};
      if (((status['observedGeneration'] as number | undefined) ?? 0) < (cur.metadata.generation ?? 0)) {
        throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
      }
      if (allowed < 0) throw newForbidden(budgetResource, name, 'pdb disruptions allowed is negative');
      if (Object.keys(disrupted).length > maxDisruptedPodSize) throw newForbidden(budgetResource, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
      if (allowed === 0) {
        throw tooManyRequests(`The disruption budget ${name} needs ${String(status['desiredHealthy'] ?? 0)} healthy pods and has ${String(status['currentHealthy'] ?? 0)} currently`, 0);
      }
      if (dryRun) throw dryRunDone;
      const now = formatTime(scope.clock.now());
      const next: Record<string, unknown> = { ...status, disruptedPods: { ...disrupted, [podName]: now }, disruptionsAllowed: allowed - 1 };
      // The condition turns only with the last disruption taken.
      if (allowed - 1 === 0) next['conditions'] = setStatusCondition(conditionsOf(status), disruptionAllowedCondition(0, status['observedGeneration'] as number | undefined), now);
      cur['status'] = inStatusOrder(next);
      return cur;
    }, { subresource: 'status' });
  } catch (e) {
    if (e !== dryRunDone) throw e;
  }
}

export async function evictPod(scope: RequestScope, budgets: Store | undefined): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, url, userAgent: request.headers.get('user-agent') });
  const eviction = (negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true }).decode(await readBody(request)) ?? {}) as EvictionBody;
  if (eviction.metadata?.name && eviction.metadata.name !== info.name) {
    throw newBadRequest(`name in URL does not match name in Eviction object`);
  }
  const dryRun = dryRunOf(url.searchParams.getAll('dryRun'), eviction);
  const kv = await store.getKv(info.namespace, info.name);
  if (!kv) throw newNotFound({ group: '', resource: 'pods' }, info.name);
  const pod = store.decode(kv);
  let preconditions = eviction.deleteOptions?.preconditions;
  if (budgets && !canIgnoreBudget(pod)) {
    const matching = await budgetsFor(budgets, pod);
    if (matching.length > 1) {
      const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
      return writeObject(choice.serializer, 500, status, { pretty: choice.pretty });
    }
    const pdb = matching[0];
    if (pdb) {
      const st = statusOf(pdb);
      const unhealthyGoes = !isPodReady(pod) && (specOf(pdb)['unhealthyPodEvictionPolicy'] === 'AlwaysAllow' || (Number(st['currentHealthy'] ?? 0) >= Number(st['desiredHealthy'] ?? 0) && Number(st['desiredHealthy'] ?? 0) > 0));
      // An unready pod deleted without taking a disruption must still be the one that was judged.
      if (unhealthyGoes) preconditions = { ...preconditions, resourceVersion: String(kv.modRevision) };
      else await takeDisruption(scope, budgets, pdb, info.name, dryRun);
    }
  }
  await store.delete(info.namespace, info.name, { preconditions, dryRun, gracePeriodSeconds: eviction.deleteOptions?.gracePeriodSeconds });
  return writeObject(choice.serializer, 201, { ...successStatus(), code: 201 }, { pretty: choice.pretty });
}
